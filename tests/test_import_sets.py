"""What importing a part of goldgate loads, so that a command's start-up cannot silently grow
again: each case imports modules in a fresh interpreter and lists which of the named heavy
modules came along. Module sets, never times (those belong to benchmarks/run.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from goldgate.app.action.isolation import TOKENS_FD
from goldgate.base.textsafe import TOKEN_VARIABLES
from goldgate.report.io import read_report

pytestmark = pytest.mark.slow  # every test here starts processes (tests/helpers/slow.py)

SETTINGS_AND_GOLD_LOADING = (
    "yaml",
    "goldgate.gold.settings",
    "goldgate.gold.settings.load",
    "goldgate.gold.settings.models",
    "goldgate.gold.load",
    "goldgate.run.api",
)
OTHER_TARGET_KINDS = (
    "http.client",
    "httpx",
    "goldgate.run.targets.http_target",
    "goldgate.run.targets.model_target",
    "goldgate.run.targets.command_target",
    "goldgate.run.targets.factory",
)
LIVE_LAYER = (
    "goldgate.run.live.target",
    "goldgate.run.live.ratelimit",
    "goldgate.run.live.cache",
    "goldgate.run.live.retry",
)
"""What a workflow's retry, rate limit, pricing and cache need: a model-free run pays nothing."""
RENDERING = ("rich", "jinja2", "github")


def _loaded(imports: str, names: tuple[str, ...], cwd: Path | None = None) -> list[str]:
    """Which of ``names`` running ``imports`` in a fresh interpreter loaded (the last line
    of its output: what ran may print before it)."""
    code = (
        f"import sys\n{imports}\n"
        f"print(__import__('json').dumps([n for n in {names!r} if n in sys.modules]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], check=False, capture_output=True, text=True, cwd=cwd
    )
    assert done.returncode == 0, done.stderr
    loaded: list[str] = json.loads(done.stdout.splitlines()[-1])
    return loaded


def test_the_eval_decorator_loads_no_engine() -> None:
    # An eval file's first line: it must not pay for models, the event loop or the settings.
    heavy = ("pydantic", "anyio", "asyncio", *SETTINGS_AND_GOLD_LOADING, *RENDERING)
    assert _loaded("import goldgate.evals", heavy) == []


def test_the_evals_engine_loads_neither_settings_nor_other_targets() -> None:
    # `goldgate evals run` needs neither settings.yaml nor the gold loader nor the http and
    # command targets; the packages it imports from name them lazily.
    names = (*SETTINGS_AND_GOLD_LOADING, *OTHER_TARGET_KINDS, *LIVE_LAYER, *RENDERING)
    imports = "import goldgate.evals.session, goldgate.app.evals, goldgate.report.summary"
    assert _loaded(imports, names) == []


@pytest.mark.parametrize(
    ("module", "absent"),
    [
        ("goldgate.gold.shapes", ("pydantic", "goldgate.gold.models", "goldgate.gold.settings")),
        ("goldgate.scoring.outcomes", ("pydantic", "goldgate.scoring.metrics", "goldgate.gold")),
        ("goldgate.run.targets.base", ("anyio", *OTHER_TARGET_KINDS, "goldgate.gold.settings")),
        ("goldgate.gold.settings.models", ("yaml", "goldgate.gold.settings.load")),
        ("goldgate.report.build", ("pydantic", "goldgate.gold.settings", "goldgate.gold.load")),
        ("goldgate.run.streaming", ("pydantic", "goldgate.report.models", "goldgate.gold.models")),
    ],
)
def test_importing_one_module_of_a_package_loads_not_its_siblings(
    module: str, absent: tuple[str, ...]
) -> None:
    assert _loaded(f"import {module}", absent) == []


