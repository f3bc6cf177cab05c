"""The Python of a job under act (tests/helpers/act.py) that must install goldgate itself, as a
team's job does, and the wheel its offline pip needs for that.

``job_python`` is a venv whose packages are its own plus the test venv's (goldgate's
dependencies, through a ``.pth`` line); the test venv's goldgate (an editable install, whose
own ``.pth`` is not read from there) is not importable from it, so goldgate's composite action
installs goldgate from its source. That pip runs offline (``PIP_NO_INDEX``) and builds in its
isolated build environment, as on GitHub, from a wheelhouse holding only setuptools (goldgate's
pyproject needs setuptools>=77): ``setuptools_wheelhouse`` downloads it once, and
``shared_wheelhouse`` once for the whole run (the tests that build goldgate share it).

``runner_python`` is the Python a job under act runs on by default (``Act.python_bin``): such
a venv from ``runner_base`` that holds goldgate too (its source on the ``.pth`` line, and the
test venv's console scripts, ``goldgate`` among them, run by this Python), so the action
installs nothing.

``runner_base``: a runner's Python (setup-python's) holds a standard library folder of a few
thousand files, its ``site-packages`` nearly empty; the Python the test venv is made from may
hold its own ``site-packages`` inside that folder (pyenv's: some 58,000 files here). The
action's seal and publishing steps list every file of the Python's import path, that folder
included (``find``, ``sort``, ``sha256sum``): 0.8 CPU-s a listing here instead of 0.3, and a
goldgate step lists twice. So a job's venv is made from the system's Python of the same
version where there is one (Debian's ``/usr/bin/python3.11``: the same ABI, so the test venv's
compiled packages load), else from the test venv's.

``lean_site``: what such a venv sees of the test venv. A runner's Python holds goldgate's
dependencies, not the test venv's 230-odd distributions (mypy, scipy, scikit-learn...) whose
33,000 files the seal would list too (0.3 CPU-s a listing instead of 0.07). So the ``.pth``
line names a copy of the test venv's files of goldgate's runtime dependencies (extras
followed), goldgate's record and pip, made once per run and shared by the xdist workers. A
copy, not hard links: linking changes the linked files' ctime, which the seal lists, so a
job of another worker sealed meanwhile would find its Python changed.
"""

from __future__ import annotations

import fcntl
import functools
import os
import subprocess
import sys
import sysconfig
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

SOURCE = Path(__file__).resolve().parents[2] / "src"


def job_python(
    folder: Path, *, base: str | None = None, goldgate: bool = False, lean: bool = False
) -> Path:
    """A venv at ``folder`` (see above) made from ``base`` (default: the test venv's Python);
    ``goldgate``: goldgate importable from it too, and the test venv's console scripts run by
    it; ``lean``: it sees ``lean_site`` instead of the whole test venv. Its ``bin`` folder."""
    subprocess.run([base or sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
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
    lines = [str(lean_site(folder) if lean else sysconfig.get_path("purelib"))]
    if goldgate:
        lines.append(str(SOURCE))  # the editable install's own .pth is not read from there
        _console_scripts(folder / "bin")
    Path(inner, "test-venv.pth").write_text("".join(f"{line}\n" for line in lines), "utf-8")
    return folder / "bin"


def _console_scripts(target: Path) -> None:
    """The test venv's console scripts (``goldgate``, ``pip``...), each run by the Python of
    ``target``."""
    own = Path(sysconfig.get_path("scripts"))
    shebang = f"#!{own}/"
    for script in own.iterdir():
        if (target / script.name).exists() or not script.is_file():
            continue
        with script.open("rb") as handle:
            if handle.read(len(shebang)).decode("utf-8", "replace") != shebang:
                continue
        rest = script.read_text("utf-8").partition("\n")[2]
        (target / script.name).write_text(f"#!{target / 'python'}\n{rest}", "utf-8")
        (target / script.name).chmod(0o755)


@functools.cache
def runner_base() -> str:
    """The Python a job's venv is made from (see above): the system's of this version where
    it makes a venv, else the test venv's."""
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    system = f"/usr/bin/python{version}"
    if os.access(system, os.X_OK):
        probe = subprocess.run(
            [system, "-c", "import sys, venv; print('%d.%d' % sys.version_info[:2])"],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        if probe.returncode == 0 and probe.stdout.strip() == version:
            return system
    return sys.executable


def runner_python(folder: Path) -> Path:
    """A job's Python that holds goldgate, made once at ``folder``: its ``bin`` folder."""
    if not (folder / "bin" / "python").exists():
        job_python(folder, base=runner_base(), goldgate=True, lean=True)
    return folder / "bin"


@functools.cache
def _lean_entries() -> tuple[str, ...]:
    """The test venv's top-level files and folders (relative to its site-packages; a module's
    bytecode file by file) of goldgate's runtime dependencies (extras followed), goldgate's
    record and pip."""
    purelib = Path(sysconfig.get_path("purelib"))
    wanted: list[tuple[str, frozenset[str]]] = [("goldgate", frozenset()), ("pip", frozenset())]
    seen: set[str] = set()
    entries: set[Path] = set()
    while wanted:
        name, extras = wanted.pop()
        key = canonicalize_name(name) + "".join(f"[{extra}]" for extra in sorted(extras))
        if key in seen:
            continue
        seen.add(key)
        distribution = metadata.distribution(name)
        for file in distribution.files or ():
            if file.parts and ".." not in file.parts:
                top = file.parts[:2] if file.parts[0] == "__pycache__" else file.parts[:1]
                entries.add(Path(*top))
        for line in distribution.requires or ():
            requirement = Requirement(line)
            marker = requirement.marker
            if name == "goldgate" and marker is not None:
                continue  # goldgate's own extras (test, docs): not what a team installs
            if marker is None or any(marker.evaluate({"extra": e}) for e in extras or {""}):
                wanted.append((requirement.name, frozenset(requirement.extras)))
    return tuple(sorted(str(entry) for entry in entries if (purelib / entry).exists()))


def lean_site(anchor: Path) -> Path:
    """The run's copy (see above), made by the first job's Python that asks, in the folder
    the run's temporary folders share (the xdist workers' too: ``pytest-of-USER/pytest-N``),
    else (another ``--basetemp``) beside ``anchor``."""
    run = next((p for p in anchor.parents if p.parent.name.startswith("pytest-of-")), None)
    if run is None:
        run = anchor.parent
    folder = run / "job-site"
    with (run / "job-site.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not folder.is_dir():
            partial = run / f".job-site-{os.getpid()}"
            partial.mkdir()
            subprocess.run(
                ["cp", "-a", "--parents", *_lean_entries(), str(partial)],
                cwd=sysconfig.get_path("purelib"), capture_output=True, check=True,
            )  # fmt: skip
            partial.rename(folder)
    return folder


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
