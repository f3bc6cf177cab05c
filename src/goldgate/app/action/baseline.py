"""The baseline a report is compared with: a report file, or the artifact of the merge-base
commit (or the base branch's newest, with a note).

``find_baseline`` never raises for GitHub: every failure is a ``::warning::`` and a note,
and the run goes on without a comparison. The download runs within
``inputs.baseline_deadline`` (a SIGALRM ends one blocked on an answer that trickles), in a
temporary folder removed whatever happens; the report found is copied into the work folder,
so that the comparison names a file that stays. A baseline whose stored verdicts lie is
refused (``StepRun.failure``): nothing it says is trusted.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from goldgate.app.action.inputs import (
    ActionInputs,
    baseline_deadline,
    github_token,
    request_timeout,
)
from goldgate.app.action.step import WORK_FOLDER, StepRun
from goldgate.base.errors import GoldgateError, ReportRefusedError
from goldgate.github.client import describe_error

if TYPE_CHECKING:
    from goldgate.app.action.verifying import Handed
    from goldgate.app.renderpass import BaselineRead
    from goldgate.github.event import GitHubEvent
    from goldgate.report.models import Report

ARTIFACT_MAX_BYTES = 200 * 1024 * 1024
ARTIFACT_MAX_FILES = 1_000


def read_baseline(
    path: Path,
    stack: contextlib.ExitStack[bool | None] | None,
    verify: bool = True,
    handed: Callable[[Path], Handed | None] | None = None,
) -> BaselineRead:
    """The baseline report at ``path``, verified a case at a time, with its latencies; with
    ``stack``, also its comparison's index from the same scan, the file kept open (for the
    comparison's reading of its cases) until ``stack`` closes. Without ``verify``: scanned
    for a caller that has it verified meanwhile (``verifying``), or streamed from the scan
    ``handed`` gives where it gives one."""
    from goldgate.app.renderpass import opened_baseline, read_with_latencies

    if stack is None:
        return read_with_latencies(path)
    return stack.enter_context(opened_baseline(path, verify=verify, handed=handed))


def find_baseline(
    run: StepRun,
    source: str,
    event: GitHubEvent | None,
    now: datetime,
    *,
    stack: contextlib.ExitStack[bool | None] | None = None,
    verify: bool = True,
    handed: Callable[[Path], Handed | None] | None = None,
) -> BaselineRead | None:
    """The baseline (see the module's description); with ``stack``, open for its
    comparison until ``stack`` closes, and a file without ``verify`` only scanned, or
    streamed from a helper's scan (``handed``: ``read_baseline``)."""
    if not source.startswith("artifact:"):
        path = Path(source)
        if not path.is_file():
            run.notes.append(f"No baseline: {source} is not a file, so nothing was compared.")
            return None
        try:
            found = read_baseline(path, stack, verify, handed)
        except ReportRefusedError as error:  # a baseline that lies is no baseline: refused
            run.failure = f"the baseline was refused: {error}"
            return None
        except (GoldgateError, OSError, ValueError) as error:
            run.warning(f"baseline not compared: {describe_error(error)}")
            run.notes.append(f"Baseline not compared: {describe_error(error)}")
            return None
        run.baseline = source
        return found
    name = source.removeprefix("artifact:").strip()
    if event is None or not event.is_pull_request or not event.base_sha or not event.head_sha:
        run.notes.append(
            "No baseline: this run is not for a pull request, so nothing was compared."
        )
        return None
    seconds = baseline_deadline(run.env)
    try:
        with _alarm_after(seconds + _ALARM_GRACE):
            deadline = time.monotonic() + seconds
            return _download_baseline(run, name, event, now, (deadline, stack))
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
    run: StepRun,
    name: str,
    event: GitHubEvent,
    now: datetime,
    until: tuple[float, contextlib.ExitStack[bool | None] | None],
) -> BaselineRead | None:
    """The merge-base commit's baseline (or the base branch's newest, with a note), fetched
    within ``baseline_deadline`` into a temporary folder that is removed whatever happens,
    and copied into the work folder: the comparison names a file that stays (the one read
    may stay open in ``until``'s stack: its handle outlives the folder)."""
    deadline, stack = until
    from goldgate.github.archive import extract_zip_safely
    from goldgate.github.artifacts import find_baseline_artifact, merge_base
    from goldgate.github.client import api_url, connect, repository
    from goldgate.github.download import download_artifact, remaining

    assert event.base_sha is not None
    assert event.head_sha is not None
    what = f"fetch the baseline artifact {name!r}"
    github = connect(
        github_token(run.env),
        base_url=api_url(run.env),
        timeout=max(1, min(request_timeout(run.env), int(remaining(deadline, what)))),
    )
    repo = repository(github, event.repository or run.env.get("GITHUB_REPOSITORY", ""))
    base = merge_base(repo, event.base_sha, event.head_sha)
    branch = event.base_ref or event.default_branch or ""
    remaining(deadline, what)
    choice = find_baseline_artifact(repo, name=name, merge_base_sha=base, base_branch=branch)
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
        found = _first_report(files, stack)
        if found is None or isinstance(found, str):
            why = f" ({found.rstrip('.')})" if found else ""
            run.notes.append(
                f"No baseline: the artifact {choice.name!r} holds no goldgate report{why}."
            )
            return None
        run.baseline = f"{choice.head_branch or branch or 'the base branch'}@{choice.head_sha[:7]}"
        return replace(found, path=_kept(found.path, now))


