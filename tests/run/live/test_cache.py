"""The response cache: keys that change with what decides an answer, plain files written
atomically and privately, and corrupt entries as misses with a warning."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from goldgate.run.live.cache import CACHE_FORMAT, MAX_ENTRY_BYTES, MAX_WARNINGS, ResponseCache

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
        f"it is not a {CACHE_FORMAT} entry; the target was called instead",
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


def test_a_folder_that_cannot_be_used_is_a_warning_not_a_failure(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    cache = ResponseCache(blocker)
    key = cache.key("r1", IDENTITY, REQUEST, 1)
    cache.store(key, DOCUMENT)
    assert cache.load(key) is None
    assert cache.written == 0
    assert len(cache.warnings) == 1
    assert "is a symbolic link or not a folder; the cache was not used" in cache.warnings[0]
    assert blocker.read_text() == ""


def test_the_key_covers_values_describe_leaves_out() -> None:
    """Query values, literal header values and a model's api_version decide answers: each
    changes the key; an environment header's value never enters it, only its name."""
    from goldgate.gold.settings.live import ModelSettings
    from goldgate.gold.settings.models import EnvHeader
    from goldgate.run.live.target import cache_identity
    from goldgate.run.targets.http_target import HttpTarget
    from goldgate.run.targets.model_target import ModelTarget

    cache = ResponseCache(Path("unused"))

    def http(url: str, headers: dict[str, str | EnvHeader], environ: dict[str, str]) -> str:
        identity = cache_identity(HttpTarget(url, headers, environ=environ))
        return cache.key("r1", identity, REQUEST, 1)

    base = http("http://127.0.0.1/a?lang=en", {"X-Tier": "gold"}, {})
    assert base == http("http://127.0.0.1/a?lang=en", {"X-Tier": "gold"}, {"K": "v"})
    changed = {
        http("http://127.0.0.1/a?lang=fr", {"X-Tier": "gold"}, {}),
        http("http://127.0.0.1/a?lang=en", {"X-Tier": "silver"}, {}),
        http("http://u:p@127.0.0.1/a?lang=en", {"X-Tier": "gold"}, {}),
        http("http://127.0.0.1/a?lang=en", {"X-Tier": EnvHeader(env="TIER")}, {}),
    }
    assert base not in changed
    assert len(changed) == 4
    with_env = http("http://127.0.0.1/a", {"X-Key": EnvHeader(env="KEY")}, {"KEY": "one"})
    assert with_env == http("http://127.0.0.1/a", {"X-Key": EnvHeader(env="KEY")}, {"KEY": "two"})
    assert with_env != http("http://127.0.0.1/a", {"X-Key": EnvHeader(env="KEY2")}, {"KEY2": "one"})

    def model(**fields: object) -> str:
        settings = ModelSettings.model_validate(
            {"base_url": "http://127.0.0.1/v1", "model": "m", **fields}
        )
        return cache.key("r1", cache_identity(ModelTarget(settings, environ={})), REQUEST, 1)

    plain = model()
    variants = {
        model(api_version="2024-06-01"),
        model(api_version="2024-10-21"),
        model(base_url="http://127.0.0.1/v1?tenant=a"),
        model(system="Be brief."),
        model(prompt="Say {/payload/message}"),
        model(temperature=0.5),
        model(parameters={"seed": 7}),
    }
    assert plain not in variants
    assert len(variants) == 7


def test_a_signed_cache_refuses_entries_it_did_not_sign(tmp_path: Path) -> None:
    """With a cache key, an entry without its HMAC, or with another key's, or altered, is a
    miss with a warning; the key's value never appears in a warning or an entry."""
    signed = ResponseCache(tmp_path, b"s3cret-value")
    keys = [signed.key("r1", IDENTITY, REQUEST, n) for n in range(1, 5)]
    ResponseCache(tmp_path).store(keys[0], DOCUMENT)  # planted: no key
    ResponseCache(tmp_path, b"another").store(keys[1], DOCUMENT)
    signed.store(keys[2], DOCUMENT)
    signed.store(keys[3], DOCUMENT)
    entry = json.loads(signed.path(keys[3]).read_bytes())
    entry["document"]["payload"]["answer"] = "planted"
    signed.path(keys[3]).write_text(json.dumps(entry))
    assert b"s3cret" not in signed.path(keys[2]).read_bytes()

    reader = ResponseCache(tmp_path, b"s3cret-value")
    assert [reader.load(key) for key in keys] == [None, None, DOCUMENT, None]
    assert len(reader.warnings) == 3
    assert all("not signed with this job's GOLDGATE_CACHE_KEY" in w for w in reader.warnings)
    assert not any("s3cret" in w for w in reader.warnings)
    assert ResponseCache(tmp_path).load(keys[0]) == DOCUMENT  # no key configured: plain


