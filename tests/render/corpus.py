"""The reports every renderer is tested over: real runs of the CLI on small projects (and the
bundled example), and reports built as models where a run cannot produce them (an
interrupted run, 5,000 failing cases, control characters in names and reasons).

Runs are normalized (timings, version, latencies) so that golden files stay stable."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from goldgate.report.io import read_report
from goldgate.report.models import Report, ThresholdRecord
from run.support import EXAMPLE, STATUS_OK, case, expect, new_project, run_cli

from .builders import attempt, expectation, normalized, report, suite
from .builders import case as built_case

HOSTILE = (
    "a|b `c` <script>alert(1)</script> @team #12 ::error::x [l](http://e.com) *b* _i_ ~s~ "
    "GH-12 octo/repo#3 0123456789abcdef0123456789abcdef01234567 ##[error]x "
    "@\u200bhidden z\u200ew\u200fi\u2066d\u2069t\ufeffh"
)
"""Everything Markdown, HTML, GitHub and the workflow-command parser read specially, on one
line (gold refuses control characters in names)."""
CONTROL = "x\n::error::injected\r\n::warning file=a::y\x1b[31mred\x07\x00\u202eevil\u2028z"
"""What only a hand-made report can hold: newlines, escapes, NUL, a bidi override."""


def _run(root: Path, *args: str, cwd: Path | None = None) -> Report:
    output = root / "out" / "report.json"
    result = run_cli(*args, "--output", str(output), cwd=cwd or root)
    assert output.exists(), result.output
    return normalized(read_report(output))


def example(tmp: Path) -> Report:
    """The bundled example, run from the repository root as CI would."""
    repo = EXAMPLE.parent.parent
    config = (EXAMPLE / "config" / "settings.yaml").relative_to(repo)
    return _run(tmp, "evaluate", "--config", str(config), cwd=repo)


def repeats(tmp: Path) -> Report:
    """Three attempts per case: passes, gold disagreement, a runtime failure, a check error,
    a classification and a multilabel metric, a missed threshold, a held-out case."""
    project = new_project(tmp / "project")
    wrong = expect("category", "/payload/category", "refund")
    labels = expect("labels", "/payload/echo", ["x", "y"], "set")
    boom = expect("custom", "/payload/category", "billing", "custom", "boom")
    classification = {
        "name": "queue",
        "path": "/payload/category",
        "kind": "classification",
        "labels": ["billing", "refund"],
    }
    multilabel = {
        "name": "tags",
        "path": "/payload/echo",
        "kind": "multilabel",
        "labels": ["x", "y", "z"],
    }
    project.suite(
        "python",
        "py",
        [
            case("ok"),
            case("wrong", "ok", STATUS_OK, wrong),
            case("raises", "raise"),
            case("scorer", "ok", STATUS_OK, boom),
        ],
        metrics=[classification],
        thresholds={"pass_rate": 0.9, "queue.accuracy": 0.5},
    )
    held_out = case("secret", "ok", STATUS_OK, labels, echo=["x"])
    held_out["split"] = "holdout"
    project.suite(
        "labels",
        "py",
        [case("tagged", "ok", STATUS_OK, labels, echo=["y", "x"]), held_out],
        metrics=[multilabel],
    )
    project.write()
    return _run(project.root, "evaluate", "--config", str(project.settings_path), "--repeat", "3")


def skipped(tmp: Path) -> Report:
    """Every suite is live and the run is not authorized: nothing was evaluated."""
    project = new_project(tmp / "project")
    project.suite("live_one", "live", [case("a"), case("b")])
    project.suite("live_two", "live", [case("c")]).write()
    return _run(project.root, "evaluate", "--config", str(project.settings_path))


def hostile_run(tmp: Path) -> Report:
    """Names and ids full of what Markdown, HTML and GitHub read specially, through a run."""
    project = new_project(tmp / "project")
    project.name = "gold " + HOSTILE
    wrong = expect("check " + HOSTILE, "/payload/category", "refund")
    project.suite(
        "suite " + HOSTILE,
        "py",
        [case("case " + HOSTILE, "ok", STATUS_OK, wrong), case("plain")],
    ).write()
    return _run(project.root, "evaluate", "--config", str(project.settings_path))


def interrupted(tmp: Path) -> Report:
    """SIGINT arrived during the first suite: two attempts finished, the rest were cancelled,
    and the second suite never started."""
    first = suite(
        "first",
        [
            built_case("a", [attempt(1), attempt(2, outcomes=("failed",))], line=2),
            built_case("b", [attempt(1, "cancelled"), attempt(2, "cancelled")], line=9),
        ],
        repeat=2,
    )
    second = suite(
        "second",
        [built_case("c", [attempt(1, "cancelled"), attempt(2, "cancelled")], line=2)],
        repeat=2,
        status="not_started",
    )
    return report([first, second], complete=False, interruption="SIGINT")


def many(tmp: Path) -> Report:
    """5,000 failing cases: more than any comment or summary can hold."""
    failing = [
        built_case(
            f"case-{index:05d}",
            [
                attempt(
                    1,
                    outcomes=("passed", "failed"),
                    reasons=[None, "expected 'billing', found another string of 7 characters"],
                )
            ],
            [expectation("status"), expectation("category")],
            line=2 + index * 12,
        )
        for index in range(5_000)
    ]
    threshold = ThresholdRecord(key="pass_rate", minimum=0.9, actual=0.5, held=False)
    return report([suite("bulk", failing, thresholds=[threshold])], name="bulk_gold")


def hostile(tmp: Path) -> Report:
    """Control characters, newlines and workflow commands in every name and reason."""
    nasty = HOSTILE + " " + CONTROL
    rows = [
        built_case(
            "case " + nasty,
            [
                attempt(
                    1,
                    outcomes=("failed",),
                    reasons=["reason " + nasty],
                    result={"payload": {"category": nasty}},
                )
            ],
            [expectation("check " + nasty, expected="<b>" + nasty)],
            line=3,
        ),
        built_case("runtime " + nasty, [attempt(1, "failed", reason="raised " + nasty)], line=9),
        built_case(
            "secret",
            [attempt(1, outcomes=("failed",), result={"payload": {"category": "x"}})],
            [expectation("category", expected="the held-out answer")],
            line=15,
            split="holdout",
        ),
    ]
    live = suite(
        "live " + nasty,
        [built_case("d " + nasty, [attempt(1, "skipped", reason="skipped " + nasty)])],
        status="skipped",
        skip_reason="live workflow " + nasty,
        cases_source="/abs/path/" + nasty,
    )
    return report(
        [suite("suite " + nasty, rows, cases_source="gold " + nasty + ".json"), live],
        name="gold " + nasty,
        revision="rev " + nasty,
    )


REPORTS: dict[str, Callable[[Path], Report]] = {
    "example": example,
    "repeats": repeats,
    "skipped": skipped,
    "hostile_run": hostile_run,
    "interrupted": interrupted,
    "many": many,
    "hostile": hostile,
}
"""Every report the renderers are tested over, by name."""

DATA_STRINGS = (HOSTILE, CONTROL)


def build_all(tmp: Path) -> dict[str, Report]:
    built: dict[str, Any] = {}
    for name, build in REPORTS.items():
        folder = tmp / name
        folder.mkdir()
        built[name] = build(folder)
    return built
