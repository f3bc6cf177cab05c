"""The Python of a job under act (tests/helpers/act.py) that must install goldgate itself, as a
team's job does, and the wheel its offline pip needs for that.

``job_python`` is a venv whose packages are its own plus the test venv's (goldgate's
dependencies, through a ``.pth`` line); the test venv's goldgate (an editable install, whose
own ``.pth`` is not read from there) is not importable from it, so goldgate's composite action
installs goldgate from its source. That pip runs offline (``PIP_NO_INDEX``) and builds in its
isolated build environment, as on GitHub, from a wheelhouse holding only setuptools (goldgate's
pyproject needs setuptools>=77): ``setuptools_wheelhouse`` downloads it once, and
``shared_wheelhouse`` once for the whole run (the tests that build goldgate share it).
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest


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


def shared_wheelhouse(factory: pytest.TempPathFactory) -> Path:
    """``setuptools_wheelhouse`` once for the run (1.7 CPU-s and a few seconds of the index
    each): in the folder the xdist workers' temporary folders share (this process's own
    without xdist), downloaded by the first test that needs it while the others wait on a
    lock. Skips the test when no package index answers."""
    base = factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder = root / "setuptools-wheelhouse"
    with (root / "setuptools-wheelhouse.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        missing = setuptools_wheelhouse(folder)
    if missing is not None:
        pytest.skip(missing)
    return folder


def offline_pip(wheelhouse: Path) -> dict[str, str]:
    """The job's variables for pip offline, building from ``wheelhouse``."""
    return {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheelhouse)}
