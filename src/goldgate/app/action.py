"""``goldgate action``: what the Docker action runs.

It reads its inputs from ``INPUT_*`` variables (names upper-cased, underscores kept) and the
event from ``GITHUB_EVENT_PATH``; it masks every credential a live workflow names before
anything runs, evaluates (gold, or Python evals in mode ``evals``) with an environment that
holds no GitHub or Actions token, finds the baseline (the artifact of the merge-base commit,
or a path), compares, and reports:
JUnit XML, the sticky pull-request comment (or a comment file when GitHub says no, as it
does to forks), the job summary, at most 10 annotations per kind and the step's outputs.

The middle is pure (``read_inputs``, ``decide_exit``, ``target_environ``); GitHub is reached
only at the edges, and every GitHub failure is a ``::warning::`` and a fallback.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from goldgate.base.errors import (
    ExitCode,
    GoldgateError,
    InvalidInputError,
    ReportRefusedError,
    RuntimeFailureError,
    most_severe,
)
from goldgate.base.textsafe import TOKEN_VARIABLES
from goldgate.github.client import describe_error, os_reason

if TYPE_CHECKING:
    from goldgate.comparison.models import Comparison
    from goldgate.github.event import GitHubEvent
    from goldgate.report.models import Report

Mode = Literal["check", "evaluate", "evals", "replay", "compare", "report"]
MODES: tuple[str, ...] = ("check", "evaluate", "evals", "replay", "compare", "report")
FailOn = Literal["disagreement", "regression", "never"]
FAIL_ON: tuple[str, ...] = ("disagreement", "regression", "never")
COMMENT_MODES = ("update", "new", "off")
DETAILS = ("safe", "values")

HIDDEN_FROM_TARGETS = TOKEN_VARIABLES
"""Tokens the runner or the workflow hands the action that a target must never see."""

"""Where a comment that could not be posted goes (``id``: the comment id, made safe for a
file name, so that two goldgate steps of one job do not overwrite each other's)."""
WORK_FOLDER = Path(".goldgate") / "action"
ARTIFACT_MAX_BYTES = 200 * 1024 * 1024
ARTIFACT_MAX_FILES = 1_000
PASSTHROUGH_CODES = frozenset({ExitCode.INVALID_INPUT, ExitCode.INTERRUPTED})
REQUEST_TIMEOUT_VARIABLE = "GOLDGATE_GITHUB_TIMEOUT"
"""Seconds to wait for each answer of the GitHub API (default 20)."""
BASELINE_DEADLINE_VARIABLE = "GOLDGATE_BASELINE_DEADLINE"
"""Seconds the baseline download may take in all (default ``artifacts.DOWNLOAD_DEADLINE``)."""


@dataclass(frozen=True)
class ActionInputs:
    mode: str = "evaluate"
    config: Path = Path("config/settings.yaml")
    suites: tuple[str, ...] = ()
    evals: tuple[Path, ...] = ()
    live: bool = False
    max_concurrency: int = 1
    timeout: float = 300.0
    repeat: int = 1
    variant: str | None = None
    baseline: str | None = None
    report: Path | None = None
    partial: bool = True
    junit: Path | None = None
    comment: str = "update"
    comment_id: str = "goldgate"
    details: str = "safe"
    link_gold: bool = True
    fail_on: str = "disagreement"
    github_token: str = field(default="", repr=False)


# --- the pure middle ----------------------------------------------------------------------------


def _input(env: Mapping[str, str], name: str) -> str:
    return env.get(f"INPUT_{name.upper()}", "").strip()


def _bool(env: Mapping[str, str], name: str, default: bool) -> bool:
    value = _input(env, name).lower()
    if not value:
        return default
    if value in ("true", "yes", "1", "on"):
        return True
    if value in ("false", "no", "0", "off"):
        return False
    raise InvalidInputError(f"input {name} must be true or false, not {value!r}.")


def _number(env: Mapping[str, str], name: str, default: float, kind: type, maximum: float) -> Any:
    value = _input(env, name)
    if not value:
        return default
    try:
        number = kind(value)
    except ValueError:
        raise InvalidInputError(f"input {name} must be a number, not {value!r}.") from None
    if not number > 0:  # NaN too
        raise InvalidInputError(f"input {name} must be more than 0, not {value!r}.")
    if not number <= maximum:
        raise InvalidInputError(f"input {name} must be at most {maximum:g}, not {value!r}.")
    return number


def _choice(env: Mapping[str, str], name: str, choices: tuple[str, ...], default: str) -> str:
    value = _input(env, name).lower() or default
    if value not in choices:
        raise InvalidInputError(f"input {name} must be one of {', '.join(choices)}, not {value!r}.")
    return value


def read_inputs(env: Mapping[str, str]) -> ActionInputs:
    """The action's inputs from ``INPUT_*``; ``InvalidInputError`` names the first bad one."""
    from goldgate.run.runner import MAX_REPEAT, MAX_TIMEOUT

    suites = tuple(
        part.strip()
        for line in _input(env, "suites").splitlines()
        for part in line.split(",")
        if part.strip()
    )
    workflow, job = env.get("GITHUB_WORKFLOW", "").strip(), env.get("GITHUB_JOB", "").strip()
    default_id = f"{workflow}/{job}" if workflow or job else "goldgate"
    return ActionInputs(
        mode=_choice(env, "mode", MODES, "evaluate"),
        config=Path(_input(env, "config") or "config/settings.yaml"),
        suites=suites,
        evals=tuple(Path(part) for part in _input(env, "evals").split()),
        live=_bool(env, "live", False),
        max_concurrency=_number(env, "max_concurrency", 1, int, 64),
        timeout=_number(env, "timeout", 300.0, float, MAX_TIMEOUT),
        repeat=_number(env, "repeat", 1, int, MAX_REPEAT),
        variant=_input(env, "variant") or None,
        baseline=_input(env, "baseline") or None,
        report=Path(_input(env, "report")) if _input(env, "report") else None,
        partial=_bool(env, "partial", True),
        junit=Path(_input(env, "junit")) if _input(env, "junit") else None,
        comment=_choice(env, "comment", COMMENT_MODES, "update"),
        comment_id=_input(env, "comment_id") or default_id,
        details=_choice(env, "details", DETAILS, "safe"),
        link_gold=_bool(env, "link_gold", True),
        fail_on=_choice(env, "fail_on", FAIL_ON, "disagreement"),
        github_token=_input(env, "github_token") or env.get("GITHUB_TOKEN", "").strip(),
    )


def target_environ(env: Mapping[str, str]) -> dict[str, str]:
    """The environment targets see: the action's own, without any GitHub or Actions token."""
    return {key: value for key, value in env.items() if key not in HIDDEN_FROM_TARGETS}


TOKENS_FD = "GOLDGATE_ACTION_TOKENS_FD"
"""Names the descriptor the tokens wait in after ``hold_tokens_apart`` re-executed goldgate."""
_MAX_TOKEN_BYTES = 60_000  # below a pipe's buffer: written before anyone reads it


def hold_tokens_apart() -> dict[str, str]:
    """The GitHub and Actions tokens, kept out of this process's environment block.

    ``/proc/<pid>/environ`` shows the environment a process was started with, to any process
    of the same user: the targets' included. So when a token is in the environment, it is
    written into a pipe and goldgate starts again (exec, same process) with an environment
    without it, and the new program reads the tokens back from the pipe: neither its
    environment block nor that of anything it starts ever held them."""
    descriptor = os.environ.pop(TOKENS_FD, None)
    if descriptor is not None:
        return _read_tokens(int(descriptor))
    held = {name: os.environ[name] for name in HIDDEN_FROM_TARGETS if name in os.environ}
    if not held:
        return {}
    data = json.dumps(held).encode("utf-8")
    if len(data) > _MAX_TOKEN_BYTES:
        raise InvalidInputError("the GitHub and Actions tokens in the environment are too long.")
    read_end, write_end = os.pipe()
    os.write(write_end, data)
    os.close(write_end)
    os.set_inheritable(read_end, True)
    env = target_environ(os.environ)
    env[TOKENS_FD] = str(read_end)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, [*goldgate_command(), "action"], env)


