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
import re
import sys
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from goldgate.errors import ExitCode, GoldgateError, InvalidInputError

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

HIDDEN_FROM_TARGETS = (
    "GITHUB_TOKEN",
    "INPUT_GITHUB_TOKEN",
    "ACTIONS_RUNTIME_TOKEN",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
)
"""Tokens the runner or the workflow hands the action that a target must never see."""

COMMENT_FILE = "goldgate-comment-{id}.json"
"""Where a comment that could not be posted goes (``id``: the comment id, made safe for a
file name, so that two goldgate steps of one job do not overwrite each other's)."""
WORK_FOLDER = Path(".goldgate") / "action"
ARTIFACT_MAX_BYTES = 200 * 1024 * 1024
ARTIFACT_MAX_FILES = 1_000
PASSTHROUGH_CODES = frozenset({ExitCode.INVALID_INPUT, ExitCode.INTERRUPTED})


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
    from goldgate.execution.runner import MAX_REPEAT, MAX_TIMEOUT

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
    (``goldgate.supervisor``); its exit code is the run's."""
    from goldgate.supervisor import run_child

    env = target_environ(run.env)
    env.pop(TOKENS_FD, None)
    return run_child([*goldgate_command(), *arguments], env)


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
        if comparison.regressions:
            return 1, "fail_on regression: exit 1, since an attempt regressed against the baseline."
        return 0, "fail_on regression: exit 0, since no attempt regressed against the baseline."
    return run_code, f"fail_on disagreement: exit {run_code}, the run's own exit code."


def credential_names(config: Path) -> list[str]:
    """The environment variables every live workflow of the settings names as credentials
    (none when the settings cannot be read: the run will say why)."""
    from goldgate.settings.load import load_settings

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

    def command(self, line: str) -> None:
        self.out(line if line.endswith("\n") else line + "\n")

    def warning(self, message: str) -> None:
        from goldgate.github.workflow import escape_data
        from goldgate.textsafe import escape_control

        self.command(f"::warning title=goldgate::{escape_data(escape_control(message))}")


