"""The response cache: keys that change with what decides an answer, plain files written
atomically and privately, and corrupt entries as misses with a warning."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from goldgate.run.live.cache import CACHE_FORMAT, MAX_WARNINGS, ResponseCache

IDENTITY = {"kind": "model", "url": "http://127.0.0.1/v1/chat/completions", "model": "m"}
REQUEST = {"workflow": "chat", "flow": None, "step": None,
           "envelope": {"payload": {"message": "hi"}, "metadata": {}}}  # fmt: skip
DOCUMENT = {"execution": {"status": "completed"}, "payload": {"answer": "echo: hi"}}


def test_the_key_is_stable_and_changes_with_each_part(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    key = cache.key("r1", IDENTITY, REQUEST, 1)
    assert key == ResponseCache(tmp_path / "other").key("r1", dict(IDENTITY), REQUEST, 1)
    others = {
        cache.key("r2", IDENTITY, REQUEST, 1),
        cache.key("r1", {**IDENTITY, "model": "m2"}, REQUEST, 1),
        cache.key("r1", IDENTITY, {**REQUEST, "step": "s"}, 1),
        cache.key("r1", IDENTITY, REQUEST, 2),
    }
    assert key not in others
    assert len(others) == 4


def test_an_answer_is_stored_as_a_private_plain_file_and_read_back(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    cache = ResponseCache(folder)
    key = cache.key("r1", IDENTITY, REQUEST, 1)
    assert cache.load(key) is None
    cache.store(key, DOCUMENT)

    path = folder / key[:2] / f"{key}.json"
    assert json.loads(path.read_bytes()) == {
        "format": CACHE_FORMAT,
        "key": key,
        "document": DOCUMENT,
    }
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]  # no temporary left
    assert ResponseCache(folder).load(key) == DOCUMENT
    assert (cache.hits, cache.misses, cache.written, cache.warnings) == (0, 1, 1, [])


def test_a_corrupt_entry_is_a_miss_with_a_warning_and_is_written_anew(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    keys = [cache.key("r1", IDENTITY, REQUEST, n) for n in range(1, 6)]
    for key in keys:
        cache.store(key, DOCUMENT)
    cache.path(keys[0]).write_bytes(b'{"format": "goldgate.cache/1", "key": "')  # cut short
    cache.path(keys[1]).write_text(json.dumps({"format": "other/9", "document": {}}))
    cache.path(keys[2]).write_text(json.dumps({"format": CACHE_FORMAT, "key": keys[3],
                                               "document": DOCUMENT}))  # fmt: skip
    cache.path(keys[3]).unlink()
    os.mkfifo(cache.path(keys[3]))  # never opened: it would block the run

    reader = ResponseCache(tmp_path)
    assert [reader.load(key) for key in keys] == [None, None, None, None, DOCUMENT]
    assert reader.corrupt == 4
    reasons = [warning.split(": ", 1)[1] for warning in reader.warnings]
    assert reasons == [
        "it is not JSON; the target was called instead",
        "it is not a goldgate.cache/1 entry; the target was called instead",
        "it does not hold this entry's answer; the target was called instead",
        "it is not a regular file; the target was called instead",
    ]
    assert all(keys[0][:2] in w or "cache entry" in w for w in reader.warnings)
    reader.path(keys[3]).unlink()
    reader.store(keys[0], DOCUMENT)
    assert ResponseCache(tmp_path).load(keys[0]) == DOCUMENT


def test_past_ten_warnings_only_a_count(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    keys = [cache.key("r1", IDENTITY, REQUEST, n) for n in range(1, MAX_WARNINGS + 4)]
    for key in keys:
        cache.store(key, DOCUMENT)
        cache.path(key).write_text("garbage")
    for key in keys:
        cache.load(key)
    shown = cache.summary_warnings()
    assert len(shown) == MAX_WARNINGS + 1
    assert shown[-1] == "3 more cache entries were ignored as unreadable"


def test_a_folder_that_cannot_be_written_is_a_warning_not_a_failure(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    cache = ResponseCache(blocker)
    cache.store(cache.key("r1", IDENTITY, REQUEST, 1), DOCUMENT)
    assert cache.written == 0
    assert len(cache.warnings) == 1
    assert "cannot be written" in cache.warnings[0]