def _read_tokens(descriptor: int) -> dict[str, str]:
    chunks = []
    try:
        while chunk := os.read(descriptor, 65536):
            chunks.append(chunk)
    finally:
        os.close(descriptor)
    value = json.loads(b"".join(chunks) or b"{}")
    return {str(key): str(item) for key, item in value.items() if key in HIDDEN_FROM_TARGETS}


def goldgate_command() -> list[str]:
    """This goldgate as a new program. ``-P``: the working folder (a pull request's checkout)
    does not go first on ``sys.path``, so a ``goldgate`` folder there is not imported."""
    return [sys.executable, "-P", "-m", "goldgate"]


def _run_user_code(run: _Run, arguments: list[str]) -> int:
    """A goldgate command that runs user code (targets, scorers, evals), as a program of its
    own started with an environment that never held a token (``target_environ``): user code
    in it cannot read one from its memory, its environment or its parent's, and what it
    leaves running ends with it. That program supervises its own run
    (``goldgate.app.supervisor``); its exit code is the run's."""
    from goldgate.app.supervisor import run_child

    env = target_environ(run.env)
    env.pop(TOKENS_FD, None)
    return run_child([*goldgate_command(), *arguments], env)


@contextlib.contextmanager
def commands_paused(run: _Run) -> Iterator[None]:
    """The runner obeys no workflow command while the body runs user code (targets, scorers,
    evals): what they print, an answer a model was talked into say, can neither forge an
    annotation nor silence goldgate's own commands with ``::stop-commands::`` (while
    commands are stopped, that one is ignored too). The token that resumes them is random
    and printed only here; goldgate prints none of its commands inside. The pause goes to
    stderr, where user code's output goes (file descriptor 1 is stderr while it runs), so
    that nothing it prints comes first; the resume goes to stdout, before goldgate's own."""
    from goldgate.base.stdio import write_stderr_command

    token = secrets.token_hex(16)
    write_stderr_command(f"::stop-commands::{token}")
    try:
        yield
    finally:
        run.command(f"::{token}::")


