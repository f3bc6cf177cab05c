"""One constructed pair of reports, through the real CLI, whose one classification has a
unit of every kind: a small project whose python target answers from ``behaviour.json`` (per
case, a list of answers taken in call order, so repeats can vary), run as a baseline, a
person's verdict recorded in ``evaluation/verdicts.jsonl``, then run again with the
application changed.

With ``--repeat 3`` (cases are the units):

- ``steady``: billing every time on both sides: unchanged;
- ``drops``: billing 3/3, then 0/3: regressed (all-to-none);
- ``noisy``: 2/3 then 1/3: flaky, never a regression;
- ``fixed``: 0/3 then 3/3: improved;
- ``swap``: its category drops all-to-none while its label rises: mixed;
- ``judged``: the same prose answer, waiting for a verdict in the baseline and decided by
  the verdict recorded between the runs: gold changed.
"""

from __future__ import annotations

import json
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from goldgate.scoring.adjudication import gold_digest, output_digest
from run.support import run_cli

APP = """
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent
_CALLS = {}


async def handle(request):
    payload = request["envelope"]["payload"]
    case = payload["case"]
    behaviour = json.loads((ROOT / "behaviour.json").read_text("utf-8"))[case]
    call = _CALLS[case] = _CALLS.get(case, -1) + 1
    return {
        "execution": {"status": "completed"},
        "payload": {
            key: values[call % len(values)] if isinstance(values, list) else values
            for key, values in behaviour.items()
        },
    }
"""
REPLY = "Thank you for writing; we have refunded the order."
BASELINE = {
    "steady": {"category": ["billing"]},
    "drops": {"category": ["billing"]},
    "noisy": {"category": ["billing", "other", "billing"]},
    "fixed": {"category": ["other"]},
    "swap": {"category": ["billing"], "label": ["no"]},
    "judged": {"reply": REPLY},
}
CANDIDATE = {
    **BASELINE,
    "drops": {"category": ["other"]},
    "noisy": {"category": ["other", "billing", "other"]},
    "fixed": {"category": ["billing"]},
    "swap": {"category": ["other"], "label": ["yes"]},
}
BILLING = {"name": "category", "path": "/payload/category", "expected": "billing"}
LABEL = {"name": "label", "path": "/payload/label", "expected": "yes"}
TONE = {"name": "tone", "path": "/payload/reply", "expected": "a warm reply", "comparison": "text"}
EXPECTATIONS: dict[str, list[dict[str, Any]]] = {
    "steady": [BILLING],
    "drops": [BILLING],
    "noisy": [BILLING],
    "fixed": [BILLING],
    "swap": [BILLING, LABEL],
    "judged": [TONE],
}
EXPECTED_CLASSES = {
    "regressed": 1,
    "mixed": 1,
    "improved": 1,
    "flaky": 1,
    "gold_changed": 1,
    "input_changed": 0,
    "unchanged": 1,
    "not_compared": 0,
}
COUNTS_TEXT = (
    "1 regressed, 1 mixed, 1 improved, 1 flaky, 1 gold changed, 0 input changed, 1 unchanged"
)


@dataclass(frozen=True)
class Pair:
    root: Path
    baseline: Path
    candidate: Path


def project(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "app.py").write_text(textwrap.dedent(APP), "utf-8")
    (root / "config").mkdir()
    settings = {"workflows": {"app": {"revision": "1", "target": {"python": "app:handle"}}}}
    (root / "config" / "settings.yaml").write_text(yaml.safe_dump(settings), "utf-8")
    cases = [
        {"id": case_id, "input": {"payload": {"case": case_id}, "metadata": {}},
         "expectations": expectations}
        for case_id, expectations in EXPECTATIONS.items()
    ]  # fmt: skip
    manifest = {
        "name": "pair",
        "revision": "r1",
        "suites": [{"name": "main", "workflow": "app", "cases": cases}],
    }
    (root / "evaluation").mkdir()
    (root / "evaluation" / "dataset.json").write_text(json.dumps(manifest, indent=2), "utf-8")
    return root


def evaluate(root: Path, behaviour: dict[str, Any], output: Path, *args: str) -> Path:
    (root / "behaviour.json").write_text(json.dumps(behaviour), "utf-8")
    result = run_cli("evaluate", "--output", str(output), *args, cwd=root, timeout=120)
    assert result.code in (0, 1), result.output
    return output


def record_verdict(root: Path, verdict: str, answer: str = REPLY) -> None:
    """A person's verdict on ``answer`` of ``judged``'s tone check, as the store keeps it."""
    line = {
        "suite": "main",
        "case": "judged",
        "check": "tone",
        "digest": output_digest(answer),
        "gold": gold_digest(TONE["expected"]),
        "verdict": verdict,
    }
    (root / "evaluation" / "verdicts.jsonl").write_text(json.dumps(line) + "\n", "utf-8")


def build_pair(folder: Path, *args: str) -> Pair:
    """The baseline, the verdict ``pass`` recorded, then the candidate (``args``: options
    of both runs, e.g. ``--repeat 3``)."""
    root = project(folder / "project")
    baseline = evaluate(root, BASELINE, folder / "baseline.json", *args)
    record_verdict(root, "pass")
    candidate = evaluate(root, CANDIDATE, folder / "candidate.json", *args)
    return Pair(root, baseline, candidate)
