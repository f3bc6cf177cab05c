"""Report files written by ``goldgate evaluate``: where, with which modes, never the same
file twice, their first field, their schema, what they record, and reading them back."""

from __future__ import annotations

import dataclasses
import json
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pydantic
import pytest

import goldgate
from goldgate.base.errors import InvalidInputError
from goldgate.report.io import read_report
from goldgate.report.models import Report, validated
from goldgate.report.plain import record_json
from helpers.reports import coherent

from .support import (
    STATUS_OK,
    CliRun,
    Project,
    attempt_of,
    case,
    expect,
    new_project,
    run_cli,
    suite_of,
)


@dataclass(frozen=True)
class RichRun:
    project: Project
    result: CliRun
    path: Path
    report: dict[str, Any]
    """The report as tests read it: the file's JSON plus each suite's flat ``attempts``."""

    @property
    def raw(self) -> dict[str, Any]:
        """The report file's JSON exactly as written."""
        value: dict[str, Any] = json.loads(self.path.read_text("utf-8"))
        return value


@pytest.fixture(scope="module")
def rich(tmp_path_factory: pytest.TempPathFactory) -> RichRun:
    """One run over a python suite (with a metric and a failed check) and a command suite."""
    project = new_project(tmp_path_factory.mktemp("reports") / "project")
    metric = {
        "name": "queue",
        "path": "/payload/category",
        "kind": "classification",
        "labels": ["billing", "refund"],
    }
    wrong = expect("category", "/payload/category", "refund")
    project.suite("python", "py", [case("a"), case("b", "ok", STATUS_OK, wrong)], metrics=[metric])
    project.suite("command", "cmd", [case("c", echo="hello")]).write()
    result, report = project.evaluate("--max-concurrency", "2", "--timeout", "30")
    assert result.code == 1, result.stderr
    assert report is not None
    return RichRun(project, result, project.output(), report)