def _print(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def run_action(env: Mapping[str, str] | None = None, out: Callable[[str], None] = _print) -> int:
    """Run the action as the environment says; the step's exit code."""
    environ = dict(os.environ if env is None else env)
    run = _Run(environ, out)
    try:
        inputs = read_inputs(environ)
    except InvalidInputError as error:
        run.command(f"::error title=goldgate::{error}")
        _write_outputs(run, {"exit_code": str(int(ExitCode.INVALID_INPUT))})
        return int(ExitCode.INVALID_INPUT)
    _mask(run, inputs)
    if inputs.mode == "check":
        from goldgate.commands import check_gold_command

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
    from goldgate.commands import ReplayRequest, replay_evaluation
    from goldgate.report.io import unique_path

    report_path = unique_path(WORK_FOLDER, "replay", datetime.now(UTC))
    request = ReplayRequest(report=saved, config=inputs.config, output=report_path)
    run_code = _guarded(lambda: replay_evaluation(request))
    return _conclude(run, inputs, _event(run), report_path, run_code)


def _guarded(call: Callable[[], ExitCode]) -> int:
    try:
        return int(call())
    except GoldgateError as error:
        from goldgate.stdio import warn

        warn(f"goldgate: {error}")
        return int(error.exit_code)
    except KeyboardInterrupt:
        return int(ExitCode.INTERRUPTED)


def _mask(run: _Run, inputs: ActionInputs) -> None:
    from goldgate.github.workflow import add_mask

    values = [inputs.github_token] + [
        run.env.get(name, "") for name in credential_names(inputs.config)
    ]
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
    run_code = _run_user_code(run, arguments)
    return _conclude(run, inputs, event, report_path, run_code)


def _conclude(
    run: _Run, inputs: ActionInputs, event: GitHubEvent | None, report_path: Path, run_code: int
) -> int:
    """From a report on disk (just run, replayed, or given): compare with the baseline, render
    and publish, and decide the step's exit code under fail_on. Mode compare and mode report
    take the run's exit code from the report's own verdict."""
    from goldgate.report.io import read_report

    now = datetime.now(UTC)
    report: Report | None = None
    if report_path.is_file():
        with contextlib.suppress(GoldgateError, OSError, ValueError):
            report = read_report(report_path)
    if report is None:
        code, rule = decide_exit(inputs.fail_on, run_code, None)
        _summary(run, f"**goldgate: {rule}** The run wrote no report (exit {run_code}).\n")
        _write_outputs(run, {"exit_code": str(code)})
        return code
    if inputs.mode in ("compare", "report"):
        run_code = report.verdict.exit_code
    comparison, comparison_path = _compare(run, inputs, event, report_path, now)
    code, rule = decide_exit(inputs.fail_on, run_code, comparison)
    _report(run, inputs, event, report, report_path, comparison, comparison_path, code, rule)
    return code


def _compare(
    run: _Run,
    inputs: ActionInputs,
    event: GitHubEvent | None,
    report_path: Path,
    now: datetime,
) -> tuple[Comparison | None, Path | None]:
    from goldgate.comparison import compare, write_comparison
    from goldgate.report.io import unique_path

    if inputs.baseline is None:
        run.notes.append("No baseline was configured, so nothing was compared.")
        return None, None
    baseline = _baseline(run, inputs.baseline, event)
    if baseline is None:
        return None, None
    try:
        comparison = compare(report_path, baseline, partial=inputs.partial, now=now)
    except GoldgateError as error:
        run.warning(f"the baseline could not be compared: {error}")
        run.notes.append(f"No comparison: the baseline could not be compared ({error}).")
        return None, None
    written, fallback = write_comparison(comparison, unique_path(WORK_FOLDER, "comparison", now))
    if fallback:
        run.warning(f"{fallback}; the comparison was written to {written} instead.")
    return comparison, written


def _baseline(run: _Run, source: str, event: GitHubEvent | None) -> Path | None:
    if not source.startswith("artifact:"):
        path = Path(source)
        if path.is_file():
            return path
        run.notes.append(f"No baseline: {source} is not a file, so nothing was compared.")
        return None
    name = source.removeprefix("artifact:").strip()
    if event is None or not event.is_pull_request or not event.base_sha or not event.head_sha:
        run.notes.append(
            "No baseline: this run is not for a pull request, so nothing was compared."
        )
        return None
    try:
        return _download_baseline(run, name, event)
    except GoldgateError as error:
        run.warning(f"the baseline artifact could not be used: {error}")
    except Exception as error:  # every GitHub failure is a warning, never a crash
        reason = getattr(error, "reason", None) or str(error) or type(error).__name__
        run.warning(f"the baseline artifact {name!r} could not be used: {reason}")
    run.notes.append(
        f"No baseline: the artifact {name!r} could not be used, so nothing was compared."
    )
    return None


def _download_baseline(run: _Run, name: str, event: GitHubEvent) -> Path | None:
    from goldgate.github.artifacts import (
        download_artifact,
        extract_zip_safely,
        find_baseline_artifact,
        merge_base,
    )
    from goldgate.github.client import api_url, connect, repository
    from goldgate.report.io import read_report

    assert event.base_sha is not None
    assert event.head_sha is not None
    github = connect(_token(run), base_url=api_url(run.env))
    repo = repository(github, event.repository or run.env.get("GITHUB_REPOSITORY", ""))
    base = merge_base(repo, event.base_sha, event.head_sha)
    branch = event.base_ref or event.default_branch or ""
    # The baseline workflow names its artifact per commit (NAME-<sha>); an artifact named
    # NAME alone is found by its run's commit instead, with the base branch as a fallback.
    choice = find_baseline_artifact(repo, f"{name}-{base}", base, branch) or (
        find_baseline_artifact(repo, name, base, branch)
    )
    if choice is None:
        run.notes.append(
            f"No baseline: no artifact {name!r} was found for the merge-base commit "
            f"{base[:7]}, so nothing was compared."
        )
        return None
    if choice.note:
        run.notes.append(choice.note[0].upper() + choice.note[1:])
    folder = Path(tempfile.mkdtemp(prefix="goldgate-baseline-"))
    archive = download_artifact(github, choice, folder, max_bytes=ARTIFACT_MAX_BYTES)
    files = extract_zip_safely(
        archive, folder / "files", max_bytes=ARTIFACT_MAX_BYTES, max_files=ARTIFACT_MAX_FILES
    )
    for path in sorted(files):
        if path.suffix == ".json":
            with contextlib.suppress(GoldgateError, OSError, ValueError):
                read_report(path)
                return path
    run.notes.append(f"No baseline: the artifact {name!r} holds no goldgate report.")
    return None


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
    code: int,
    rule: str,
) -> None:
    from goldgate.github.comments import comment_budget, comment_length
    from goldgate.render import escape
    from goldgate.render.annotations import render_annotations
    from goldgate.render.compared import comparison_view
    from goldgate.render.junit import render_junit
    from goldgate.render.markdown import render_markdown
    from goldgate.render.view import build_view

    view = comparison_view(comparison, report) if comparison is not None else None
    if inputs.junit is not None:  # empty input: no JUnit
        inputs.junit.parent.mkdir(parents=True, exist_ok=True)
        inputs.junit.write_text(render_junit(report, view), encoding="utf-8")
    link_base = _link_base(run, event) if inputs.link_gold else None
    shown = str(report_path)
    preface = f"**goldgate: {rule}**\n\n" + "".join(
        f"> {escape.markdown(note, 1_000)}\n\n" for note in run.notes
    )
    options: dict[str, Any] = {
        "details": inputs.details,
        "link_base": link_base,
        "full_report": shown,
    }
    summary = render_markdown(report, view, budget="summary", **options)
    markdown_path = WORK_FOLDER / "report.md"
    markdown_path.parent.mkdir(parents=True, exist_ok=True)
    markdown_path.write_text(preface + summary, encoding="utf-8")
    _summary(run, preface + summary)
    limit = comment_budget(inputs.comment_id) - comment_length(preface)
    body = preface + render_markdown(report, view, budget="comment", limit=limit, **options)
    comment_file = _comment(run, inputs, event, body)
    run.out(render_annotations(report, view))
    counts = build_view(report).counts
    outputs = {
        "exit_code": str(code),
        "report": shown,
        "comparison": str(comparison_path or ""),
        "junit": str(inputs.junit or ""),
        "markdown": str(markdown_path),
        "comment_file": comment_file,
        "passed": str(counts["passed"]),
        "failed": str(counts["failure"]),
        "errors": str(counts["runtime"] + counts["check_error"]),
        "improved": str(comparison.overall.attempts.improved if comparison else 0),
        "regressed": str(
            comparison.overall.attempts.regressed + comparison.overall.attempts.mixed
            if comparison
            else 0
        ),
        "flaky": str(len(view.flaky) if view else 0),
    }
    _write_outputs(run, outputs)


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


