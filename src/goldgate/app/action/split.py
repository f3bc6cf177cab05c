"""The action as two steps with two privileges: the run, then the publishing.

``goldgate action`` runs a mode and publishes in one process (the Docker action). The
composite action, and a workflow's plain steps, split that in two:

- ``run_only`` (``goldgate action --run-only``) runs the modes that run user code
  (``modes.USER_CODE_MODES``: targets, scorers, evals) in a step given no GitHub token, and
  leaves what publishing needs in a hand-off (``handoff.Handoff``, in ``HANDOFF``): the
  report and its digest, the run's exit code, the sentence of an error that ended it; the
  digest of the hand-off is the step's output ``handoff_digest``. It exits 0 whatever the
  run found, so that the job goes on to publish; only a hand-off it cannot write fails it.
- ``fetch_only`` (``goldgate publish --fetch-baseline``), first, with the token and no user
  code: in mode replay without the input report, the baseline's report fetched for the run
  to replay (the run step has no token to fetch an artifact with).
- ``publish_only`` (``goldgate publish``) runs no user code and is the only step given the
  token: it reads the hand-off (and removes it, so a later step never reads a stale one),
  refusing one or a report whose digest is not the one the run step recorded, then compares
  with the baseline, renders and talks to GitHub exactly as ``goldgate action`` would have
  (``finish.conclude``), and exits with the code ``fail_on`` decides.
  The modes that run no user code (check, compare, report) run here whole.

Both read the same ``INPUT_*`` variables. A bad input is said once, by the publishing step.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path

from goldgate.app.action.finish import conclude
from goldgate.app.action.handoff import (
    DIGEST_VARIABLE,
    HANDOFF,
    Handoff,
    file_digest,
    read_handoff,
    write_handoff,
)
from goldgate.app.action.inputs import ActionInputs, read_inputs
from goldgate.app.action.isolation import mask_secrets
from goldgate.app.action.modes import (
    USER_CODE_MODES,
    Outcome,
    Ran,
    run_mode,
    step_event,
    step_inputs,
)
from goldgate.app.action.step import StepRun, print_commands, write_step_outputs
from goldgate.app.errors import HandoffError
from goldgate.base.errors import ExitCode, InvalidInputError

__all__ = ["HANDOFF", "prepare_only", "publish_only", "run_only"]


def run_only(
    env: Mapping[str, str] | None = None,
    out: Callable[[str], None] = print_commands,
    handoff: Path = HANDOFF,
) -> int:
    """The run half: the mode's user code, its report and exit code left in ``handoff``;
    0 unless the hand-off cannot be written (then 4). The step's outputs ``handoff`` and
    ``handoff_digest`` name it and the digest of its bytes, written once user code is gone
    (``isolation.run_user_code``): the publishing step takes nothing else."""
    import contextlib

    run = StepRun(dict(os.environ if env is None else env), out)
    with contextlib.suppress(OSError):  # a stale one would be published as this run's
        handoff.unlink(missing_ok=True)
    left = Handoff(ran=False)
    credentials = ""
    try:
        inputs = read_inputs(run.env)
    except InvalidInputError:
        inputs = None  # the publishing step says why, once
    if inputs is not None and inputs.mode in USER_CODE_MODES:
        mask_secrets(run, inputs)
        baseline = _baseline_digest(inputs)  # before user code could change them
        event = _event_digest(run)
        credentials = _credentials(inputs)
        outcome = _sealed_run(run, inputs)
        if outcome is None:
            return int(ExitCode.RUNTIME_FAILURE)
        ran = outcome if isinstance(outcome, Ran) else None
        left = Handoff(
            ran=True,
            mode=inputs.mode,
            code=outcome.code if isinstance(outcome, Ran) else outcome,
            report=None if ran is None else str(ran.report),
            report_sha256=None if ran is None else file_digest(ran.report),
            failure=run.failure,
            settled=ran is None,  # the run refused an input and said so
            baseline_sha256=baseline,
            event_sha256=event,
        )
    from goldgate.base.errors import OutputFileError

    try:
        written = write_handoff(handoff, left)
    except OutputFileError as error:
        run.commands.error(f"{error}; nothing to publish.")
        return int(ExitCode.RUNTIME_FAILURE)
    outputs = {"handoff": str(handoff), "handoff_digest": written, "credentials": credentials}
    write_step_outputs(run, outputs)
    return 0


def _credentials(inputs: ActionInputs) -> str:
    """The names of the variables the live workflows take credentials from, read before
    user code runs: the publishing step, which passes on nothing else but what goldgate
    reads, passes them on too, so that it masks and redacts their values."""
    import re

    from goldgate.app.action.isolation import credential_names

    names = [name for name in credential_names(inputs.config) if re.fullmatch(r"\w+", name)]
    return " ".join(names)


def _sealed_run(run: StepRun, inputs: ActionInputs) -> Outcome | None:
    """The mode run (``run_mode``) as a whole, sealed as ``isolation.run_user_code`` seals a
    program of user code, which mode replay's custom scorers, run in this process, are not:
    what it left running is killed and the runner's files are put back afterwards. None,
    once said, when they cannot be put back: then no hand-off is left to publish."""
    from goldgate.app.action.seal import run_sealed

    outcome, unrestored = run_sealed(run.env, lambda: run_mode(run, inputs))
    if unrestored is not None:
        run.commands.error(f"{unrestored}; nothing to publish.")
        return None
    return outcome


def publish_only(
    env: Mapping[str, str] | None = None,
    out: Callable[[str], None] = print_commands,
    handoff: Path = HANDOFF,
) -> int:
    """The publishing half: what the run left (or, in the modes that run no user code, the
    whole mode) compared, rendered and published; the step's exit code under fail_on. The
    hand-off and its report are taken only when their digests are those the run step
    recorded (``DIGEST_VARIABLE``, the run step's output ``handoff_digest``)."""
    from goldgate.app.action import checkrun

    run = StepRun(dict(os.environ if env is None else env), out)
    checkrun.given(run)
    inputs = step_inputs(run)
    if inputs is None:
        _discard(handoff)
        checkrun.settled(run, int(ExitCode.INVALID_INPUT))
        return int(ExitCode.INVALID_INPUT)
    mask_secrets(run, inputs)
    if inputs.mode not in USER_CODE_MODES:
        _discard(handoff)
        outcome = run_mode(run, inputs)  # check, compare, report: no user code
        if isinstance(outcome, int):
            checkrun.settled(run, outcome)
            return outcome
        return conclude(run, inputs, outcome.event, outcome.report, outcome.code)
    if not handoff.exists() and run.check_run is not None:
        return _left_nothing(run)
    if not handoff.exists():
        return run.commands.refuse(
            f"mode {inputs.mode} runs user code, which goldgate publish never does: run "
            f"`goldgate action --run-only` first, in the same workspace (it leaves {handoff}); "
            "or publish an existing report with mode report.",
        )
    try:
        left = read_handoff(handoff, run.env.get(DIGEST_VARIABLE, ""))
    except HandoffError as error:
        return run.commands.refuse(f"{error}; nothing is published.")
    if not left.ran or left.mode != inputs.mode or left.code is None:
        return run.commands.refuse(
            f"mode {inputs.mode} runs user code, which goldgate publish never does, and "
            f"{handoff} is not the hand-off of a run in that mode: run `goldgate action "
            "--run-only` with the same inputs first.",
        )
    if left.baseline_sha256 != _baseline_digest(inputs):
        return run.commands.refuse(
            f"the baseline {inputs.baseline} changed while user code ran (its digest "
            "differs from the one the run step took before); nothing is published.",
        )
    if left.event_sha256 != _event_digest(run):
        return run.commands.refuse(
            f"the event file {run.env.get('GITHUB_EVENT_PATH', '')} changed while user code "
            "ran (its digest differs from the one the run step took before); nothing is "
            "published.",
        )
    if left.settled or left.report is None:  # the run refused an input and said so
        write_step_outputs(run, {"exit_code": str(left.code)})
        return left.code
    run.failure = left.failure
    return conclude(
        run, inputs, step_event(run), Path(left.report), left.code, recorded=left.report_sha256
    )


def _left_nothing(run: StepRun) -> int:
    """The run step left no hand-off (it was cancelled, or failed before it could write
    one) and a check run waits: complete it, ``cancelled`` or ``failure``, and say so."""
    from goldgate.app.action import checkrun

    outcome = run.env.get(checkrun.RUN_OUTCOME_VARIABLE, "").strip()
    cancelled = outcome in ("cancelled", "")
    code = ExitCode.INTERRUPTED if cancelled else ExitCode.RUNTIME_FAILURE
    what = "was cancelled" if cancelled else f"ended ({outcome or 'no outcome'})"
    why = f"The run step {what} before it left anything to publish."
    checkrun.abandon(run, step_event(run), why, "cancelled" if cancelled else "failure")
    run.warning(
        f"{why[:-1]}; the check run is completed as {'cancelled' if cancelled else 'failure'}."
    )
    write_step_outputs(run, {"exit_code": str(int(code))})
    return int(code)


def prepare_only(
    env: Mapping[str, str] | None = None, out: Callable[[str], None] = print_commands
) -> int:
    """Before the run half, with the token and no user code: the step's check run created
    ``in_progress`` (input ``check_run``; its id the step output ``check_run_id``), and in
    mode replay without the input report, the baseline's report fetched for the run to
    replay. 0 whatever happened: a fault is a warning, and a bad input is said by the
    publishing step."""
    return _before_run(env, out, check_run=True)


def fetch_only(
    env: Mapping[str, str] | None = None, out: Callable[[str], None] = print_commands
) -> int:
    """Before the run half, with the token and no user code: in mode replay without the
    input report, the baseline's report fetched for the run to replay
    (``baseline.fetch_replay_baseline``). 0 whatever happened: the run step says what is
    missing, and a bad input is said by the publishing step."""
    return _before_run(env, out, check_run=False)


def _before_run(
    env: Mapping[str, str] | None, out: Callable[[str], None], *, check_run: bool
) -> int:
    """What ``prepare_only`` (``check_run``) and ``fetch_only`` do before user code runs."""
    from goldgate.app.action import checkrun
    from goldgate.app.action.baseline import fetch_replay_baseline

    run = StepRun(dict(os.environ if env is None else env), out)
    try:
        inputs = read_inputs(run.env)
    except InvalidInputError:
        return 0
    mask_secrets(run, inputs)
    event = step_event(run)
    created = checkrun.start(run, inputs, event) if check_run else None
    if created is not None:
        write_step_outputs(run, {"check_run_id": str(created)})
    fetch_replay_baseline(run, inputs, event)
    return 0


def _baseline_digest(inputs: ActionInputs) -> str | None:
    """The digest of the baseline file the inputs name (none for an artifact, which the
    publishing step downloads itself, or when there is no file there)."""
    if inputs.baseline is None or inputs.baseline.startswith("artifact:"):
        return None
    return file_digest(Path(inputs.baseline))


def _event_digest(run: StepRun) -> str | None:
    """The digest of the event file the runner wrote (which names the pull request, its
    commits and so the baseline); None when there is none."""
    path = run.env.get("GITHUB_EVENT_PATH", "").strip()
    return file_digest(Path(path)) if path else None


def _discard(handoff: Path) -> None:
    """Remove a hand-off nothing will publish: a later step never reads a stale one."""
    import contextlib

    with contextlib.suppress(OSError):
        handoff.unlink(missing_ok=True)