@pytest.mark.slow
def test_report_path_is_printed_and_holds_the_report(rich: RichRun) -> None:
    # The summary shows the path as given, relative to the working folder.
    assert rich.result.report_path() == Path("out/report.json")
    assert rich.project.root / "out" / "report.json" == rich.path
    assert stat.S_IMODE(rich.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(rich.path.parent.stat().st_mode) == 0o700
    assert sorted(p.name for p in rich.path.parent.iterdir()) == ["report.json"]


@pytest.mark.slow
def test_format_is_the_first_field(rich: RichRun) -> None:
    text = rich.path.read_text("utf-8")
    pairs = json.loads(text, object_pairs_hook=lambda items: items)
    assert pairs[0] == ("format", "goldgate.report/2")
    assert text.startswith('{"format":"goldgate.report/2",')
    assert text.count("\n") == 1  # compact: one line


def test_report_validates_against_the_published_schema(rich: RichRun) -> None:
    printed = run_cli("schema", "report", cwd=rich.project.root)
    assert printed.code == 0
    schema = json.loads(printed.stdout)
    assert schema["title"] == "goldgate report"
    assert schema["properties"]["format"]["const"] == "goldgate.report/2"
    import jsonschema  # type: ignore[import-untyped]

    jsonschema.validate(rich.raw, schema)


def test_report_records_dataset_configuration_and_options(rich: RichRun) -> None:
    root = rich.project.root
    config = str(rich.project.settings_path)
    gold = json.loads(
        run_cli("evaluate", "--check", "--format", "json", "--config", config, cwd=root).stdout
    )
    settings = json.loads(
        run_cli("validate", "--format", "json", "--config", config, cwd=root).stdout
    )
    report = rich.report
    assert report["goldgate_version"] == goldgate.__version__
    assert report["complete"] is True
    assert report["duration_seconds"] >= 0
    assert report["started_at"] <= report["finished_at"]
    assert report["dataset"]["name"] == "fixture_gold"
    assert report["dataset"]["revision"] == "gold-r1"
    assert report["dataset"]["fingerprint"] == gold["fingerprint"]
    assert report["dataset"]["fingerprint"].startswith("sha256:")
    assert report["dataset"]["path"] == "evaluation/dataset.json"
    assert report["variant"] == {
        "name": "settings",
        "revision": settings["configuration_digest"],
        "configuration_revision": settings["configuration_digest"],
    }
    assert report["options"] == {
        "max_concurrency": 2,
        "timeout": 30.0,
        "repeat": 1,
        "suites": [],
        "live": False,
        "include_details": True,
        "shard": None,
    }
    assert report["scorers"] == []
    fingerprints = {s["name"]: s["fingerprint"] for s in gold["suites"]}
    assert {s["name"]: s["fingerprint"] for s in report["suites"]} == fingerprints


@pytest.mark.slow
def test_report_records_suites_attempts_and_checks(rich: RichRun) -> None:
    report = rich.report
    python = suite_of(report, "python")
    assert python["counts"] == {
        "attempts": {"completed": 2, "failed": 0, "timed_out": 0, "skipped": 0, "cancelled": 0},
        "checks": {"passed": 3, "failed": 1, "error": 0, "not_run": 0},
    }
    assert (python["case_count"], python["attempt_count"]) == (2, 2)
    assert python["summary"]["pass_rate"] == pytest.approx(0.75)
    assert python["verdict"] == "failed"
    assert python["target"] == {
        "kind": "python",
        "workflow_revision": "py-1",
        "live": False,
        "identity": {"kind": "python", "python": "fixture_app:handle"},
    }
    [queue] = python["metrics"]
    assert queue["kind"] == "classification"
    assert (queue["support"], queue["correct"], queue["accuracy"]) == (2, 1, 0.5)

    b = attempt_of(report, "python", "b")
    assert b["latency_ms"] > 0
    assert b["input"] == {"payload": {"mode": "ok", "tag": "b"}, "metadata": {}}
    assert b["result"]["payload"]["category"] == "billing"
    assert b["checks"][0] == {
        "name": "status",
        "path": "/execution/status",
        "comparison": "exact",
        "scorer": None,
        "outcome": "passed",
        "reason": None,
        "actual_present": True,
        "actual": "completed",
        "expected": "completed",
        "assertions_declared": None,
        "assertions_held": None,
        "adjudication": False,
        "json_parsed": None,
        "required_keys_found": None,
        "required_keys_declared": None,
        "adjudicated": False,
        "judge": None,
    }
    category = b["checks"][1]
    assert (category["outcome"], category["actual"], category["expected"]) == (
        "failed",
        "billing",
        "refund",
    )
    assert category["reason"]

    command = suite_of(report, "command")
    assert command["target"]["kind"] == "command"
    assert command["target"]["identity"]["command"][-1].endswith("cmd_app.py")
    c = attempt_of(report, "command", "c")
    assert c["status"] == "completed"
    assert c["latency_ms"] > 0
    assert c["stderr"] == "cmd: working\n"
    assert c["result"]["payload"]["echo"] == "hello"
    assert command["verdict"] == "passed"
    assert report["verdict"] == {
        "passed": False,
        "exit_code": 1,
        "meaning": "gold disagreement",
        "suites": {"failed": 1, "passed": 1},
        "evaluated": True,
        "adjudication": 0,
    }


@pytest.mark.slow
def test_read_report_round_trips_into_a_frozen_report(rich: RichRun) -> None:
    report = read_report(rich.path)
    assert type(report) is Report
    assert report == validated(Report, rich.raw)
    assert record_json(report) == record_json(validated(Report, rich.raw))
    with pytest.raises(dataclasses.FrozenInstanceError):
        report.complete = False  # type: ignore[misc]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            {"format": "goldgate.report/3", "anything": "new"},
            "report format 'goldgate.report/3' is newer than this goldgate reads "
            "(goldgate.report/2); upgrade goldgate.",
        ),
        ({"suites": []}, "not a goldgate report (no 'format' field)."),
        ([1, 2], "not a goldgate report (no 'format' field)."),
        ({"format": "junit/1"}, "unknown report format 'junit/1'."),
        ({"format": "goldgate.report/2"}, "not a valid report at /goldgate_version"),
    ],
)
def test_read_report_refuses_what_it_cannot_read(
    tmp_path: Path, content: Any, message: str
) -> None:
    path = tmp_path / "report.json"
    path.write_text(json.dumps(content), "utf-8")
    with pytest.raises(InvalidInputError) as refused:
        read_report(path)
    assert str(refused.value).startswith(f"{path}: {message}")