def decide_exit(fail_on: str, run_code: int, comparison: Comparison | None) -> tuple[int, str]:
    """The step's exit code under ``fail_on`` and one sentence saying which rule decided."""
    if fail_on == "never":
        if run_code in PASSTHROUGH_CODES:
            return run_code, (
                f"fail_on never: exit {run_code}, since the input was invalid or the run was "
                "interrupted."
            )
        return 0, f"fail_on never: exit 0 whatever the run found (the run's exit code: {run_code})."
    if fail_on == "regression":
        if run_code in (*PASSTHROUGH_CODES, ExitCode.MISSING_DEPENDENCY, ExitCode.RUNTIME_FAILURE):
            return run_code, (
                f"fail_on regression: exit {run_code}, since the run itself did not complete "
                "cleanly."
            )
        if comparison is None:
            return 0, "fail_on regression: exit 0, since there is no comparison with a baseline."
        regressed = comparison.classes.regressions  # the comparison's one classification
        if regressed:
            return 1, (
                f"fail_on regression: exit 1, since {regressed} regressed or mixed against the "
                "baseline."
            )
        return 0, "fail_on regression: exit 0, since nothing regressed against the baseline."
    return run_code, f"fail_on disagreement: exit {run_code}, the run's own exit code."


def credential_names(config: Path) -> list[str]:
    """The environment variables every live workflow of the settings names as credentials
    (none when the settings cannot be read: the run will say why)."""
    from goldgate.gold.settings.load import load_settings

    try:
        loaded = load_settings(config)
    except (GoldgateError, OSError, ValueError):
        return []
    names: list[str] = []
    for workflow in loaded.workflows.values():
        if workflow.live:
            names += [name for name in workflow.credentials if name not in names]
    return names


# --- the edges ----------------------------------------------------------------------------------


@dataclass
class _Run:
    env: Mapping[str, str]
    out: Callable[[str], None]
    outputs: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    interrupted: bool = False
    failure: str | None = None
    """The sentence of the error that ended goldgate's own run, if one did."""

    def command(self, line: str) -> None:
        self.out(line if line.endswith("\n") else line + "\n")

    def warning(self, message: str) -> None:
        from goldgate.base.textsafe import escape_control, redact
        from goldgate.render.workflow import escape_data

        # A command is not printed through textsafe.printable: redact here what it would.
        self.command(f"::warning title=goldgate::{escape_data(escape_control(redact(message)))}")


def _print(text: str) -> None:
    from goldgate.base.stdio import write_commands

    write_commands(text)  # goldgate's own commands only, their data escaped (see _Run)


def run_action(env: Mapping[str, str] | None = None, out: Callable[[str], None] = _print) -> int:
    """Run the action as the environment says; the step's exit code."""
    environ = dict(os.environ if env is None else env)
    run = _Run(environ, out)
    try:
        inputs = read_inputs(environ)
    except InvalidInputError as error:
        from goldgate.render.workflow import escape_data

        run.command(f"::error title=goldgate::{escape_data(str(error))}")
        _write_outputs(run, {"exit_code": str(int(ExitCode.INVALID_INPUT))})
        return int(ExitCode.INVALID_INPUT)
    _mask(run, inputs)
    if inputs.mode == "check":
        from goldgate.app.check import check_gold_command

        code = _guarded(
            lambda: check_gold_command(inputs.config, None, json_output=False, github=True)
        )
        _write_outputs(run, {"exit_code": str(code)})
        return code
    if inputs.mode == "evaluate":
        return _evaluate(run, inputs)
    if inputs.mode == "evals":
        return _evals(run, inputs)
    if inputs.report is None or not inputs.report.is_file():
        run.command(
            f"::error title=goldgate::mode {inputs.mode} needs the input report: an existing "
            "report file in the workspace."
        )
        _write_outputs(run, {"exit_code": str(int(ExitCode.INVALID_INPUT))})
        return int(ExitCode.INVALID_INPUT)
    if inputs.mode == "replay":
        return _replay(run, inputs, inputs.report)
    return _conclude(run, inputs, _event(run), inputs.report, int(ExitCode.PASSED))


def _replay(run: _Run, inputs: ActionInputs, saved: Path) -> int:
    """Mode replay: the current gold over the saved report's results, then as evaluate."""
    from goldgate.app.replay import ReplayRequest, replay_evaluation
    from goldgate.report.io import unique_path

    report_path = unique_path(WORK_FOLDER, "replay", datetime.now(UTC))
    request = ReplayRequest(report=saved, config=inputs.config, output=report_path)
    with commands_paused(run):  # custom scorers are user code
        run_code = _guarded(lambda: replay_evaluation(request), run)
    return _conclude(run, inputs, _event(run), report_path, run_code)


