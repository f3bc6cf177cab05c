"""action.yml's steps run as a runner runs them, without act: each step's ``run:`` script by
``bash --noprofile --norc -eo pipefail``, as a real process in the workspace, its ``env:``
expressions filled in from the inputs and the earlier steps' outputs (its ``shell``: a
custom one as given, ``bash`` as the runner's ``bash --noprofile --norc -eo pipefail``), with fresh
``GITHUB_OUTPUT``, ``GITHUB_ENV``, ``GITHUB_PATH``, ``GITHUB_STATE`` and
``GITHUB_STEP_SUMMARY`` files per step, and what a step left in ``GITHUB_ENV`` and
``GITHUB_PATH`` applied to the later steps' environment, as the runner applies them; after
a step that failed, only those whose ``if`` says ``always()`` run. The install step (id
``install`` here) runs too, and installs nothing: the job's Python has goldgate already
(``job_python``). A step's ``if:`` is followed where the runner would skip it: the prepare
step without a check run or a replay to prepare, the publishing step without a hand-off or a
check run."""

from __future__ import annotations

import compileall
import re
import shutil
import subprocess
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from helpers.job_python import job_python as helpers_job_python
from helpers.job_python import runner_base

from .conftest import parse_outputs
from .support import REPO_ROOT

RUNNER_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
PREPARE_IF = "inputs.check_run == 'true' || (inputs.mode == 'replay' && inputs.report == '')"
"""The prepare step's ``if:`` (tests/app/action/test_action_metadata.py holds it to this)."""
_EXPRESSION = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")


def job_python(folder: Path) -> Path:
    """A venv at ``folder`` holding a copy of goldgate (so that a test may change it), its
    bytecode too as an install has it, every module's and current (a changed module's is
    stale by its source's time and size; the seal lists it as it is, and user code that
    writes any costs the publishing step its reading of it), and seeing goldgate's
    dependencies through a ``.pth`` line; its ``python``. Made as the act tests' job Pythons
    are (helpers/job_python.py): from a runner's Python (``runner_base``: a standard library
    of some 1,500 files, not pyenv's 59,000 with its own site-packages) and seeing the run's
    copy of the test venv's files of goldgate's dependencies (``lean_site``), not its 33,000
    files: every seal, publishing step and later install step lists them all (0.8 CPU-s a
    listing instead of about 0.1)."""
    python = helpers_job_python(folder, base=runner_base(), lean=True) / "python"
    purelib = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    shutil.copytree(REPO_ROOT / "src" / "goldgate", purelib / "goldgate")
    compileall.compile_dir(purelib / "goldgate", quiet=1)  # what the copy lacks, only
    return python


def _action() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((REPO_ROOT / "action.yml").read_text("utf-8"))
    return loaded


def listing_functions(step_id: str) -> str:
    """The shell functions ``listing`` and ``digests`` as the step ``step_id`` of action.yml
    defines them (dedented): what the install, seal and publishing steps list and compare."""
    [step] = [step for step in _action()["runs"]["steps"] if step.get("id", "install") == step_id]
    lines = str(step["run"]).splitlines()
    start = next(at for at, line in enumerate(lines) if line.lstrip().startswith("listing() {"))
    indent = lines[start][: len(lines[start]) - len(lines[start].lstrip())]
    end = lines.index(f"{indent}}}", start)
    return textwrap.dedent("\n".join(lines[start : end + 1]))


@dataclass
class Step:
    code: int
    stdout: str
    stderr: str
    outputs: dict[str, str]
    summary: str
    skipped: bool = False


