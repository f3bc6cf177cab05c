"""``goldgate report merge`` has its shards verified by forked helpers, one for each CPU but
the one it writes on, each given shards of about the same size (issue 43: verifying takes
about what writing the merged report takes)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from goldgate.app import merge
from goldgate.base import accelerators
from goldgate.report import background


class _Fake:
    def __init__(self, paths: Sequence[Path]) -> None:
        self.paths = list(paths)
        self.waited = self.closed = 0

    def wait(self) -> int:
        self.waited += 1
        return 0

    def close(self) -> None:
        self.closed += 1


@pytest.fixture
def forked(monkeypatch: pytest.MonkeyPatch) -> list[_Fake]:
    made: list[_Fake] = []

    def verify(paths: Sequence[Path]) -> _Fake:
        made.append(_Fake(paths))
        return made[-1]

    monkeypatch.setattr(background, "verify_in_background", verify)
    return made


def _shards(folder: Path, sizes: Sequence[int]) -> list[Path]:
    paths = []
    for number, size in enumerate(sizes, 1):
        paths.append(folder / f"shard-{number}.json")
        paths[-1].write_bytes(b" " * size)
    return paths


@pytest.mark.parametrize(
    ("cpus", "sizes", "groups"),
    [
        (2, [10, 10], [[1, 2]]),
        (3, [10, 10], [[1], [2]]),
        (3, [3, 10, 4, 4], [[2], [1, 3, 4]]),
        (3, [9, 5, 5, 4], [[1, 4], [2, 3]]),
        (8, [5, 5], [[1], [2]]),
        (1, [5, 5, 5], [[1, 2, 3]]),
    ],
)
def test_each_helper_is_given_shards_of_about_the_same_size(
    forked: list[_Fake],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    cpus: int,
    sizes: list[int],
    groups: list[list[int]],
) -> None:
    monkeypatch.setattr(accelerators, "cpu_budget", lambda: float(cpus))
    paths = _shards(tmp_path, sizes)
    helpers = merge._Helpers.forked(paths)
    assert helpers is not None
    # Each helper's shards in the order given (a refusal is the first shard's, in turn).
    assert [[paths.index(path) + 1 for path in fake.paths] for fake in forked] == groups
    helpers.wait()
    helpers.close()
    assert [(fake.waited, fake.closed) for fake in forked] == [(1, 1)] * len(groups)


def test_without_a_fork_the_shards_are_verified_here(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(accelerators, "cpu_budget", lambda: 3.0)
    monkeypatch.setattr(background, "verify_in_background", lambda paths: None)
    assert merge._Helpers.forked(_shards(tmp_path, [4, 4])) is None


class _Forked(Exception):
    """The fake helper was forked: the merge goes no further."""


def test_the_helpers_fork_with_the_readers_built(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The records' adapters (and the readers' modules) are built before the helpers fork,
    which share them (copy on write) rather than build them again."""
    from goldgate.report import models

    monkeypatch.setattr(models, "_ADAPTERS", {})
    monkeypatch.setattr(background, "fork_possible", lambda: True)
    built: list[set[type]] = []

    def verify(paths: Sequence[Path]) -> _Fake:
        built.append(set(models._ADAPTERS))
        raise _Forked

    monkeypatch.setattr(background, "verify_in_background", verify)
    with pytest.raises(_Forked):
        merge.merge_shard_reports(_shards(tmp_path, [4, 4]), tmp_path / "merged.json")
    assert built == [{models.Report, models.CaseRecord}]