def _first_report(
    files: list[Path], stack: contextlib.ExitStack[bool | None] | None
) -> BaselineRead | str | None:
    """The first report of an artifact's files; else why its JSON files were refused (not
    a report, or one whose stored verdicts lie), or None."""
    refused: str | None = None
    for path in sorted(files):
        if path.suffix == ".json":
            try:
                return read_baseline(path, stack)
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


# Private control flow that never leaves this module: outside GoldgateError on purpose
# (tests/test_layout.py lists it).
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


REPLAY_BASELINE = WORK_FOLDER / "replay-baseline.json"
"""Where ``fetch_replay_baseline`` (the step with the token, before user code runs) leaves
the baseline's report for mode replay without the input report."""


def fetch_replay_baseline(run: StepRun, inputs: ActionInputs, event: GitHubEvent | None) -> None:
    """Mode replay without the input report, in a step that holds the token and runs no user
    code: the baseline's report fetched (``find_baseline``) into ``REPLAY_BASELINE`` for the
    run step, which has no token, to replay. What was there before is removed first; a
    baseline that cannot be had leaves nothing (the run step says so)."""
    from goldgate.base.errors import OutputFileError
    from goldgate.base.outputs import write_output_file

    with contextlib.suppress(OSError):
        REPLAY_BASELINE.unlink(missing_ok=True)
    if inputs.mode != "replay" or inputs.report is not None or inputs.baseline is None:
        return
    found = find_baseline(run, inputs.baseline, event, datetime.now(UTC))
    if found is None:
        return
    try:
        write_output_file(REPLAY_BASELINE, found.path.read_bytes())
    except (OSError, OutputFileError) as error:
        run.warning(f"the baseline to replay could not be kept: {describe_error(error)}")


def replay_source(
    run: StepRun, inputs: ActionInputs, event: GitHubEvent | None, now: datetime
) -> Path | None:
    """The baseline's report to replay (mode replay without the input report): where the
    step has no token, the one ``fetch_replay_baseline`` left; else found as compare finds
    it. None, with a note, when there is none."""
    if inputs.baseline is None:
        run.notes.append("No baseline is configured.")
        return None
    fetched = REPLAY_BASELINE.is_file() and not REPLAY_BASELINE.is_symlink()
    if fetched and not github_token(run.env) and inputs.baseline.startswith("artifact:"):
        return REPLAY_BASELINE
    found = find_baseline(run, inputs.baseline, event, now)
    return None if found is None else found.path


def replayed_other_report(report: Report, baseline: Path) -> str | None:
    """Why ``report`` is not a replay of the baseline at ``baseline`` (mode replay without
    the input report: the run step, where user code runs, could have replayed anything);
    None when it is."""
    from goldgate.report.digests import bytes_digest

    replayed = report.replay_of
    try:
        digest = bytes_digest(baseline.read_bytes())
    except OSError as error:
        return f"the baseline {baseline} could not be read again ({error.strerror or error})"
    if replayed is None or replayed.digest != digest:
        return "the replayed report is not a replay of the baseline's report"
    return None