@dataclass
class Composite:
    """One job running goldgate's composite action in ``workspace`` with ``python``."""

    workspace: Path
    files: Path
    python: Path
    job_env: dict[str, str]
    steps: dict[str, Step] = field(default_factory=dict)
    added_env: dict[str, str] = field(default_factory=dict)
    added_path: list[str] = field(default_factory=list)

    inputs: dict[str, str] = field(default_factory=dict)

    def run(self, inputs: Mapping[str, str], until: str = "publish") -> dict[str, Step]:
        """The steps with an id, in order, up to ``until``; what each did, by id."""
        action = _action()
        defaults = action["inputs"].items()
        self.inputs = {key: str(spec.get("default", "")) for key, spec in defaults}
        self.inputs.update(inputs, python=str(self.python))
        self.steps = {}
        for step in action["runs"]["steps"]:
            self.run_step(step.get("id", "install"))
            if step.get("id") == until:
                break
        return self.steps

    def run_step(self, name: str) -> Step:
        """The step ``name`` run now, with the inputs of the last ``run``."""
        [step] = [step for step in _action()["runs"]["steps"] if step.get("id", "install") == name]
        self.steps[name] = self._step(name, step, self.inputs)
        return self.steps[name]

    def _expression(self, text: str, inputs: Mapping[str, str]) -> str:
        def value(match: re.Match[str]) -> str:
            expression = match.group(1)
            if expression.startswith("inputs."):
                return inputs[expression.removeprefix("inputs.")]
            if expression.startswith("steps.") and expression.endswith(".outcome"):
                step = expression.removeprefix("steps.").removesuffix(".outcome")
                ran = self.steps.get(step)
                return "" if ran is None else ("success" if ran.code == 0 else "failure")
            if expression.startswith("steps."):
                step, _, output = expression.removeprefix("steps.").partition(".outputs.")
                return self.steps[step].outputs.get(output, "") if step in self.steps else ""
            if expression == "github.action_path":
                return str(REPO_ROOT)
            raise AssertionError(f"no value for ${{{{ {expression} }}}}")

        return _EXPRESSION.sub(value, text)

    def _step(self, name: str, step: dict[str, object], inputs: Mapping[str, str]) -> Step:
        condition = str(step.get("if", ""))
        if "always()" not in condition and any(ran.code for ran in self.steps.values()):
            return Step(0, "", "", {}, "", skipped=True)  # an earlier step failed
        if condition == PREPARE_IF:  # the runner skips the prepare step without a check run
            replay = inputs["mode"] == "replay" and inputs["report"] == ""
            if not (inputs["check_run"] == "true" or replay):
                return Step(0, "", "", {}, "", skipped=True)
        handoff = self.steps["run"].outputs.get("handoff") if "run" in self.steps else ""
        if "steps.run.outputs.handoff != ''" in condition and not handoff:
            prepared = self.steps.get("prepare")
            created = prepared is not None and prepared.outputs.get("check_run_id")
            if not ("check_run_id != ''" in condition and created):
                return Step(0, "", "", {}, "", skipped=True)
        folder = self.files / f"step-{name}-{len(list(self.files.glob('step-*')))}"
        folder.mkdir(parents=True)
        names = {
            "GITHUB_OUTPUT": "set_output",
            "GITHUB_ENV": "set_env",
            "GITHUB_PATH": "add_path",
            "GITHUB_STATE": "save_state",
            "GITHUB_STEP_SUMMARY": "step_summary",
        }
        env = {**self.job_env, **self.added_env}
        env["PATH"] = ":".join([*reversed(self.added_path), env.get("PATH", RUNNER_PATH)])
        for variable, file in names.items():
            (folder / file).write_text("", "utf-8")
            env[variable] = str(folder / file)
        step_env = step.get("env", {})
        assert isinstance(step_env, dict)
        env.update({key: self._expression(str(value), inputs) for key, value in step_env.items()})
        script = folder / "script.sh"
        script.write_text(str(step["run"]), "utf-8")
        shell = str(step["shell"])
        if shell == "bash":
            shell = "bash --noprofile --norc -eo pipefail {0}"  # the runner's bash
        done = subprocess.run(
            shell.replace("{0}", str(script)).split(),
            cwd=self.workspace,
            env=env,
            capture_output=True,
            text=True,
            timeout=240,
            check=False,
        )
        self.added_env.update(parse_outputs((folder / "set_env").read_text("utf-8")))
        self.added_path += (folder / "add_path").read_text("utf-8").splitlines()
        return Step(
            done.returncode,
            done.stdout,
            done.stderr,
            parse_outputs((folder / "set_output").read_text("utf-8")),
            (folder / "step_summary").read_text("utf-8"),
        )