@pytest.mark.slow
def test_a_cut_report_with_a_repeated_key_is_refused_where_it_is_cut(
    tmp_path: Path, rich: Any
) -> None:
    """The fast parser takes a repeated key; the strict one, which words the problem, refuses
    it first. The refusal names where the text stops being JSON, never the key (a result's
    key may be private)."""
    text = rich.path.read_text("utf-8").replace("{", '{"secret-key": 1, "secret-key": 2, ', 1)
    path = tmp_path / "cut.json"
    path.write_text(text[:500], "utf-8")
    with pytest.raises(InvalidInputError) as refused:
        read_report(path)
    message = str(refused.value)
    assert "secret-key" not in message
    match = re.fullmatch(rf"{re.escape(str(path))}:1:(\d+): not a JSON report \(.+\)\.", message)
    assert match is not None, message
    assert int(match.group(1)) > 40  # past the repeated key


def test_where_a_report_is_invalid_is_an_rfc_6901_pointer() -> None:
    from goldgate.report.io import validation_problem

    class Keyed(pydantic.BaseModel):
        figures: dict[str, int]

    with pytest.raises(pydantic.ValidationError) as invalid:
        Keyed.model_validate({"figures": {"a/b~c": "many"}})
    problem = validation_problem("r.json", invalid.value)
    assert str(problem).startswith("r.json: not a valid report at /figures/a~1b~0c: ")


@pytest.mark.slow
def test_default_location_is_private_and_never_reused(project: Project) -> None:
    project.suite("main", "py", [case("a")]).write()
    first = project.run()
    second = project.run()
    assert (first.code, second.code) == (0, 0), first.stderr + second.stderr
    folder = project.root / ".goldgate" / "evaluations"
    paths = [first.report_path(), second.report_path()]
    assert all(path is not None for path in paths)
    resolved = [project.root / path for path in paths if path is not None]
    assert resolved[0] != resolved[1]
    assert sorted(p.name for p in folder.iterdir()) == sorted(p.name for p in resolved)
    for path in resolved:
        assert path.parent == folder
        assert path.name.endswith("-fixture_gold-" + path.name.rsplit("-", 1)[1])
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert json.loads(path.read_text("utf-8"))["format"] == "goldgate.report/2"
    # Every folder goldgate made is private, not only the last one.
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(folder.parent.stat().st_mode) == 0o700


@pytest.mark.slow
def test_integers_beyond_64_bits_read_back_as_written(rich: RichRun, tmp_path: Path) -> None:
    """The writer falls back to ``json`` for integers orjson refuses; the reader must not
    turn them into floats (orjson reads an integer beyond 64 bits as one)."""
    raw = json.loads(rich.path.read_text("utf-8"))
    big = 2**64 + 1
    attempt = raw["suites"][0]["cases"][0]["attempts"][0]
    attempt["result"] = {"payload": {"count": big, "negative": -big}}
    path = tmp_path / "big.json"
    path.write_text(json.dumps(coherent(raw)), "utf-8")  # its checks scored on the new result

    report = read_report(path)
    result = report.suites[0].cases[0].attempts[0].result
    assert result == {"payload": {"count": big, "negative": -big}}
    assert type(result["payload"]["count"]) is int  # type: ignore[index]


