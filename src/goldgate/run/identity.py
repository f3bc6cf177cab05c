"""What a CLI run names as its variant, and the project folder its files go to.

A comparison pairs a candidate with a baseline by what ran: the variant's name and revision
say that, so without ``--variant-revision`` the revision is the commit being evaluated (the
configuration digest only where there is no commit to name).
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Mapping
from pathlib import Path

__all__ = ["DEFAULT_VARIANT", "commit_revision", "project_folder", "variant_revision"]

DEFAULT_VARIANT = "settings"
_COMMIT = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")


def project_folder(settings_path: Path) -> Path:
    """The folder that holds ``config/``, or the settings file's own folder when that is not
    named ``config``: where ``.goldgate/`` (reports, comparisons) lives."""
    folder = settings_path.parent
    return folder.parent if folder.name == "config" else folder


def commit_revision(project: Path, environ: Mapping[str, str]) -> str | None:
    """The commit being evaluated: ``GITHUB_SHA`` in GitHub Actions, else ``HEAD`` when the
    project is a git checkout; ``None`` when there is none to name (no git, not a checkout,
    or git does not answer within five seconds)."""
    if environ.get("GITHUB_ACTIONS") == "true":
        sha = environ.get("GITHUB_SHA", "").strip()
        if sha:
            return sha
    try:
        done = subprocess.run(
            ["git", "-C", str(project), "rev-parse", "--verify", "--quiet", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    commit = done.stdout.strip()
    return commit if done.returncode == 0 and _COMMIT.fullmatch(commit) else None


def variant_revision(
    given: str | None, project: Path, environ: Mapping[str, str], configuration_digest: str
) -> str:
    """``--variant-revision`` when given, else the commit, else the configuration digest."""
    if given:
        return given
    return commit_revision(project, environ) or configuration_digest