def test_a_symlinked_cache_folder_is_never_read_or_written(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    writer = ResponseCache(elsewhere)
    key = writer.key("r1", IDENTITY, REQUEST, 1)
    writer.store(key, DOCUMENT)
    before = sorted(str(p) for p in elsewhere.rglob("*"))
    link = tmp_path / "cache"
    link.symlink_to(elsewhere, target_is_directory=True)

    cache = ResponseCache(link)
    assert cache.load(key) is None  # the answer behind the link is never taken
    cache.store(cache.key("r1", IDENTITY, REQUEST, 2), DOCUMENT)
    assert (cache.hits, cache.written) == (0, 0)
    assert sorted(str(p) for p in elsewhere.rglob("*")) == before
    assert len(cache.warnings) == 1
    assert "is a symbolic link or not a folder" in cache.warnings[0]


def test_links_and_folders_inside_the_cache_are_misses_never_writes_outside(
    tmp_path: Path,
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    folder = tmp_path / "cache"
    cache = ResponseCache(folder)
    keys = [cache.key("r1", IDENTITY, REQUEST, n) for n in range(1, 4)]
    folder.mkdir()
    # A shard folder that is a link out of the cache.
    (folder / keys[0][:2]).symlink_to(outside, target_is_directory=True)
    (outside / f"{keys[0]}.json").write_text(
        json.dumps({"format": CACHE_FORMAT, "key": keys[0], "document": DOCUMENT})
    )
    # An entry that is a link to a file outside; a folder where an entry goes.
    target = outside / "target.json"
    target.write_text(json.dumps({"format": CACHE_FORMAT, "key": keys[1], "document": DOCUMENT}))
    for key in keys[1:]:
        (folder / key[:2]).mkdir(exist_ok=True)
    cache.path(keys[1]).symlink_to(target)
    cache.path(keys[2]).mkdir()
    outside_before = {p.name: p.read_bytes() for p in outside.iterdir()}

    assert [cache.load(key) for key in keys] == [None, None, None]
    reasons = [w.split(": ", 1)[1] for w in cache.warnings]
    assert reasons == [
        "its folder is a symbolic link or not a folder; the target was called instead",
        "it is a symbolic link; the target was called instead",
        "it is not a regular file; the target was called instead",
    ]
    for key in keys:
        cache.store(key, DOCUMENT)  # never an exception, never through a link
    assert {p.name: p.read_bytes() for p in outside.iterdir()} == outside_before
    assert cache.path(keys[2]).is_dir()
    assert cache.written == 1  # the entry link was replaced by a file in the cache
    assert not cache.path(keys[1]).is_symlink()
    assert ResponseCache(folder).load(keys[1]) == DOCUMENT
    assert sum("cannot be written" in w for w in cache.warnings) == 2


def test_a_link_anywhere_in_a_relative_cache_path_is_never_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A relative --cache path lies in the checkout: a link committed as any of its folders
    is refused like a linked cache folder, and nothing is made behind it."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / "state").symlink_to(elsewhere, target_is_directory=True)
    monkeypatch.chdir(checkout)

    cache = ResponseCache(Path("state") / "goldgate" / "cache")
    key = cache.key("r1", IDENTITY, REQUEST, 1)
    cache.store(key, DOCUMENT)
    assert cache.load(key) is None

    assert list(elsewhere.iterdir()) == []
    assert cache.written == 0
    assert len(cache.warnings) == 1
    assert "is a symbolic link or not a folder" in cache.warnings[0]
    made = ResponseCache(Path("plain") / "cache")  # a relative path without a link is made
    made.store(key, DOCUMENT)
    assert made.load(key) == DOCUMENT


def test_an_entry_larger_than_any_answer_is_never_read(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    key = cache.key("r1", IDENTITY, REQUEST, 1)
    cache.store(key, DOCUMENT)
    with cache.path(key).open("r+b") as handle:
        handle.truncate(MAX_ENTRY_BYTES + 1)  # sparse: nothing is written to disk

    reader = ResponseCache(tmp_path)
    assert reader.load(key) is None
    assert "was ignored: it is larger than any answer;" in reader.warnings[0]