def _guarded(call: Callable[[], ExitCode], run: _Run | None = None) -> int:
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


def _mask(run: _Run, inputs: ActionInputs) -> None:
    from goldgate.base.textsafe import note_secret_values
    from goldgate.render.workflow import add_mask

    values = [inputs.github_token] + [
        run.env.get(name, "") for name in credential_names(inputs.config)
    ]
    # What the log masks, every rendering redacts: comment, summary, annotations, JUnit.
    note_secret_values(values)
    for value in values:
        command = add_mask(value)
        if command:
            run.command(command)


def _event(run: _Run) -> GitHubEvent | None:
    from goldgate.github.event import EventError, read_event

    try:
        return read_event(run.env)
    except EventError as error:
        run.warning(f"{error} No pull request to comment on and no baseline to find.")
        return None


def _live(run: _Run, inputs: ActionInputs, event: GitHubEvent | None) -> bool:
    """Whether live suites (and live evals) may run: asked for, and not for a fork."""
    if inputs.live and event is not None and event.from_fork:
        run.warning("a pull request from a fork has no secrets: live suites are skipped.")
        return False
    return inputs.live


def _evaluate(run: _Run, inputs: ActionInputs) -> int:
    from goldgate.report.io import unique_path

    event = _event(run)
    live = _live(run, inputs, event)
    now = datetime.now(UTC)
    report_path = unique_path(WORK_FOLDER, "report", now)
    arguments = ["evaluate", f"--config={inputs.config}", f"--output={report_path}"]
    arguments += [f"--suite={suite}" for suite in inputs.suites]
    arguments += ["--live"] if live else []
    arguments += _run_options(inputs)
    arguments += [f"--variant={inputs.variant}"] if inputs.variant is not None else []
    with commands_paused(run):
        run_code = _run_user_code(run, arguments)
    return _conclude(run, inputs, event, report_path, run_code)


def _run_options(inputs: ActionInputs) -> list[str]:
    return [
        f"--max-concurrency={inputs.max_concurrency}",
        f"--timeout={inputs.timeout!r}",
        f"--repeat={inputs.repeat}",
    ]


def _evals(run: _Run, inputs: ActionInputs) -> int:
    """Mode evals: ``goldgate evals run`` over the ``evals`` paths (``suites`` choosing
    datasets), then as evaluate: the report is the same format."""
    from goldgate.report.io import unique_path

    if not inputs.evals:
        run.command(
            "::error title=goldgate::mode evals needs the input evals: the eval files or "
            "folders to run, relative to the workspace."
        )
        _write_outputs(run, {"exit_code": str(int(ExitCode.INVALID_INPUT))})
        return int(ExitCode.INVALID_INPUT)
    event = _event(run)
    report_path = unique_path(WORK_FOLDER, "evals", datetime.now(UTC))
    arguments = ["evals", "run", f"--output={report_path}"]
    arguments += [f"--dataset={dataset}" for dataset in inputs.suites]
    arguments += ["--live"] if _live(run, inputs, event) else []
    arguments += [*_run_options(inputs), "--", *(str(path) for path in inputs.evals)]
    with commands_paused(run):
        run_code = _run_user_code(run, arguments)
    return _conclude(run, inputs, event, report_path, run_code)


def _conclude(
    run: _Run, inputs: ActionInputs, event: GitHubEvent | None, report_path: Path, run_code: int
) -> int:
    """From a report on disk (just run, replayed, or given): compare with the baseline, render
    and publish, and decide the step's exit code under fail_on. Mode compare and mode report
    take the run's exit code from the report's own verdict.

    SIGINT or SIGTERM while the baseline downloads (or is compared) or the comment posts
    stops that, not the step: what can still be written (JUnit, the summary, the outputs)
    is, with exit 130."""
    from goldgate.report.io import read_report

    now = datetime.now(UTC)
    report: Report | None = None
    refused: GoldgateError | None = None
    if report_path.is_file():
        try:
            report = read_report(report_path)
        except GoldgateError as error:  # unreadable, or its stored verdict is not its own
            refused = error
        except MemoryError:
            refused = RuntimeFailureError(f"{report_path}: too large to read in this memory.")
    if report is None:
        if refused is not None:
            run_code = int(most_severe(ExitCode(run_code), refused.exit_code))
            run.failure = str(refused)
        return _no_report(run, inputs, run_code)
    if inputs.mode in ("compare", "report"):
        run_code = report.verdict.exit_code  # recomputed from its attempts as it was read
    comparison: Comparison | None = None
    comparison_path: Path | None = None
    if run_code == ExitCode.INTERRUPTED:
        run.notes.append("No baseline: the run was interrupted, so nothing was compared.")
    else:
        try:
            comparison, comparison_path = _compare(run, inputs, event, report, report_path, now)
        except KeyboardInterrupt:
            _interrupted(run, "while the baseline was fetched or compared; nothing was compared")
    if run.failure is not None:  # the baseline was refused: nothing it says is trusted
        return _no_report(run, inputs, int(ExitCode.INVALID_INPUT))
    try:
        return _report(
            run, inputs, event, report, report_path, comparison, comparison_path, run_code
        )
    except KeyboardInterrupt:  # while rendering or writing: what is cheap is still written
        _interrupted(run, "while the results were published")
        code, rule = decide_exit(inputs.fail_on, int(ExitCode.INTERRUPTED), comparison)
        _summary(
            run,
            f"**goldgate: {rule}** Interrupted while the results were published; "
            f"the report is {report_path}.\n",
        )
        _write_outputs(
            run,
            {
                "exit_code": str(int(ExitCode.INTERRUPTED)),
                "report": str(report_path),
                "comparison": str(comparison_path or ""),
            },
        )
        return code


