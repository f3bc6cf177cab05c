"""The modes of the action, each a way to a report (``run_mode``), and ``run_action``, which
runs one and ends with ``finish.conclude``.

``check`` lints the gold in this process (no user code runs). ``evaluate`` and ``evals`` run
user code as a program of its own (``isolation.run_user_code``) with workflow commands
paused; ``replay`` scores a saved report's results with the current gold (custom scorers
are user code too); ``compare`` and ``report`` start from a report the workspace holds.
``goldgate action`` runs a mode and publishes in one step; ``split`` runs the same two
halves as two steps (``goldgate action --run-only``, then ``goldgate publish``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from goldgate.app.action.finish import conclude
from goldgate.app.action.inputs import ActionInputs, read_inputs
from goldgate.app.action.isolation import commands_paused, mask_secrets, run_user_code
from goldgate.app.action.step import WORK_FOLDER, StepRun, print_commands, write_step_outputs
from goldgate.base.errors import ExitCode, GoldgateError, InvalidInputError
from goldgate.base.files import kept_working_folder

if TYPE_CHECKING:
    from goldgate.github.event import GitHubEvent

USER_CODE_MODES = ("evaluate", "evals", "replay")
"""The modes that run user code (targets, scorers, evals): never where a token is."""


@dataclass(frozen=True)
class Ran:
    """What a mode leaves to publish: the report on disk (just run, replayed or given), the
    run's exit code, and the event it was read with (None: none could be read)."""

    report: Path
    code: int
    event: GitHubEvent | None


Outcome = Ran | int
"""A report to publish, or the step's exit code, settled already (check, a refused input)."""


def run_action(
    env: Mapping[str, str] | None = None, out: Callable[[str], None] = print_commands
) -> int:
    """Run the action as the environment says; the step's exit code."""
    run = StepRun(dict(os.environ if env is None else env), out)
    inputs = step_inputs(run)
    if inputs is None:
        return int(ExitCode.INVALID_INPUT)
    mask_secrets(run, inputs)
    from goldgate.app.action import checkrun

    checkrun.start(run, inputs, step_event(run) if inputs.check_run else None)
    if inputs.mode in USER_CODE_MODES:
        _publishing_imported()
    outcome = run_mode(run, inputs)
    if isinstance(outcome, int):
        checkrun.settled(run, outcome)
        return outcome
    return conclude(run, inputs, outcome.event, outcome.report, outcome.code)


_PUBLISHING_PACKAGES = (
    "goldgate.app",
    "goldgate.github",
    "goldgate.render",
    "goldgate.comparison",
    "goldgate.report",
)
_PUBLISHING_LIBRARIES = (
    "github",
    "github.Artifact",
    "github.GithubRetry",
    "github.Issue",
    "github.IssueComment",
    "github.Repository",
    "httpx",
    "jinja2.sandbox",
)


def _publishing_imported() -> None:
    """What concluding the step (comparing, rendering, publishing) imports, imported before
    user code runs: from then on this process reads no bytecode (``seal.run_sealed``: a
    ``.pyc`` user code planted is never read), so each module first imported afterwards is
    compiled from its source, a few seconds of CPU for the GitHub client and the renderers.
    Read now, they come from the installation's bytecode, which nothing could have planted
    yet."""
    import contextlib
    import importlib
    import pkgutil

    names = list(_PUBLISHING_LIBRARIES)
    for name in _PUBLISHING_PACKAGES:
        package = importlib.import_module(name)
        found = pkgutil.walk_packages(package.__path__, f"{name}.", onerror=lambda _: None)
        names += [module.name for module in found if not module.name.endswith("__main__")]
    for name in names:
        # One that cannot be imported now fails where it is needed, in its own words: only a
        # speed-up is lost here.
        with contextlib.suppress(ImportError):
            importlib.import_module(name)


def step_inputs(run: StepRun) -> ActionInputs | None:
    """The step's inputs; None, once the error and the outputs are written, when one is bad."""
    try:
        return read_inputs(run.env)
    except InvalidInputError as error:
        run.commands.refuse(str(error))
        return None


def run_mode(run: StepRun, inputs: ActionInputs) -> Outcome:
    """The mode's way to a report (user code runs here in the modes ``USER_CODE_MODES``
    name), or the step's exit code when the mode settles it on its own."""
    if inputs.mode == "check":
        from goldgate.app.check import check_gold_command

        code = _guarded(
            lambda: check_gold_command(inputs.config, None, json_output=False, github=True)
        )
        write_step_outputs(run, {"exit_code": str(code)})
        return code
    if inputs.mode == "evaluate":
        return _evaluate(run, inputs)
    if inputs.mode == "evals":
        return _evals(run, inputs)
    if inputs.mode == "replay" and inputs.report is None:
        return _replay_baseline(run, inputs)
    if inputs.report is None or not inputs.report.is_file():
        return run.commands.refuse(
            f"mode {inputs.mode} needs the input report: an existing report file in the workspace."
        )
    if inputs.mode == "replay":
        return _replay(run, inputs, inputs.report)
    return Ran(inputs.report, int(ExitCode.PASSED), step_event(run))


