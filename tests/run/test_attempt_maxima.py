"""Per-attempt maxima (``maximum`` at ``/attempt/latency_ms`` and ``/attempt/cost``): each
attempt is held to its own bound by the run, by a report's reader (which scores the check
again) and by a replay (which copies the latency and cost it scores)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.run.support import Project, expect, new_project, read_report_json

pytestmark = pytest.mark.slow

FAST = expect("fast", "/attempt/latency_ms", 600_000, "maximum")
INSTANT = expect("instant", "/attempt/latency_ms", 0, "maximum")
CHEAP = expect("cheap", "/attempt/cost", 1, "maximum")


def _outcomes(report: dict[str, Any]) -> list[tuple[str, str]]:
    attempt = report["suites"][0]["attempts"][0]
    return [(check["name"], check["outcome"]) for check in attempt["checks"]]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Project:
    project = new_project(tmp_path_factory.mktemp("maxima") / "project")
    cases = [
        {
            "id": "one",
            "input": {"payload": {"mode": "ok", "tag": "one"}, "metadata": {}},
            "expectations": [FAST, INSTANT, CHEAP],
        }
    ]
    return project.suite("timed", "py", cases).write()


def test_each_attempt_is_held_to_its_own_maxima(project: Project) -> None:
    result, report = project.evaluate()
    assert report is not None, result.output
    assert result.code == 1, result.output
    assert _outcomes(report) == [("fast", "passed"), ("instant", "failed"), ("cheap", "failed")]
    checks = report["suites"][0]["attempts"][0]["checks"]
    assert "over the maximum 0" in checks[1]["reason"]
    assert "pricing" in checks[2]["reason"]

    replayed = project.output("replayed.json")
    again = project.run("--replay", str(project.output()), "--output", str(replayed))
    assert again.code == 1, again.output
    assert _outcomes(read_report_json(replayed)) == _outcomes(report)


def test_the_offline_check_knows_the_attempt_figures(tmp_path: Path) -> None:
    project = new_project(tmp_path / "project")
    wrong = [expect("p", "/attempt/tokens", 1, "maximum"), expect("n", "/payload/x", -1, "maximum")]
    cases = [{"id": "one", "input": {"payload": {}, "metadata": {}}, "expectations": wrong}]
    result = project.suite("timed", "py", cases).write().run("--check")
    assert result.code == 2
    assert "an attempt's figure is /attempt/latency_ms or /attempt/cost" in result.output
    assert "a maximum is a number at least 0" in result.output