def _no_report(run: _Run, inputs: ActionInputs, run_code: int) -> int:
    """The outputs and summary of a run that has no report to publish: goldgate's exit code
    and, when an error ended it, its sentence."""
    from goldgate.base.textsafe import escape_control
    from goldgate.render import escape
    from goldgate.render.workflow import escape_data

    code, rule = decide_exit(inputs.fail_on, run_code, None)
    if run.failure is not None:
        run.command(f"::error title=goldgate::{escape_data(escape_control(run.failure))}")
        why = escape.markdown(run.failure, 1_000)
        _summary(run, f"**goldgate: {rule}** Nothing was published: {why}\n")
    else:
        _summary(run, f"**goldgate: {rule}** The run wrote no report (exit {run_code}).\n")
    _write_outputs(run, {"exit_code": str(run_code)})
    return code


def _interrupted(run: _Run, when: str) -> None:
    """Note a SIGINT or SIGTERM that stopped a step of the action; later ones are held (a
    cancelled job gets SIGINT, then SIGTERM), so the outputs are still written."""
    import signal
    import threading

    from goldgate.base.stdio import warn

    if not run.interrupted and threading.current_thread() is threading.main_thread():
        for number in (signal.SIGINT, signal.SIGTERM):
            signal.signal(number, lambda *_: None)
    run.interrupted = True
    run.notes.append(f"Interrupted {when}.")
    warn(f"goldgate: interrupted {when}.")


def _compare(
    run: _Run,
    inputs: ActionInputs,
    event: GitHubEvent | None,
    report: Report,
    report_path: Path,
    now: datetime,
) -> tuple[Comparison | None, Path | None]:
    from goldgate.comparison import compare, write_comparison
    from goldgate.report.io import unique_path

    if inputs.baseline is None:
        run.notes.append("No baseline was configured, so nothing was compared.")
        return None, None
    found = _baseline(run, inputs.baseline, event, now)
    if found is None:
        return None, None
    baseline_path, baseline = found
    refusal = baseline_refusal(report, baseline)
    if refusal is None:
        try:
            comparison = compare(report_path, baseline_path, partial=inputs.partial, now=now)
        except GoldgateError as error:
            refusal = str(error).removeprefix("cannot compare: ")
        except Exception as error:  # a baseline no check foresaw: a note, never a crash
            refusal = describe_error(error)
        else:
            refusal = nothing_compared(comparison)
    if refusal is not None:
        refusal = refusal.rstrip(".")
        run.warning(f"baseline not compared: {refusal}.")
        run.notes.append(f"Baseline not compared: {refusal}.")
        return None, None
    written, fallback = write_comparison(comparison, unique_path(WORK_FOLDER, "comparison", now))
    if fallback:
        run.warning(f"{fallback}; the comparison was written to {written} instead.")
    return comparison, written


def baseline_refusal(candidate: Report, baseline: Report) -> str | None:
    """Why ``baseline`` must not be compared with ``candidate`` at all, or None: a report of
    another dataset, or of another choice of suites, would compare little or nothing and
    then say that nothing regressed."""
    if baseline.dataset.name != candidate.dataset.name:
        return (
            f"it is a report of the dataset {baseline.dataset.name!r}, the candidate of "
            f"{candidate.dataset.name!r}"
        )

    def chosen(report: Report) -> str:
        return ", ".join(repr(name) for name in sorted(report.options.suites)) or "all suites"

    if set(baseline.options.suites) != set(candidate.options.suites):
        return f"it ran {chosen(baseline)}, the candidate {chosen(candidate)}"
    names = {suite.name for suite in baseline.suites}
    if candidate.suites and not any(suite.name in names for suite in candidate.suites):
        return "it holds none of the candidate's suites"
    return None


def nothing_compared(comparison: Comparison) -> str | None:
    """Why a comparison that compared no attempt of the candidate is no comparison."""
    comparable = comparison.comparable
    if comparable.candidate_attempts and not comparable.compared_attempts:
        count = comparable.candidate_attempts
        return (
            f"none of the candidate's {count:,} attempt{'s' * (count != 1)} could be compared "
            "with the baseline (their inputs or gold differ, or they did not run)"
        )
    return None


