"""What the process may still take (``base.memorylimit``): the least of the address-space
limit, the cgroup's limit (page cache left out) and ``GOLDGATE_MEMORY_LIMIT``."""

from __future__ import annotations

from pathlib import Path

import pytest

from goldgate.base import memorylimit
from goldgate.base.errors import InvalidInputError


def _cgroup(folder: Path, **files: str) -> Path:
    folder.mkdir(parents=True)
    for name, text in files.items():
        (folder / name.replace("_", ".", 1)).write_text(text)
    return folder


def test_a_cgroup_v2_limit_less_what_it_uses_without_its_page_cache(tmp_path: Path) -> None:
    folder = _cgroup(
        tmp_path / "v2", memory_max="1000", memory_current="700", memory_stat="anon 200\nfile 400\n"
    )
    assert memorylimit._left(folder, "memory.max", "memory.current", "file") == 700


def test_no_cgroup_limit_is_none(tmp_path: Path) -> None:
    v2 = _cgroup(tmp_path / "v2", memory_max="max\n", memory_current="5")
    v1 = _cgroup(
        tmp_path / "v1",
        **{"memory_limit_in_bytes": "9223372036854771712", "memory_usage_in_bytes": "5"},
    )
    assert memorylimit._left(v2, "memory.max", "memory.current", "file") is None
    assert (
        memorylimit._left(v1, "memory.limit_in_bytes", "memory.usage_in_bytes", "total_cache")
        is None
    )


def test_the_variable_is_a_bound_and_a_wrong_one_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(memorylimit, "_held", lambda: 10 * memorylimit.MEGABYTE)
    monkeypatch.setattr(memorylimit, "_cgroup_left", lambda: None)
    monkeypatch.setattr(memorylimit, "_address_space_limit", lambda: None)
    environ = {memorylimit.MEMORY_LIMIT_VARIABLE: "100"}
    assert memorylimit.memory_left(environ) == 90 * memorylimit.MEGABYTE
    assert memorylimit.memory_left({}) is None
    with pytest.raises(InvalidInputError, match="positive whole number of megabytes"):
        memorylimit.memory_left({memorylimit.MEMORY_LIMIT_VARIABLE: "-3"})