def test_the_action_reads_its_inputs_without_the_runner() -> None:
    # The action's own process never runs an attempt (a child does): checking --repeat and
    # --timeout against their bounds must not load the runner, the event loop or scoring.
    imports = "from goldgate.app.action.inputs import read_inputs; read_inputs({})"
    names = ("asyncio", "anyio", "goldgate.run.runner", "goldgate.scoring")
    assert _loaded(imports, names) == []


def test_the_action_starts_again_without_its_tokens_before_it_imports_its_modules() -> None:
    # With a token in its environment, `goldgate action` starts again (exec) without it: what
    # the first program imported before that is paid twice.
    imports = "from goldgate.app.action.isolation import hold_tokens_apart"
    names = ("pydantic", "goldgate.app.action.modes", "goldgate.app.action.inputs", "github")
    assert _loaded(imports, names) == []


@pytest.mark.parametrize("token", ["held", "none"])
def test_python_m_goldgate_action_starts_again_before_the_command_line_is_imported(
    tmp_path: Path, token: str
) -> None:
    # action.yml starts `python -m goldgate action` reading no bytecode: what the program
    # that a token makes start again imported first is compiled twice. `-X importtime` is
    # not passed on to the new program, so the lines on stderr are the first program's.
    env = {key: value for key, value in os.environ.items() if key not in TOKEN_VARIABLES}
    env.pop(TOKENS_FD, None)
    if token == "held":
        env["GITHUB_TOKEN"] = "ghs_not_a_real_token"
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "goldgate", "action", "--run-only"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    imported = {
        line.split("|")[-1].strip()
        for line in done.stderr.splitlines()
        if line.startswith("import time:")
    }
    assert "goldgate.app.action.isolation" in imported, done.stderr[-2000:]
    assert ("typer" in imported) is (token == "none"), sorted(imported)


def test_the_command_line_loads_no_event_loop_before_a_command_runs() -> None:
    # `goldgate --version` and `--help` start with typer alone.
    assert _loaded("import goldgate.cli", ("asyncio", "concurrent.futures")) == []


def test_a_whole_evals_run_loads_neither_pydantic_nor_parameter_adapters_nor_metadata(
    tmp_path: Path,
) -> None:
    # pydantic and the report's and gold's models cost a third of a small run's start-up
    # (report.records); typer 0.29 built a pydantic TypeAdapter per option, and with them
    # pydantic's plugin loader read every installed package's entry points.
    (tmp_path / "cases.jsonl").write_text(
        '{"id": "a", "input": "hi", "expect": {"maxLines": 1, "maxChars": 10}}\n'
        '{"id": "b", "input": "yo", "expect": "a friendly greeting"}\n'
    )
    (tmp_path / "eval_one.py").write_text(
        "from goldgate.evals import eval, EvalContext\n\n"
        "def length(result):\n"
        "    return {'key': 'length', 'value': min(len(result.output), 10) / 10}\n\n"
        "@eval(dataset='one', cases='cases.jsonl', evaluators=[length],\n"
        "      thresholds={'length.mean': 0.1})\n"
        "def echo(ctx: EvalContext):\n"
        "    ctx.output = ctx.input\n"
        "    ctx.store(scores={'key': 'polite', 'passed': True})\n"
        "    assert ctx.output in ('hi', 'yo')\n"
    )
    names = (
        "pydantic",
        "pydantic_core",
        "annotated_types",
        "typer._adapters",
        "importlib.metadata",
    )
    for output in ("text", "json"):
        run = (
            "import goldgate.cli\n"
            f"sys.argv = ['goldgate', 'evals', 'run', 'eval_one.py', '--format', '{output}',\n"
            f"            '--output', 'report-{output}.json']\n"
            "try:\n    goldgate.cli.main()\nexcept SystemExit as done:\n    assert done.code == 0\n"
        )
        assert _loaded(run, names, cwd=tmp_path) == [], output
    report = read_report(tmp_path / "report-json.json")
    [suite] = report.suites
    assert [e.name for e in suite.cases[0].expectations] == ["pass", "expect", "polite"]
    assert suite.adjudication == 1
    assert suite.thresholds[0].held