def request_timeout(env: Mapping[str, str]) -> int:
    """Seconds to wait for each answer of the GitHub API: ``GOLDGATE_GITHUB_TIMEOUT``
    (a whole number from 1 to 300), else 20."""
    value = env.get(REQUEST_TIMEOUT_VARIABLE, "").strip()
    return int(value) if value.isdigit() and 1 <= int(value) <= 300 else 20


def baseline_deadline(env: Mapping[str, str]) -> float:
    """Seconds the whole baseline download may take: ``GOLDGATE_BASELINE_DEADLINE``, else
    ``DOWNLOAD_DEADLINE`` (a value that is not a positive number counts as unset)."""
    from goldgate.github.artifacts import DOWNLOAD_DEADLINE

    try:
        seconds = float(env.get(BASELINE_DEADLINE_VARIABLE, "").strip() or DOWNLOAD_DEADLINE)
    except ValueError:
        return DOWNLOAD_DEADLINE
    return seconds if 0 < seconds < float("inf") else DOWNLOAD_DEADLINE


def _baseline(
    run: _Run, source: str, event: GitHubEvent | None, now: datetime
) -> tuple[Path, Report] | None:
    from goldgate.report.io import read_report

    if not source.startswith("artifact:"):
        path = Path(source)
        if not path.is_file():
            run.notes.append(f"No baseline: {source} is not a file, so nothing was compared.")
            return None
        try:
            return path, read_report(path)
        except ReportRefusedError as error:  # a baseline that lies is no baseline: refused
            run.failure = f"the baseline was refused: {error}"
            return None
        except (GoldgateError, OSError, ValueError) as error:
            run.warning(f"baseline not compared: {describe_error(error)}")
            run.notes.append(f"Baseline not compared: {describe_error(error)}")
            return None
    name = source.removeprefix("artifact:").strip()
    if event is None or not event.is_pull_request or not event.base_sha or not event.head_sha:
        run.notes.append(
            "No baseline: this run is not for a pull request, so nothing was compared."
        )
        return None
    seconds = baseline_deadline(run.env)
    try:
        with _alarm_after(seconds + _ALARM_GRACE):
            return _download_baseline(run, name, event, now, time.monotonic() + seconds)
    except _DeadlinePassed:
        run.warning(
            f"the baseline artifact {name!r} could not be used: fetching it took longer than "
            f"the {seconds:g} s this run allows."
        )
    except Exception as error:  # every GitHub failure is a warning, never a crash
        run.warning(f"the baseline artifact {name!r} could not be used: {describe_error(error)}")
    run.notes.append(
        f"No baseline: the artifact {name!r} could not be used, so nothing was compared."
    )
    return None


def _download_baseline(
    run: _Run, name: str, event: GitHubEvent, now: datetime, deadline: float
) -> tuple[Path, Report] | None:
    """The merge-base commit's baseline (or the base branch's newest, with a note), fetched
    within ``baseline_deadline`` into a temporary folder that is removed whatever happens,
    and copied into the work folder: the comparison names a file that stays."""
    from goldgate.github.artifacts import (
        download_artifact,
        extract_zip_safely,
        find_baseline_artifact,
        merge_base,
        remaining,
    )
    from goldgate.github.client import api_url, connect, repository

    assert event.base_sha is not None
    assert event.head_sha is not None
    what = f"fetch the baseline artifact {name!r}"
    github = connect(
        _token(run),
        base_url=api_url(run.env),
        timeout=max(1, min(request_timeout(run.env), int(remaining(deadline, what)))),
    )
    repo = repository(github, event.repository or run.env.get("GITHUB_REPOSITORY", ""))
    base = merge_base(repo, event.base_sha, event.head_sha)
    branch = event.base_ref or event.default_branch or ""
    remaining(deadline, what)
    choice = find_baseline_artifact(repo, name, base, branch)
    if choice is None:
        run.notes.append(
            f"No baseline: no artifact {name!r} was found for the merge-base commit "
            f"{base[:7]} or on {branch or 'the base branch'} (named {name} or "
            f"{name}-<commit sha>), so "
            "nothing was compared."
        )
        return None
    if choice.note:
        run.notes.append(choice.note[0].upper() + choice.note[1:])
    with _temporary_folder("goldgate-baseline-") as folder:
        archive = download_artifact(
            github, choice, folder, max_bytes=ARTIFACT_MAX_BYTES, deadline=deadline
        )
        files = extract_zip_safely(
            archive, folder / "files", max_bytes=ARTIFACT_MAX_BYTES, max_files=ARTIFACT_MAX_FILES
        )
        found = _first_report(files)
        if found is None or isinstance(found, str):
            why = f" ({found.rstrip('.')})" if found else ""
            run.notes.append(
                f"No baseline: the artifact {choice.name!r} holds no goldgate report{why}."
            )
            return None
        return _kept(found[0], now), found[1]