def _refusal(path: Path, data: bytes) -> str:
    """Why reading ``data`` as the report at ``path`` is refused."""
    path.write_bytes(data)
    with pytest.raises(InvalidInputError) as refused:
        read_report(path)
    return str(refused.value)


def test_a_report_that_is_not_utf8_is_refused_plainly(tmp_path: Path) -> None:
    path = tmp_path / "report.json"
    data = b'{"format": "goldgate.report/2", "n": 12345678901234567890, "x": "\xff"}'
    column = data.index(b"\xff") + 1
    assert _refusal(path, data) == (
        f"{path}:1:{column}: not a JSON report (invalid UTF-8 (byte 0xff))."
    )


@pytest.mark.parametrize("where", ["figure", "result"])
def test_an_integer_past_the_digit_limit_is_refused_in_one_sentence(
    tmp_path: Path, where: str
) -> None:
    """Python will not read an integer of more than 4300 digits (a ValueError of its own,
    not a JSON error): the report is refused at its place, never with a traceback."""
    path = tmp_path / "report.json"
    number = "9" * 4301
    value = number if where == "figure" else f'{{"payload": {{"n": {number}}}}}'
    data = f'{{"format": "goldgate.report/2", "x": {value}}}'.encode()
    column = data.index(b"9999") + 1
    assert _refusal(path, data) == (
        f"{path}:1:{column}: not a JSON report (integer has more than 4300 digits)."
    )


@pytest.mark.slow
@pytest.mark.parametrize("long_number", [False, True], ids=["orjson", "json"])
def test_a_cut_report_is_refused_at_its_line_and_column(
    tmp_path: Path, rich: Any, long_number: bool
) -> None:
    """Whichever parser read it first (orjson, or ``json`` for a run of 19 digits), a report
    that is not JSON is refused in one sentence naming the line and column where it stops
    being JSON."""
    text = rich.path.read_text("utf-8")
    assert text.count("\n") == 1  # compact: one line
    if long_number:
        text = text.replace("{", '{"n": 12345678901234567890, ', 1)
    path = tmp_path / "cut.json"
    path.write_text(text[:500], "utf-8")
    with pytest.raises(InvalidInputError) as refused:
        read_report(path)
    match = re.fullmatch(
        rf"{re.escape(str(path))}:1:(\d+): not a JSON report \(.+\)\.", str(refused.value)
    )
    assert match is not None, str(refused.value)
    assert 1 < int(match.group(1)) <= 501


def _same_values_and_types(ours: Any, theirs: Any) -> None:
    assert type(ours) is type(theirs), (ours, theirs)
    assert ours == theirs
    if isinstance(ours, dict):
        for key in ours:
            _same_values_and_types(ours[key], theirs[key])
    elif isinstance(ours, list | tuple):
        for mine, its in zip(ours, theirs, strict=True):
            _same_values_and_types(mine, its)


def test_read_report_json_s_attempt_views_are_what_asdict_makes_of_them() -> None:
    """``read_report_json`` copies each attempt view with a quicker ``asdict``
    (``support._asdict``): the same dicts, lists, tuples, strings, numbers and enums."""
    from render.builders import attempt, case, expectation, report, suite

    from . import support

    result = {"payload": {"x": [1, 2.5, None, True, {"y": "z"}], "s": "t"}}
    built = report(
        [
            suite(
                "s",
                [
                    case(
                        "a",
                        [
                            attempt(1, outcomes=("passed", "failed"), result=result),
                            attempt(2, "failed"),
                        ],
                        [expectation("status"), expectation("category")],
                    ),
                    case("b", [attempt(1, "skipped"), attempt(2, "timed_out")], [expectation("q")]),
                ],
                repeat=2,
            )
        ]
    )
    views = list(built.suites[0].iter_attempts())
    assert len(views) == 4
    for view in views:
        _same_values_and_types(support._asdict(view), dataclasses.asdict(view))