def test_a_whole_evaluate_run_loads_neither_report_models_nor_python_api_nor_other_targets(
    tmp_path: Path,
) -> None:
    # A run streams its report from records (report.records); the pydantic report models and
    # the Python API's module cost 25 ms of its start-up, for one small function.
    (tmp_path / "config").mkdir()
    (tmp_path / "evaluation").mkdir()
    (tmp_path / "echo_target.py").write_text(
        "def handle(request):\n    return {'payload': request['envelope']['payload']}\n"
    )
    (tmp_path / "config" / "settings.yaml").write_text(
        "workflows:\n  app:\n    revision: r1\n    target: {python: 'echo_target:handle'}\n"
    )
    case = {
        "id": "c1",
        "input": {"payload": {"label": "a", "answer": "T-1 routed"}, "metadata": {}},
        "expectations": [
            {"name": "label", "path": "/payload/label", "expected": "a"},
            {"name": "ticket", "path": "/payload/answer", "comparison": "text",
             "expected": {"matches": ["T-1\\b"]}},
        ],
    }  # fmt: skip
    (tmp_path / "evaluation" / "cases.json").write_text(json.dumps([case]))
    manifest = {"name": "d", "revision": "r1",
                "suites": [{"name": "s", "workflow": "app", "cases": "cases.json"}]}  # fmt: skip
    (tmp_path / "evaluation" / "dataset.json").write_text(json.dumps(manifest))
    run = (
        "import goldgate.cli\n"
        "sys.argv = ['goldgate', 'evaluate', '--output', 'report.json']\n"
        "try:\n    goldgate.cli.main()\nexcept SystemExit as done:\n    assert done.code == 0\n"
    )
    # Nor the other kinds of target than the one it runs (the http client, subprocesses).
    other_kinds = tuple(name for name in OTHER_TARGET_KINDS if not name.endswith(".factory"))
    names = ("goldgate.report.models", "goldgate.run.api", *other_kinds, *LIVE_LAYER, *RENDERING)
    assert _loaded(run, names, cwd=tmp_path) == []
    report = read_report(tmp_path / "report.json")
    assert [check.outcome for check in report.suites[0].cases[0].attempts[0].checks] == [
        "passed", "passed",
    ]  # fmt: skip


def test_rendering_a_report_without_a_comparison_loads_no_comparison_module() -> None:
    # `goldgate report show|markdown|annotations` of a report alone: the comparison's package
    # and its adapter (render.compared) build models a comparison needs, about 70 ms.
    report = Path(__file__).parent / "report" / "fixtures" / "report_v1_example.json"
    run = (
        "import goldgate.cli\n"
        "for kind in ('show', 'markdown', 'annotations'):\n"
        f"    sys.argv = ['goldgate', 'report', kind, {str(report)!r}]\n"
        "    try:\n        goldgate.cli.main()\n"
        "    except SystemExit as done:\n        assert done.code == 0, kind\n"
    )
    names = ("goldgate.comparison", "goldgate.comparison.models", "goldgate.render.compared")
    assert _loaded(run, names) == []


def test_lazy_package_names_are_the_modules_objects() -> None:
    code = (
        "import goldgate.gold as d, goldgate.scoring as s, goldgate.gold.settings as c\n"
        "import goldgate.run.targets as t\n"
        "from goldgate.gold.models import Case\n"
        "from goldgate.scoring.scorers import ScorerRegistry\n"
        "from goldgate.gold.settings.load import load_settings\n"
        "from goldgate.run.targets.factory import build_target\n"
        "print(d.Case is Case, s.ScorerRegistry is ScorerRegistry, c.load_settings is "
        "load_settings, t.build_target is build_target)\n"
        "try:\n    d.nope\nexcept AttributeError as error:\n    print(error)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == [
        "True True True True",
        "module 'goldgate.gold' has no attribute 'nope'",
    ]
