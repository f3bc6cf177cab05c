"""The verdict store is strict: each line a JSON object with fixed keys; a tampered line is
refused with its file and line number (exit 2). It is written sorted and atomically."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from goldgate.base.errors import InvalidInputError
from goldgate.gold.suites import RecordedVerdict
from goldgate.report.queue import read_reviewed
from goldgate.report.verdictstore import (
    Verdict,
    VerdictStore,
    find_project,
    load_store,
    merge,
    verdicts_by_suite,
    write_store,
)
from goldgate.scoring.adjudication import gold_digest, is_digest, output_digest

DIGEST = output_digest("an answer")
GOLD = gold_digest("a warm answer")
GOOD = {"suite": "s", "case": "c", "check": "tone", "digest": DIGEST, "gold": GOLD,
        "verdict": "pass"}  # fmt: skip


def _line(**changes: Any) -> str:
    line = {**GOOD, **changes}
    return json.dumps({k: v for k, v in line.items() if v is not ...})


def test_the_digest_of_an_answer() -> None:
    assert DIGEST.startswith("sha256:")
    assert is_digest(DIGEST)
    assert output_digest("an answer ") != DIGEST
    assert not is_digest("sha256:" + "A" * 64)
    assert not is_digest("md5:abc")


def test_a_store_reads_back_what_was_written(tmp_path: Path) -> None:
    path = tmp_path / "evaluation" / "verdicts.jsonl"
    store = VerdictStore(
        path,
        (
            Verdict("s", "z", "tone", DIGEST, False, "too cold", GOLD),
            Verdict("s", "a", "tone", DIGEST, True),  # unbound: kept as it is
        ),
    )
    write_store(store)

    lines = path.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["case"] for line in lines] == ["a", "z"]  # sorted
    assert json.loads(lines[1]) == {
        "suite": "s", "case": "z", "check": "tone", "digest": DIGEST, "gold": GOLD,
        "verdict": "fail", "comment": "too cold",
    }  # fmt: skip
    assert "gold" not in json.loads(lines[0])
    assert set(load_store(path).verdicts) == set(store.verdicts)
    assert verdicts_by_suite(load_store(path))["s"] == {
        ("a", "tone", DIGEST): RecordedVerdict(True, None),
        ("z", "tone", DIGEST): RecordedVerdict(False, GOLD),
    }
    assert [p.name for p in path.parent.iterdir()] == ["verdicts.jsonl"]  # no temporary left


def test_no_store_yet_is_an_empty_store(tmp_path: Path) -> None:
    assert load_store(tmp_path / "verdicts.jsonl").verdicts == ()


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"suite": "s",', r"verdicts.jsonl:2:\d+: "),
        ("[1, 2]", r"verdicts.jsonl:2: a verdict line is a JSON object"),
        (_line(reviewer="me"), r"verdicts.jsonl:2: unknown key 'reviewer'; a verdict line has"),
        (_line(digest=...), r"verdicts.jsonl:2: the verdict line has no 'digest'"),
        (_line(digest="sha256:1234"), r"verdicts.jsonl:2: 'digest' is not a sha256"),
        (_line(digest=DIGEST.upper()), r"verdicts.jsonl:2: 'digest' is not a sha256"),
        (_line(verdict="maybe"), r"verdicts.jsonl:2: 'verdict' must be \"pass\" or \"fail\""),
        (_line(verdict=None), r"verdicts.jsonl:2: 'verdict' must be \"pass\" or \"fail\""),
        (_line(case=""), r"verdicts.jsonl:2: 'case' must be a nonempty string"),
        (_line(check="a\u0007"), r"verdicts.jsonl:2: 'check' must be a nonempty string"),
        (_line(comment=3), r"verdicts.jsonl:2: 'comment' must be a string or null"),
        (_line(gold="sha256:12"), r"verdicts.jsonl:2: 'gold' is not a sha256"),
        (_line(), r"verdicts.jsonl:2: a second verdict for the answer of .*verdicts.jsonl:1"),
        ('{"suite": "s", "suite": "t"}', r"verdicts.jsonl:2:\d+: duplicate key"),
    ],
)  # fmt: skip
def test_a_tampered_line_is_refused_with_its_line_number(
    tmp_path: Path, line: str, message: str
) -> None:
    path = tmp_path / "verdicts.jsonl"
    path.write_text(_line() + "\n" + line + "\n", encoding="utf-8")

    with pytest.raises(InvalidInputError, match=message):
        load_store(path)


def test_merge_adds_changes_and_keeps() -> None:
    other = gold_digest("a colder answer")
    store = VerdictStore(
        Path("v"),
        (Verdict("s", "a", "t", DIGEST, True, gold=GOLD), Verdict("s", "c", "t", DIGEST, True)),
    )
    merged = merge(
        store,
        [
            Verdict("s", "a", "t", DIGEST, True, gold=GOLD),
            Verdict("s", "b", "t", DIGEST, True, gold=GOLD),
            Verdict("s", "a", "t", DIGEST, False, "second look", GOLD),
            Verdict("s", "c", "t", DIGEST, True, gold=other),  # judged again: now bound
        ],
    )

    assert (merged.added, merged.changed, merged.unchanged) == (1, 2, 1)
    assert verdicts_by_suite(merged.store)["s"] == {
        ("a", "t", DIGEST): RecordedVerdict(False, GOLD),
        ("b", "t", DIGEST): RecordedVerdict(True, GOLD),
        ("c", "t", DIGEST): RecordedVerdict(True, other),
    }


def _reviewed(tmp_path: Path, *lines: dict[str, Any]) -> Path:
    path = tmp_path / "review.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_a_reviewers_file_decides_some_lines_and_leaves_others(tmp_path: Path) -> None:
    exported = {**GOOD, "id": "s/c#1/tone", "attempt": 1, "note": "n", "input": {"q": 1},
                "output": "an answer", "comment": None}  # fmt: skip
    reviewed = read_reviewed(
        _reviewed(tmp_path, exported, {**exported, "verdict": None, "case": "d"})
    )

    assert reviewed.verdicts == (Verdict("s", "c", "tone", DIGEST, True, gold=GOLD),)
    assert reviewed.undecided == 1


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ({**GOOD, "output": "an edited answer"}, "'digest' is not the digest of 'output'"),
        ({**GOOD, "output": 3}, "'output' must be the answer's text"),
        ({**GOOD, "verdict": "ok"}, '\'verdict\' must be "pass", "fail" or null'),
        ({**GOOD, "score": 1}, "unknown key 'score'"),
        ({**GOOD, "gold": None}, "the line has no 'gold' .* export the queue again"),
    ],
)
def test_a_reviewers_line_that_does_not_hold_is_refused(
    tmp_path: Path, line: dict[str, Any], message: str
) -> None:
    with pytest.raises(InvalidInputError, match=rf"review.jsonl:1: {message}"):
        read_reviewed(_reviewed(tmp_path, line))


def test_contradicting_lines_on_one_answer_are_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match=r"review.jsonl:2: contradicts .*review.jsonl:1"):
        read_reviewed(_reviewed(tmp_path, GOOD, {**GOOD, "verdict": "fail"}))


def test_the_project_is_the_nearest_folder_with_config_or_evaluation(tmp_path: Path) -> None:
    project = tmp_path / "repo" / "app"
    (project / "evaluation").mkdir(parents=True)
    (project / "evals" / "deep").mkdir(parents=True)
    (tmp_path / "repo" / ".git").mkdir()
    alone = tmp_path / "repo" / "other"
    alone.mkdir()

    assert find_project(project / "evals" / "deep") == project
    assert find_project(project / "evals" / "deep" / "eval_x.py") == project
    assert find_project(alone) == alone  # stops at the repository's root
