"""The image's files: the Dockerfile pins its base and runs goldgate under tini as the
runner's uid, and installs from docker/requirements.lock and docker/build-requirements.lock
only, by hash; the locks pin exactly goldgate's runtime dependencies (and the build's
setuptools), each with the sha256 of every wheel the image could install.
(tests/app/action/test_container.py builds and runs the image.)"""

from __future__ import annotations

import hashlib
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from .support import load_script


@pytest.fixture(scope="module")
def locking() -> Any:
    return load_script("lock_requirements")


def _pip_installs(dockerfile: str) -> list[str]:
    """Every ``pip ... install`` command of the Dockerfile's RUN lines, continuations joined."""
    commands = re.sub(r"\\\n\s*", " ", dockerfile).split(";")
    return [" ".join(c.split()) for c in commands if re.search(r"/pip\b.* install ", c)]


def test_dockerfile_pins_its_base_and_runs_goldgate_under_tini(repo_root: Path) -> None:
    dockerfile = (repo_root / "Dockerfile").read_text(encoding="utf-8")

    assert re.search(r"^ARG BASE=python:3\.11-slim@sha256:[0-9a-f]{64}$", dockerfile, re.M)
    assert 'ENTRYPOINT ["tini", "--", "goldgate"]' in dockerfile
    assert re.search(r"^WORKDIR /github/workspace$", dockerfile, re.M)
    users = re.findall(r"^USER (\S+)$", dockerfile, re.M)
    assert users == ["1001:1001"], "the final stage runs as the runner's uid, not root"


def test_dockerfile_installs_the_locks_by_hash_and_goldgate_from_its_own_wheel(
    repo_root: Path,
) -> None:
    """Three installs and no other: each lock with --require-hashes (wheels only), and the
    wheel built from this source, which no lock can hash, with no index and no dependencies."""
    installs = _pip_installs((repo_root / "Dockerfile").read_text(encoding="utf-8"))

    locked = {}
    for command in installs:
        lock = re.search(r" -r (\S+)", command)
        if lock is not None:
            locked[lock.group(1)] = command
    assert sorted(locked) == ["docker/build-requirements.lock", "docker/requirements.lock"]
    for command in locked.values():
        assert "--require-hashes" in command.split(), command
        assert "--only-binary=:all:" in command.split(), command
    (own,) = [c for c in installs if " -r " not in c]
    assert own.split()[-1] == "/build/wheels/goldgate-*.whl"
    assert {"--no-index", "--no-deps"} <= set(own.split()), own


def test_the_image_lock_pins_and_hashes_every_runtime_dependency(
    repo_root: Path, locking: Any
) -> None:
    """docker/requirements.lock holds exactly the runtime closure of pyproject.toml's
    dependencies, at versions that satisfy pyproject.toml, each with at least one sha256, in
    the script's layout. Not that they are the versions this environment has installed
    (``lock_requirements.py --check`` tells a developer that): a fresh clone's venv takes the
    newest releases, and a release on the index must not turn main red; the image installs
    the lock, whatever the venv holds."""
    text = (repo_root / "docker" / "requirements.lock").read_text("utf-8")
    locked = locking.read_lock(text)
    project = tomllib.loads((repo_root / "pyproject.toml").read_text("utf-8"))["project"]

    closure = locking.runtime_closure(list(project["dependencies"]))
    assert sorted(locked) == sorted(closure), "regenerate: scripts/lock_requirements.py"
    assert [name for name, pin in locked.items() if not pin.hashes] == []
    for requirement in map(Requirement, project["dependencies"]):
        version = locked[canonicalize_name(requirement.name)].version
        assert requirement.specifier.contains(version, prereleases=True), (requirement, version)
    in_layout = locking.render(locking.HEADER, sorted(locked.values(), key=_by_name))
    assert in_layout == text, "regenerate: scripts/lock_requirements.py"


def _by_name(pin: Any) -> str:
    return str(pin.name).casefold()


def test_the_build_lock_hashes_what_build_system_requires(repo_root: Path, locking: Any) -> None:
    text = (repo_root / "docker" / "build-requirements.lock").read_text("utf-8")
    locked = locking.read_lock(text)
    build = tomllib.loads((repo_root / "pyproject.toml").read_text("utf-8"))["build-system"]

    requires = [Requirement(text) for text in build["requires"]]
    assert sorted(locked) == sorted(canonicalize_name(r.name) for r in requires)
    for requirement in requires:
        pin = locked[canonicalize_name(requirement.name)]
        assert requirement.specifier.contains(pin.version), (requirement, pin.version)
        assert pin.hashes, f"{pin.name} has no hash: run scripts/lock_requirements.py"
    assert locking.locks(None)[locking.BUILD_LOCK] == text


def _sha(filename: str) -> str:
    return hashlib.sha256(filename.encode()).hexdigest()


def test_a_pin_is_hashed_for_every_wheel_the_image_could_install(locking: Any) -> None:
    """CPython 3.11 on glibc Linux, x86_64 or aarch64, at any manylinux level, abi3 and pure
    wheels too; nothing for other interpreters, platforms or versions, nor source archives."""
    wanted = [
        "demo_pkg-1.2-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
        "demo_pkg-1.2-cp311-cp311-manylinux2014_aarch64.manylinux_2_17_aarch64.whl",
        "demo_pkg-1.2-cp311-cp311-manylinux_2_34_aarch64.whl",
        "demo_pkg-1.2-cp311-cp311-manylinux1_x86_64.manylinux_2_5_x86_64.whl",
        "demo_pkg-1.2-cp39-abi3-manylinux_2_28_x86_64.whl",
        "demo_pkg-1.2-py3-none-any.whl",
        "demo_pkg-1.2-py2.py3-none-any.whl",
    ]
    unwanted = [
        "demo_pkg-1.2.tar.gz",
        "demo_pkg-1.2-cp312-cp312-manylinux_2_17_x86_64.whl",
        "demo_pkg-1.2-cp311-cp311-musllinux_1_2_x86_64.whl",
        "demo_pkg-1.2-cp311-cp311-manylinux_2_17_s390x.whl",
        "demo_pkg-1.2-cp311-cp311-win_amd64.whl",
        "demo_pkg-1.2-cp311-cp311-macosx_11_0_arm64.whl",
        "demo_pkg-1.2-cp311-cp311t-manylinux_2_17_x86_64.whl",
        "demo_pkg-1.3-py3-none-any.whl",
        "other-1.2-py3-none-any.whl",
        "demo_pkg-1.2-py2-none-any.whl",
    ]
    files = [{"filename": name, "hashes": {"sha256": _sha(name)}} for name in wanted + unwanted]
    pin = locking.Pin("Demo.Pkg", "1.2")

    hashes = locking.wheel_hashes(pin, files)

    assert sorted(hashes) == sorted(map(_sha, wanted))
    text = locking.render("# demo\n", [locking.Pin(pin.name, pin.version, hashes)])
    assert locking.read_lock(text) == {"demo-pkg": locking.Pin("Demo.Pkg", "1.2", hashes)}
    with pytest.raises(SystemExit, match=r"no wheel of Demo\.Pkg 1\.2"):
        locking.wheel_hashes(pin, [f for f in files if f["filename"] in unwanted])


@pytest.mark.parametrize(
    "line",
    ["six>=1.16", "six==1.17.0 --hash=md5:0123", "six==1.17.0 --hash=sha256:abc"],
)
def test_a_lock_line_that_is_not_a_hashed_pin_is_refused(locking: Any, line: str) -> None:
    with pytest.raises(ValueError, match="not"):
        locking.read_lock(line + "\n")
