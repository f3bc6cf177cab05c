"""The image's files: the Dockerfile pins its base and runs goldgate under tini as the
runner's uid, and docker/requirements.lock pins exactly goldgate's runtime dependencies.
(tests/action/test_container.py builds and runs the image.)"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from .support import load_script


def test_dockerfile_pins_its_base_and_runs_goldgate_under_tini(repo_root: Path) -> None:
    dockerfile = (repo_root / "Dockerfile").read_text(encoding="utf-8")

    assert re.search(r"^ARG BASE=python:3\.11-slim@sha256:[0-9a-f]{64}$", dockerfile, re.M)
    assert 'ENTRYPOINT ["tini", "--", "goldgate"]' in dockerfile
    assert re.search(r"^WORKDIR /github/workspace$", dockerfile, re.M)
    users = re.findall(r"^USER (\S+)$", dockerfile, re.M)
    assert users == ["1001:1001"], "the final stage runs as the runner's uid, not root"
    assert "requirements.lock" in dockerfile


def test_the_image_lock_pins_every_runtime_dependency(repo_root: Path) -> None:
    """docker/requirements.lock holds exactly the runtime closure of pyproject.toml's
    dependencies (as this environment resolves it), each pinned to a version that satisfies
    pyproject.toml. Regenerate with scripts/lock_requirements.py."""
    lock_lines = [
        line
        for line in (repo_root / "docker" / "requirements.lock").read_text("utf-8").splitlines()
        if line and not line.startswith("#")
    ]
    locked = {}
    for line in lock_lines:
        name, _, version = line.partition("==")
        assert version, f"{line!r} is not pinned with =="
        locked[canonicalize_name(name)] = version
    project = tomllib.loads((repo_root / "pyproject.toml").read_text("utf-8"))["project"]
    module = load_script("lock_requirements")

    closure = module.runtime_closure(list(project["dependencies"]))
    assert sorted(locked) == sorted(closure), "regenerate: scripts/lock_requirements.py"
    for text in project["dependencies"]:
        requirement = Requirement(text)
        version = locked[canonicalize_name(requirement.name)]
        assert requirement.specifier.contains(version, prereleases=True), (text, version)
