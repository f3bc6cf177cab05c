"""A release a team can pin (issue 45, item 4): the version in one place, a changelog that
names it, and a wheel and sdist that ``python -m build`` makes, ``twine check`` accepts and
that install in a fresh venv and run the bundled example from there.

The build, the check and the install run once, in one module fixture; the tests only read
what it left. The build runs without build isolation (which would make two environments and
ask the package index for setuptools in each, half a minute) in a venv of its own that holds
the setuptools goldgate's pyproject asks for (``setuptools>=77``, fetched once, as the act
tests fetch it) and sees the test venv's ``build``: the same backend, sdist first and the
wheel built from the sdist, as ``python -m build`` does."""

from __future__ import annotations

import dataclasses
import email.parser
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from email.message import Message
from pathlib import Path

import pytest

from goldgate._version import __version__
from helpers.job_python import job_python, shared_wheelhouse

# One worker builds and installs the release once (most of a minute), not each worker that
# draws one of the module's tests (--dist loadgroup).
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("release")]

_SOURCE = ("pyproject.toml", "README.md", "LICENSE", "src")


@dataclasses.dataclass(frozen=True)
class Release:
    wheel: Path
    sdist: Path
    twine: subprocess.CompletedProcess[str]
    version: subprocess.CompletedProcess[str]
    location: subprocess.CompletedProcess[str]
    example: subprocess.CompletedProcess[str]
    example_folder: Path


def _run(*argv: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(arg) for arg in argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


@pytest.fixture(scope="module")
def release(repo_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Release:
    work = tmp_path_factory.mktemp("release")
    source = work / "source"
    source.mkdir()
    for name in _SOURCE:  # the files a release is built from, not the checkout's leftovers
        origin = repo_root / name
        if origin.is_dir():
            ignored = shutil.ignore_patterns("__pycache__", "*.egg-info", "*.pyc")
            shutil.copytree(origin, source / name, ignore=ignored)
        else:
            shutil.copy2(origin, source / name)
    wheelhouse = shared_wheelhouse(tmp_path_factory)
    builder = job_python(work / "builder") / "python"
    # pip run by the venv's Python (the test venv's pip, seen through its .pth line): what
    # ``pip --python`` does, without a first pip that only starts the second.
    setuptools = _run(
        builder, "-m", "pip", "install", "--quiet", "--no-index", "--find-links", wheelhouse,
        "setuptools>=77",
    )  # fmt: skip
    assert setuptools.returncode == 0, setuptools.stderr
    dist = work / "dist"
    built = _run(builder, "-m", "build", "--no-isolation", "--outdir", dist, source)
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    (wheel,) = dist.glob("goldgate-*.whl")
    (sdist,) = dist.glob("goldgate-*.tar.gz")
    twine = _run(sys.executable, "-m", "twine", "check", "--strict", wheel, sdist)
    # A fresh venv: its own site-packages, with goldgate's dependencies from the test venv
    # (a .pth line: the test venv's editable goldgate is not importable from there), so pip
    # installs the wheel offline.
    bin_folder = job_python(work / "fresh")
    python = bin_folder / "python"
    installed = _run(python, "-m", "pip", "install", "--quiet", "--no-index", "--no-deps", wheel)
    assert installed.returncode == 0, installed.stderr
    example = work / "example"
    shutil.copytree(
        repo_root / "examples" / "support_triage",
        example,
        ignore=shutil.ignore_patterns("__pycache__", ".goldgate"),
    )
    return Release(
        wheel=wheel,
        sdist=sdist,
        twine=twine,
        version=_run(bin_folder / "goldgate", "--version", cwd=work),
        location=_run(python, "-P", "-c", "import goldgate; print(goldgate.__file__)", cwd=work),
        example=_run(
            bin_folder / "goldgate", "evaluate", "--config", "config/settings.yaml", cwd=example
        ),
        example_folder=example,
    )


def _metadata(wheel: Path) -> Message:
    with zipfile.ZipFile(wheel) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        return email.parser.Parser().parsestr(archive.read(name).decode("utf-8"))


def test_twine_accepts_the_wheel_and_the_sdist(release: Release) -> None:
    assert release.twine.returncode == 0, release.twine.stdout + release.twine.stderr
    assert release.twine.stdout.count("PASSED") == 2


def test_the_wheel_shows_a_package_index_what_it_needs(release: Release) -> None:
    metadata = _metadata(release.wheel)

    assert metadata["Name"] == "goldgate"
    assert metadata["Version"] == __version__
    assert metadata["Summary"].startswith("Gate pull requests of LLM applications")
    assert metadata["Requires-Python"] == ">=3.11"
    assert metadata["License-Expression"] == "MIT"
    assert metadata.get_all("License-File") == ["LICENSE"]
    assert metadata["Description-Content-Type"] == "text/markdown"
    assert "goldgate gates pull requests" in (metadata.get_payload() or "")
    classifiers = metadata.get_all("Classifier") or []
    assert "Programming Language :: Python :: 3.11" in classifiers
    assert "Typing :: Typed" in classifiers
    urls = dict(url.split(", ", 1) for url in metadata.get_all("Project-URL") or [])
    assert {"Homepage", "Documentation", "Changelog", "Issues"} <= set(urls)


def test_the_wheel_and_the_sdist_hold_what_goldgate_needs(release: Release) -> None:
    with zipfile.ZipFile(release.wheel) as archive:
        names = set(archive.namelist())
    assert "goldgate/py.typed" in names
    assert any(name.startswith("goldgate/render/templates/") for name in names)
    assert not any(name.startswith(("tests/", "examples/")) for name in names)
    with tarfile.open(release.sdist) as archive:
        members = {Path(*Path(name).parts[1:]).as_posix() for name in archive.getnames()}
    assert {"LICENSE", "README.md", "pyproject.toml", "src/goldgate/_version.py"} <= members


def test_the_installed_wheel_runs_the_bundled_example(release: Release) -> None:
    assert release.version.returncode == 0, release.version.stderr
    assert __version__ in release.version.stdout
    assert "/fresh/" in release.location.stdout, release.location  # not the checkout's source
    assert release.example.returncode == 0, release.example.stdout + release.example.stderr
    assert "verdict: passed (exit 0)" in release.example.stdout
    assert list((release.example_folder / ".goldgate" / "evaluations").glob("*.json"))


def test_the_version_has_one_home(repo_root: Path) -> None:
    """pyproject.toml and the action's install step read src/goldgate/_version.py; the
    changelog's newest release is that version."""
    pyproject = tomllib.loads((repo_root / "pyproject.toml").read_text("utf-8"))
    action = (repo_root / "action.yml").read_text("utf-8")
    changelog = (repo_root / "CHANGELOG.md").read_text("utf-8")

    assert "version" not in pyproject["project"]
    assert pyproject["project"]["dynamic"] == ["version"]
    dynamic = pyproject["tool"]["setuptools"]["dynamic"]["version"]
    assert dynamic == {"attr": "goldgate._version.__version__"}
    assert '"$GOLDGATE_SOURCE/src/goldgate/_version.py"' in action
    assert 'pyproject.toml")"' not in action
    releases = re.findall(r"^## \[(\d+\.\d+\.\d+)\]", changelog, flags=re.MULTILINE)
    assert changelog.count("## [Unreleased]") == 1
    assert changelog.index("## [Unreleased]") < changelog.index(f"## [{releases[0]}]")
    assert releases[0] == __version__
    assert f"[{__version__}]: " in changelog  # the link Keep a Changelog ends with
