"""The Python of a job under act (tests/helpers/act.py) that must install goldgate itself, as a
team's job does, and the wheel its offline pip needs for that.

``job_python`` is a venv whose packages are its own plus the test venv's (goldgate's
dependencies, through a ``.pth`` line); the test venv's goldgate (an editable install, whose
own ``.pth`` is not read from there) is not importable from it, so goldgate's composite action
installs goldgate from its source. That pip runs offline (``PIP_NO_INDEX``) and builds in its
isolated build environment, as on GitHub, from a wheelhouse holding only setuptools (goldgate's
pyproject needs setuptools>=77): ``setuptools_wheelhouse`` downloads it once.
"""

from __future__ import annotations

import subprocess
import sys
import sysconfig
from pathlib import Path


def job_python(folder: Path) -> Path:
    """A venv at ``folder`` (see above); its ``bin`` folder."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    inner = subprocess.run(
        [
            str(folder / "bin" / "python"),
            "-c",
            "import sysconfig; print(sysconfig.get_path('purelib'))",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(inner, "test-venv.pth").write_text(sysconfig.get_path("purelib") + "\n", "utf-8")
    return folder / "bin"


def setuptools_wheelhouse(folder: Path) -> str | None:
    """A setuptools>=77 wheel in ``folder`` (kept when one is there); None, or why not when no
    package index answers."""
    folder.mkdir(parents=True, exist_ok=True)
    if list(folder.glob("setuptools-*.whl")):
        return None
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--quiet",
            "--no-deps",
            "--dest",
            str(folder),
            "setuptools>=77",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if done.returncode != 0 or not list(folder.glob("setuptools-*.whl")):
        return f"no package index answers for setuptools>=77: {done.stderr.strip()[-300:]}"
    return None


def offline_pip(wheelhouse: Path) -> dict[str, str]:
    """The job's variables for pip offline, building from ``wheelhouse``."""
    return {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheelhouse)}
