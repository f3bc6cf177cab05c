"""The bundled example's evals run through the real CLI as its README says."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

EXAMPLE = Path("examples") / "support_triage"


def test_the_example_evals_pass_and_say_what_the_readme_says(
    run_cli: Any, repo_root: Path, tmp_path: Path
) -> None:
    output = tmp_path / "evals.json"

    result = run_cli("evals", "run", str(EXAMPLE / "evals"), "--output", str(output), cwd=repo_root)

    assert result.code == 0, result.output
    readme = (repo_root / EXAMPLE / "README.md").read_text(encoding="utf-8")
    shown = re.search(r"evals run examples/support_triage/evals\n```\n\n```text\n(.*?)```", readme,
                      flags=re.DOTALL)  # fmt: skip
    assert shown is not None
    for line in shown.group(1).splitlines()[1:-2]:  # the header has timings, the last a path
        assert line in result.stdout
    report = json.loads(output.read_text(encoding="utf-8"))
    suites = {suite["name"]: suite for suite in report["suites"]}
    assert list(suites) == ["reply_drafts", "reply_quality", "routing"]
    assert all(suite["target"]["kind"] == "eval" for suite in suites.values())
    drafts = suites["reply_drafts"]
    assert [e["name"] for e in drafts["cases"][0]["expectations"]] == ["pass", "expect", "one_line"]
    assert drafts["summary"]["expect.satisfied"] == 1.0
    assert [q["case"] for q in drafts["adjudication_queue"]] == ["drafts_a_reply[tone_de]"]
    quality = suites["reply_quality"]
    assert quality["thresholds"][0]["key"] == "brevity.mean"
    assert quality["thresholds"][0]["held"] is True
    assert suites["routing"]["summary"]["account.count"] == 4
    assert suites["routing"]["target"]["identity"]["evals"] == {
        "routes_a_cancellation": "evals/eval_routing.py",
        "routes_each_case": "evals/eval_routing.py",
    }