def _comment(run: _Run, inputs: ActionInputs, event: GitHubEvent | None, body: str) -> str:
    """Post the sticky comment; the comment file's path when it fell back, else ''."""
    if inputs.comment == "off" or event is None or event.pr_number is None:
        return ""
    from goldgate.github.client import api_url, connect, repository
    from goldgate.github.comments import upsert_comment

    reason: str | None
    try:
        github = connect(_token(run), base_url=api_url(run.env))
        repo = repository(github, event.repository or run.env.get("GITHUB_REPOSITORY", ""))
        result = upsert_comment(
            repo,
            event.pr_number,
            body,
            instance_id=inputs.comment_id,
            mode=inputs.comment,  # type: ignore[arg-type]
        )
        reason = result.reason if result.fell_back else None
    except Exception as error:  # every GitHub failure is a warning, never a crash
        reason = getattr(error, "reason", None) or str(error) or type(error).__name__
    if reason is None:
        return ""
    path = Path(COMMENT_FILE.format(id=re.sub(r"[^A-Za-z0-9_.-]+", "_", inputs.comment_id)))
    from goldgate.github.comments import with_marker

    handoff = {
        "pull_request": event.pr_number,
        "head_sha": event.head_sha,
        "comment_id": inputs.comment_id,
        "body": with_marker(body, inputs.comment_id),
    }
    try:
        _write_new(path, json.dumps(handoff, ensure_ascii=False, indent=1) + "\n")
    except OSError as error:
        run.warning(
            f"the pull-request comment was not posted ({reason}), nor written to {path} "
            f"({error.strerror or error}); it is in the job summary."
        )
        return ""
    run.warning(
        f"the pull-request comment was not posted ({reason}); its body is in {path} for a "
        "workflow_run job to post."
    )
    return str(path)


def _write_new(path: Path, text: str) -> None:
    """Write ``path`` afresh: whatever was there (in a pull request's checkout, perhaps a
    planted symlink) is removed first, and the file is created, never followed."""
    path.unlink(missing_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    with os.fdopen(os.open(path, flags, 0o644), "w", encoding="utf-8") as handle:
        handle.write(text)


def _summary(run: _Run, markdown: str) -> None:
    from goldgate.github.workflow import append_summary

    path = run.env.get("GITHUB_STEP_SUMMARY", "").strip()
    if not path:
        return
    try:
        append_summary(path, markdown, rest_in="the report file")
    except OSError as error:
        run.warning(f"the job summary could not be written: {error.strerror or error}.")


def _write_outputs(run: _Run, outputs: Mapping[str, str]) -> None:
    from goldgate.github.workflow import write_outputs

    path = run.env.get("GITHUB_OUTPUT", "").strip()
    if not path:
        return
    try:
        write_outputs(path, outputs)
    except OSError as error:
        run.warning(f"the step's outputs could not be written: {error.strerror or error}.")