def _replay(run: StepRun, inputs: ActionInputs, saved: Path) -> Outcome:
    """Mode replay: the current gold over the saved report's results, then as evaluate."""
    from goldgate.app.replay import ReplayRequest, replay_evaluation
    from goldgate.report.io import unique_path

    report_path = unique_path(WORK_FOLDER, "replay", datetime.now(UTC))
    request = ReplayRequest(
        report=saved.absolute(), config=inputs.config.absolute(), output=report_path.absolute()
    )  # fixed before custom scorers, which are user code, run
    with commands_paused(run), kept_working_folder():  # nor do they move the action's files
        run_code = _guarded(lambda: replay_evaluation(request), run)
    return Ran(report_path, run_code, step_event(run))


def _replay_baseline(run: StepRun, inputs: ActionInputs) -> Outcome:
    """Mode replay without the input report: the baseline's report (found as compare finds
    it: a file, or the merge-base commit's artifact, which ``fetch_replay_baseline`` fetched
    beforehand where this step has no token) replayed with the current gold; publishing then
    compares the replay with the baseline, and refuses a replay of any other report."""
    from goldgate.app.action.baseline import replay_source

    saved = replay_source(run, inputs, step_event(run), datetime.now(UTC))
    if saved is None:
        why = " ".join(run.notes) or "no baseline was found."
        return run.commands.refuse(
            "mode replay without the input report replays the baseline's report, and there "
            f"is none to replay: {why}"
        )
    return _replay(run, inputs, saved)


def _guarded(call: Callable[[], ExitCode], run: StepRun | None = None) -> int:
    try:
        return int(call())
    except GoldgateError as error:
        from goldgate.base.stdio import warn

        warn(f"goldgate: {error}")
        if run is not None:
            run.failure = str(error)
        return int(error.exit_code)
    except KeyboardInterrupt:
        return int(ExitCode.INTERRUPTED)


def step_event(run: StepRun) -> GitHubEvent | None:
    from goldgate.github.errors import EventError
    from goldgate.github.event import read_event

    try:
        return read_event(run.env)
    except EventError as error:
        run.warning(f"{error} No pull request to comment on and no baseline to find.")
        return None


def _live(run: StepRun, inputs: ActionInputs, event: GitHubEvent | None) -> bool:
    """Whether live suites (and live evals) may run: asked for, and not for a fork."""
    if inputs.live and event is not None and event.from_fork:
        run.warning("a pull request from a fork has no secrets: live suites are skipped.")
        return False
    return inputs.live


def _evaluate(run: StepRun, inputs: ActionInputs) -> Outcome:
    from goldgate.report.io import unique_path

    read = step_event(run)
    live = _live(run, inputs, read)
    now = datetime.now(UTC)
    report_path = unique_path(WORK_FOLDER, "report", now)
    arguments = ["evaluate", f"--config={inputs.config}", f"--output={report_path}"]
    arguments += [f"--suite={suite}" for suite in inputs.suites]
    arguments += ["--live"] if live else []
    arguments += _run_options(inputs)
    arguments += [f"--cache={inputs.cache}"] if inputs.cache is not None else []
    arguments += [f"--variant={inputs.variant}"] if inputs.variant is not None else []
    with commands_paused(run):
        run_code = run_user_code(run, arguments)
    return Ran(report_path, run_code, read)


def _run_options(inputs: ActionInputs) -> list[str]:
    return [
        f"--max-concurrency={inputs.options.max_concurrency}",
        f"--timeout={inputs.options.timeout!r}",
        f"--repeat={inputs.options.repeat}",
    ]


def _evals(run: StepRun, inputs: ActionInputs) -> Outcome:
    """Mode evals: ``goldgate evals run`` over the ``evals`` paths (``suites`` choosing
    datasets), then as evaluate: the report is the same format."""
    from goldgate.report.io import unique_path

    if not inputs.evals:
        return run.commands.refuse(
            "mode evals needs the input evals: the eval files or folders to run, relative to "
            "the workspace."
        )
    read = step_event(run)
    report_path = unique_path(WORK_FOLDER, "evals", datetime.now(UTC))
    arguments = ["evals", "run", f"--output={report_path}"]
    arguments += [f"--dataset={dataset}" for dataset in inputs.suites]
    arguments += ["--live"] if _live(run, inputs, read) else []
    arguments += [*_run_options(inputs), "--", *(str(path) for path in inputs.evals)]
    with commands_paused(run):
        run_code = run_user_code(run, arguments)
    return Ran(report_path, run_code, read)