def _first_report(files: list[Path]) -> tuple[Path, Report] | str | None:
    """The first report of an artifact's files; else why its JSON files were refused (not
    a report, or one whose stored verdicts lie), or None."""
    from goldgate.report.io import read_report

    refused: str | None = None
    for path in sorted(files):
        if path.suffix == ".json":
            try:
                return path, read_report(path)
            except ReportRefusedError as error:
                refused = refused or str(error).removeprefix(f"{path}: ")
            except (GoldgateError, OSError, ValueError):
                continue
    return refused


def _kept(path: Path, now: datetime) -> Path:
    """A copy of the baseline report in the work folder, created afresh (never through a
    link), as reports are written."""
    from goldgate.report.io import ReportFile, unique_path

    target = ReportFile(unique_path(WORK_FOLDER, "baseline", now))
    try:
        target.write(path.read_bytes())
    except BaseException:
        target.discard()
        raise
    written, _ = target.publish()
    return written


class _DeadlinePassed(BaseException):
    """Raised by the SIGALRM handler when fetching the baseline overran its deadline (a
    BaseException, so that no ``except Exception`` in PyGithub or requests swallows it)."""


_ALARM_GRACE = 1.0
"""Seconds the alarm waits past the deadline: the download's own check says it better."""


@contextlib.contextmanager
def _alarm_after(seconds: float) -> Iterator[None]:
    """``_DeadlinePassed`` raised in the body once ``seconds`` have passed, whatever it is
    blocked on (an API answer that trickles, say); main thread only, elsewhere the per-request
    timeouts and the download's own deadline bound it."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(number: int, frame: object) -> None:
        raise _DeadlinePassed

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 0.01))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@contextlib.contextmanager
def _temporary_folder(prefix: str) -> Iterator[Path]:
    """A fresh temporary folder, removed on the way out whatever happens: a signal (SIGINT,
    SIGTERM, the deadline's SIGALRM) that arrives while it is being removed is held until it
    is gone, then acted on."""
    import signal

    folder = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield folder
    finally:
        with _signals_held() as held:
            shutil.rmtree(folder, ignore_errors=True)
        if signal.SIGALRM in held:
            raise _DeadlinePassed
        if held:
            raise KeyboardInterrupt


@contextlib.contextmanager
def _signals_held() -> Iterator[list[int]]:
    """SIGINT, SIGTERM and SIGALRM noted, not acted on, while the body runs (main thread
    only)."""
    import signal
    import threading

    held: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield held
        return
    numbers = (signal.SIGINT, signal.SIGTERM, signal.SIGALRM)

    def hold(number: int, _: object) -> None:
        held.append(number)

    previous = {number: signal.signal(number, hold) for number in numbers}
    try:
        yield held
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def _token(run: _Run) -> str:
    return _input(run.env, "github_token") or run.env.get("GITHUB_TOKEN", "").strip()


def _report(
    run: _Run,
    inputs: ActionInputs,
    event: GitHubEvent | None,
    report: Report,
    report_path: Path,
    comparison: Comparison | None,
    comparison_path: Path | None,
    run_code: int,
) -> int:
    """Render and publish; the step's exit code. The comment is posted before the summary is
    written, so that a signal during the post still shows in the summary (exit 130)."""
    from goldgate.github.comments import comment_budget, comment_length
    from goldgate.render import escape
    from goldgate.render.annotations import render_annotations
    from goldgate.render.compared import comparison_view
    from goldgate.render.junit import render_junit
    from goldgate.render.markdown import render_markdown
    from goldgate.render.view import build_view

    if run.interrupted:
        run_code = int(ExitCode.INTERRUPTED)
    view = comparison_view(comparison, report) if comparison is not None else None
    protected = [report_path, *([comparison_path] if comparison_path else [])]
    junit = inputs.junit  # empty input: no JUnit
    if junit is not None and not _written(run, junit, render_junit(report, view), protected):
        junit = None
    link_base = _link_base(run, event) if inputs.link_gold else None
    shown = str(report_path)
    options: dict[str, Any] = {
        "details": inputs.details,
        "link_base": link_base,
        "full_report": shown,
    }

    def preface() -> tuple[int, str]:
        code, rule = decide_exit(inputs.fail_on, run_code, comparison)
        return code, f"**goldgate: {rule}**\n\n" + "".join(
            f"> {escape.markdown(note, 1_000)}\n\n" for note in run.notes
        )

    code, head = preface()
    limit = comment_budget(inputs.comment_id) - comment_length(head)
    body = head + render_markdown(report, view, budget="comment", limit=limit, **options)
    comment_file = _comment(run, inputs, event, body, (report_path, comparison_path))
    if run.interrupted:
        run_code = int(ExitCode.INTERRUPTED)
        code, head = preface()
    summary = head + render_markdown(report, view, budget="summary", **options)
    markdown_path = WORK_FOLDER / "report.md"
    markdown_written = _written(run, markdown_path, summary, protected)
    _summary(run, summary)
    run.out(render_annotations(report, view))
    counts = build_view(report).counts
    outputs = {
        "exit_code": str(run_code),  # goldgate's own code, whatever fail_on says
        "report": shown,
        "comparison": str(comparison_path or ""),
        "junit": str(junit or ""),
        "markdown": str(markdown_path) if markdown_written else "",
        "comment_file": comment_file,
        "passed": str(counts["passed"]),
        "failed": str(counts["failure"]),
        "errors": str(counts["runtime"] + counts["check_error"]),
        # The comparison's one classification: the counts its summary and comment show.
        "improved": str(comparison.classes.improved if comparison else 0),
        "regressed": str(comparison.classes.regressions if comparison else 0),
        "flaky": str(comparison.classes.flaky if comparison else 0),
    }
    _write_outputs(run, outputs)
    return code


def _link_base(run: _Run, event: GitHubEvent | None) -> str | None:
    from goldgate.render.escape import check_link_base

    server = run.env.get("GITHUB_SERVER_URL", "https://github.com").strip().rstrip("/")
    repository = (event.repository if event else None) or run.env.get("GITHUB_REPOSITORY", "")
    sha = (event.head_sha if event and event.is_pull_request else None) or run.env.get(
        "GITHUB_SHA", ""
    )
    if not repository or not sha:
        return None
    try:
        return check_link_base(f"{server}/{repository}/blob/{sha}")
    except ValueError:
        return None


def _comment(
    run: _Run,
    inputs: ActionInputs,
    event: GitHubEvent | None,
    body: str,
    sources: tuple[Path, Path | None],
) -> str:
    """Post the sticky comment; the hand-off file's path when it fell back, else ''. The
    hand-off carries the report and comparison (``sources``) the comment is rendered from,
    never the body: the trusted job renders it again (``goldgate.app.forkcomment``)."""
    if inputs.comment == "off" or event is None or event.pr_number is None:
        return ""
    from goldgate.github.client import api_url, connect, repository
    from goldgate.github.comments import upsert_comment

    reason: str | None
    try:
        github = connect(_token(run), base_url=api_url(run.env), timeout=request_timeout(run.env))
        repo = repository(github, event.repository or run.env.get("GITHUB_REPOSITORY", ""))
        result = upsert_comment(
            repo,
            event.pr_number,
            body,
            instance_id=inputs.comment_id,
            mode=inputs.comment,  # type: ignore[arg-type]
        )
        reason = result.reason if result.fell_back else None
    except KeyboardInterrupt:
        _interrupted(run, "while the pull-request comment was posted")
        reason = "the step was interrupted while it was posted."
    except Exception as error:  # every GitHub failure is a warning, never a crash
        reason = describe_error(error)
    if reason is None:
        return ""
    from goldgate.app.forkcomment import file_names, handoff

    name, report_name, comparison_name = file_names(inputs.comment_id)
    path = Path(name)
    report_path, comparison_path = sources
    document = handoff(
        event.pr_number,
        event.head_sha,
        inputs.comment_id,
        inputs.details,
        inputs.link_gold,
        report_name,
        None if comparison_path is None else comparison_name,
    )
    from goldgate.base.outputs import OutputFileError, write_output_file

    try:
        # Byte for byte: the comparison names the report by the digest of its bytes.
        write_output_file(Path(report_name), report_path.read_bytes())
        if comparison_path is not None:
            write_output_file(Path(comparison_name), comparison_path.read_bytes())
        write_output_file(path, json.dumps(document, ensure_ascii=False, indent=1) + "\n")
    except (OSError, OutputFileError) as error:
        shown = os_reason(error) if isinstance(error, OSError) else str(error)
        run.warning(
            f"the pull-request comment was not posted ({reason}), nor handed off in {path} "
            f"({shown}); it is in the job summary."
        )
        return ""
    run.warning(
        f"the pull-request comment was not posted ({reason}); {path} and the report beside "
        "it are for a workflow_run job to render and post."
    )
    return str(path)


def _written(run: _Run, path: Path, text: str, protected: Sequence[Path]) -> bool:
    """Write a rendered file (``outputs.write_output_file``: never through a planted
    symlink, never over the report); one that cannot be written is a warning, and every
    other output and the ``fail_on`` decision are kept."""
    from goldgate.base.outputs import OutputFileError, write_output_file

    try:
        write_output_file(path, text, protected=protected)
    except OutputFileError as error:
        run.warning(f"{error}; the other outputs are kept.")
        return False
    return True


def _summary(run: _Run, markdown: str) -> None:
    from goldgate.github.envfiles import append_summary

    path = run.env.get("GITHUB_STEP_SUMMARY", "").strip()
    if not path:
        return
    try:
        append_summary(path, markdown, rest_in="the report file")
    except OSError as error:
        run.warning(f"the job summary could not be written: {os_reason(error)}.")


def _write_outputs(run: _Run, outputs: Mapping[str, str]) -> None:
    from goldgate.github.envfiles import write_outputs

    path = run.env.get("GITHUB_OUTPUT", "").strip()
    if not path:
        return
    try:
        write_outputs(path, outputs)
    except OSError as error:
        run.warning(f"the step's outputs could not be written: {os_reason(error)}.")
