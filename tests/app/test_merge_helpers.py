"""``goldgate report merge`` has its shards scanned and verified by forked helpers, one for
each CPU, at most one a shard, each given shards of about the same size: each group scanned
by a helper while this process builds the readers, then verified by another forked from it
(issue 43: each shard scanned once, on both CPUs)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from goldgate.app import merge
from goldgate.base import accelerators
from goldgate.report import background


def _shards(folder: Path, sizes: Sequence[int]) -> list[Path]:
    paths = []
    for number, size in enumerate(sizes, 1):
        paths.append(folder / f"shard-{number}.json")
        paths[-1].write_bytes(b" " * size)
    return paths


@pytest.mark.parametrize(
    ("cpus", "sizes", "groups"),
    [
        (2, [10, 10], [[1], [2]]),
        (3, [10, 10], [[1], [2]]),
        (2, [3, 10, 4, 4], [[1, 2], [3, 4]]),
        (3, [9, 5, 5, 4], [[1], [2, 3], [4]]),
        (2, [1, 1, 1, 30], [[1, 2, 3], [4]]),
        (2, [30, 1, 1, 1], [[1], [2, 3, 4]]),
        (4, [30, 1, 1], [[1], [2], [3]]),
        (8, [5, 5], [[1], [2]]),
        (1, [5, 5, 5], [[1, 2, 3]]),
    ],
)
def test_each_helper_is_given_shards_in_order_of_about_the_same_size(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    cpus: int,
    sizes: list[int],
    groups: list[list[int]],
) -> None:
    """One helper a CPU, at most one a shard, each given the next shards in order (it is
    forked once they are scanned), of about the same size in all."""
    monkeypatch.setattr(accelerators, "cpu_budget", lambda: float(cpus))
    paths = _shards(tmp_path, sizes)
    found = merge._groups(paths, merge._helper_count(len(paths)))
    assert [[paths.index(path) + 1 for path in group] for group in found] == groups


class _Helper:
    def made(self) -> Iterator[bytes]:
        return iter(())

    def wait(self) -> int:
        return 0

    def close(self) -> None:
        pass


def test_helpers_scan_the_shards_while_the_readers_are_built_then_others_verify_them(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Each group's helper is forked first and scans it while this process builds the
    records' adapters (and the readers' modules); each group is then taken from the scans
    handed here, and a helper forked, once they are built (it shares them, copy on write,
    rather than build them again), verifies it from them."""
    from goldgate.report import models, streamread

    monkeypatch.setattr(models, "_ADAPTERS", {})
    monkeypatch.setattr(background, "fork_possible", lambda: True)
    monkeypatch.setattr(accelerators, "cpu_budget", lambda: 2.0)
    events: list[Any] = []

    @contextlib.contextmanager
    def from_scan(path: Path, scan: Any) -> Iterator[Any]:
        events.append(("from its scan", path.name, scan))
        yield path.name

    class Scanning(_Helper):
        def __init__(self, shards: Sequence[Path]) -> None:
            self.shards = shards

        def handed_scans(self) -> list[str]:
            return [f"{path.name}'s scan" for path in self.shards]

    def scanning(shards: Sequence[Path]) -> Scanning:
        events.append(("scanning", [path.name for path in shards], set(models._ADAPTERS)))
        return Scanning(shards)

    def verify(shards: Sequence[Any], made: Any) -> _Helper:
        events.append(("verifying", list(shards), set(models._ADAPTERS), made is not None))
        return _Helper()

    monkeypatch.setattr(streamread, "streamed_from_scan", from_scan)
    monkeypatch.setattr(background, "scan_in_background", scanning)
    monkeypatch.setattr(background, "verify_streamed_in_background", verify)
    monkeypatch.setattr(merge, "_verify_each", lambda paths: None)
    with pytest.raises(AttributeError):  # the fake shards go no further than their scans
        merge.merge_shard_reports(_shards(tmp_path, [4, 4]), tmp_path / "merged.json")
    built = {models.Report, models.CaseRecord}
    assert events == [
        ("scanning", ["shard-1.json"], set()),
        ("scanning", ["shard-2.json"], set()),
        ("from its scan", "shard-1.json", "shard-1.json's scan"),
        ("verifying", ["shard-1.json"], built, True),
        ("from its scan", "shard-2.json", "shard-2.json's scan"),
        ("verifying", ["shard-2.json"], built, True),
    ]


def test_without_a_fork_the_shards_are_scanned_here_and_verified_before_publishing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Helpers that cannot be forked leave the shards to be scanned here, unverified, and
    verified before the merged report is published (``_verified_last``)."""
    from goldgate.report import streamread

    monkeypatch.setattr(background, "fork_possible", lambda: True)
    monkeypatch.setattr(accelerators, "cpu_budget", lambda: 2.0)
    events: list[Any] = []

    @contextlib.contextmanager
    def scanned(path: Path, *, verify: bool = True) -> Iterator[Any]:
        events.append((path.name, verify))
        yield path.name

    monkeypatch.setattr(streamread, "streamed_report", scanned)
    monkeypatch.setattr(background, "scan_in_background", lambda paths: None)
    monkeypatch.setattr(background, "verify_streamed_in_background", lambda *shards: None)
    monkeypatch.setattr(merge, "_verify_each", lambda paths: None)
    with pytest.raises(AttributeError):  # the fake shards go no further than their scans
        merge.merge_shard_reports(_shards(tmp_path, [4, 4]), tmp_path / "merged.json")
    assert events == [("shard-1.json", False), ("shard-2.json", False)]
