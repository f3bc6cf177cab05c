"""The action as two steps with two privileges: the run, then the publishing.

``goldgate action`` runs a mode and publishes in one process (the Docker action). The
composite action, and a workflow's plain steps, split that in two:

- ``run_only`` (``goldgate action --run-only``) runs the modes that run user code
  (``modes.USER_CODE_MODES``: targets, scorers, evals) in a step given no GitHub token, and
  leaves what publishing needs in a hand-off file (``HANDOFF``): the report, the run's exit
  code, the sentence of an error that ended it. It exits 0 whatever the run found, so that
  the job goes on to publish; only a hand-off it cannot write fails it.
- ``publish_only`` (``goldgate publish``) runs no user code and is the only step given the
  token: it reads the hand-off (and removes it, so a later step never reads a stale one),
  then compares with the baseline, renders and talks to GitHub exactly as ``goldgate
  action`` would have (``finish.conclude``), and exits with the code ``fail_on`` decides.
  The modes that run no user code (check, compare, report) run here whole.

Both read the same ``INPUT_*`` variables. A bad input is said once, by the publishing step.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from goldgate.app.action.finish import conclude
from goldgate.app.action.inputs import read_inputs
from goldgate.app.action.isolation import mask_secrets
from goldgate.app.action.modes import USER_CODE_MODES, Ran, run_mode, step_event, step_inputs
from goldgate.app.action.step import WORK_FOLDER, StepRun, print_commands, write_step_outputs
from goldgate.base.errors import ExitCode, InvalidInputError

HANDOFF = WORK_FOLDER / "run.json"
"""Where the run leaves what publishing needs, relative to the workspace."""
FORMAT = "goldgate.action-run/1"


def run_only(
    env: Mapping[str, str] | None = None,
    out: Callable[[str], None] = print_commands,
    handoff: Path = HANDOFF,
) -> int:
    """The run half: the mode's user code, its report and exit code left in ``handoff``;
    0 unless the hand-off cannot be written (then 4). The step's output ``handoff`` names it."""
    run = StepRun(dict(os.environ if env is None else env), out)
    with contextlib.suppress(OSError):  # a stale one would be published as this run's
        handoff.unlink(missing_ok=True)
    document: dict[str, Any] = {"format": FORMAT, "ran": False}
    try:
        inputs = read_inputs(run.env)
    except InvalidInputError:
        inputs = None  # the publishing step says why, once
    if inputs is not None and inputs.mode in USER_CODE_MODES:
        mask_secrets(run, inputs)
        outcome = run_mode(run, inputs)
        document = {"format": FORMAT, "ran": True, "mode": inputs.mode, "failure": run.failure}
        if isinstance(outcome, Ran):
            document.update(report=str(outcome.report), code=outcome.code)
        else:
            document.update(report=None, code=outcome, settled=True)
    from goldgate.base.errors import OutputFileError
    from goldgate.base.outputs import write_output_file
    from goldgate.render.workflow_commands import escape_data

    try:
        write_output_file(handoff, json.dumps(document, ensure_ascii=False) + "\n")
    except OutputFileError as error:
        run.command(f"::error title=goldgate::{escape_data(str(error))}; nothing to publish.")
        return int(ExitCode.RUNTIME_FAILURE)
    write_step_outputs(run, {"handoff": str(handoff)})
    return 0


def publish_only(
    env: Mapping[str, str] | None = None,
    out: Callable[[str], None] = print_commands,
    handoff: Path = HANDOFF,
) -> int:
    """The publishing half: what the run left (or, in the modes that run no user code, the
    whole mode) compared, rendered and published; the step's exit code under fail_on."""
    run = StepRun(dict(os.environ if env is None else env), out)
    inputs = step_inputs(run)
    left = _take(handoff)
    if inputs is None:
        return int(ExitCode.INVALID_INPUT)
    mask_secrets(run, inputs)
    if inputs.mode not in USER_CODE_MODES:
        outcome = run_mode(run, inputs)  # check, compare, report: no user code
        if isinstance(outcome, int):
            return outcome
        return conclude(run, inputs, outcome.event, outcome.report, outcome.code)
    if left is None or not left.get("ran") or left.get("mode") != inputs.mode:
        return _refuse(
            run,
            f"mode {inputs.mode} runs user code, which goldgate publish never does: run "
            f"`goldgate action --run-only` first, in the same workspace (it leaves {handoff}); "
            "or publish an existing report with mode report.",
        )
    code = left.get("code")
    report = left.get("report")
    if not isinstance(code, int) or isinstance(code, bool):
        return _refuse(run, f"{handoff} is not the hand-off of a run (no exit code).")
    if left.get("settled"):  # the run refused an input and said so: nothing to publish
        write_step_outputs(run, {"exit_code": str(code)})
        return code
    if not isinstance(report, str) or not report:
        return _refuse(run, f"{handoff} is not the hand-off of a run (no report).")
    failure = left.get("failure")
    run.failure = failure if isinstance(failure, str) else None
    return conclude(run, inputs, step_event(run), Path(report), code)


def _take(handoff: Path) -> dict[str, Any] | None:
    """The hand-off's contents, the file removed; None when there is none (or it is not one)."""
    try:
        text = handoff.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    with contextlib.suppress(OSError):
        handoff.unlink(missing_ok=True)
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) and value.get("format") == FORMAT else None


def _refuse(run: StepRun, sentence: str) -> int:
    from goldgate.render.workflow_commands import escape_data

    run.command(f"::error title=goldgate::{escape_data(sentence)}")
    write_step_outputs(run, {"exit_code": str(int(ExitCode.INVALID_INPUT))})
    return int(ExitCode.INVALID_INPUT)
