"""The action's check run (input ``check_run``): created before the run, completed when the
step publishes, never left ``in_progress``.

``start`` creates it ``in_progress`` on the pull request's head commit (the event's
``pull_request.head.sha``; ``GITHUB_SHA`` is the merge commit), named after the comment id
(``goldgate``; ``goldgate-live`` as ``goldgate (live)``), before any user code: the
composite action's prepare step does it (``split.prepare_only``), the Docker action's one
process before its mode runs.
``finish`` completes it from what the publishing step rendered; ``abandon`` completes one
that a run left behind (the run step was cancelled or failed before its hand-off) or that a
signal stopped the publishing of.

Every fault is a warning, never a lost verdict: no ``checks: write`` (the default token, a
fork's read-only token), a refused or timed-out request (after the client's retries); the
comment, summary, JUnit and outputs are published as without the check run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from goldgate.app.action.inputs import ActionInputs, github_token, request_timeout
from goldgate.app.action.step import StepRun, note_interrupted, run_url
from goldgate.github.client import describe_error

if TYPE_CHECKING:
    from github.Repository import Repository

    from goldgate.github.checkruns import CheckRunOutput, Conclusion
    from goldgate.github.event import GitHubEvent

ID_VARIABLE = "GOLDGATE_CHECK_RUN_ID"
"""The publishing step's copy of the prepare step's output ``check_run_id``."""
RUN_OUTCOME_VARIABLE = "GOLDGATE_RUN_OUTCOME"
"""The run step's outcome (``steps.run.outcome``), for a run step that left no hand-off."""


def _repository(run: StepRun, event: GitHubEvent | None) -> Repository:
    from goldgate.github.client import api_url, connect, repository

    token = github_token(run.env)
    github = connect(token, base_url=api_url(run.env), timeout=request_timeout(run.env))
    name = (event.repository if event else None) or run.env.get("GITHUB_REPOSITORY", "")
    return repository(github, name)


def check_run_name(comment_id: str) -> str:
    """The check run's name, after the comment id: ``goldgate`` as it is, ``goldgate-live``
    as ``goldgate (live)``; any other id as it is."""
    prefix, dash, rest = comment_id.partition("-")
    if prefix == "goldgate" and dash and rest:
        return f"goldgate ({rest})"
    return comment_id


def head_commit(run: StepRun, event: GitHubEvent | None) -> str | None:
    """The commit the check run belongs on: a pull request's head, else ``GITHUB_SHA``."""
    if event is not None and event.is_pull_request:
        return event.head_sha
    return run.env.get("GITHUB_SHA", "").strip() or None


def start(run: StepRun, inputs: ActionInputs, event: GitHubEvent | None) -> int | None:
    """Create the step's check run ``in_progress`` (``inputs.check_run``); its id, kept in
    ``run.check_run``, or None (a warning says why)."""
    if not inputs.check_run:
        return None
    from goldgate.github.checkruns import create_check_run

    sha = head_commit(run, event)
    if sha is None:
        run.warning("no check run: the event names no commit to attach it to.")
        return None
    try:
        created = create_check_run(
            _repository(run, event),
            name=check_run_name(inputs.comment_id),
            head_sha=sha,
            details_url=run_url(run.env),
        )
    except KeyboardInterrupt:
        note_interrupted(run, "while the check run was created")
        return None
    except Exception as error:  # every GitHub failure is a warning, never a crash
        run.warning(
            f"no check run ({describe_error(error).rstrip('.')}); it needs the permission "
            "checks: write. The comment, summary, JUnit and annotations are published as "
            "without it."
        )
        return None
    run.check_run = created
    return created


def given(run: StepRun) -> int | None:
    """The id the prepare step created (``GOLDGATE_CHECK_RUN_ID``), kept in
    ``run.check_run``; None when there is none."""
    value = run.env.get(ID_VARIABLE, "").strip()
    run.check_run = int(value) if value.isdigit() and 0 < int(value) < 2**63 else None
    return run.check_run


def finish(run: StepRun, event: GitHubEvent | None, output: CheckRunOutput) -> None:
    """Complete the check run with ``output``, if there is one; a warning when GitHub says
    no. A signal while it is sent completes it as ``cancelled`` (later signals are held)."""
    if run.check_run is None:
        return
    from dataclasses import replace

    try:
        _send(run, event, output)
    except KeyboardInterrupt:
        note_interrupted(run, "while the check run was completed")
        try:
            _send(run, event, replace(output, conclusion="cancelled", annotations=()))
        except Exception as error:
            run.warning(f"the check run was not completed: {describe_error(error)}")
    except Exception as error:  # every GitHub failure is a warning, never a crash
        run.warning(f"the check run was not completed: {describe_error(error)}")
    run.check_run = None


def _send(run: StepRun, event: GitHubEvent | None, output: CheckRunOutput) -> None:
    from goldgate.github.checkruns import complete_check_run

    assert run.check_run is not None
    complete_check_run(_repository(run, event), run.check_run, output, details_url=run_url(run.env))


def abandon(run: StepRun, event: GitHubEvent | None, why: str, conclusion: Conclusion) -> None:
    """Complete a check run nothing will publish into with ``conclusion`` and ``why``
    (Markdown) as its summary, its heading, if it has one, as its title."""
    from goldgate.github.checkruns import CheckRunOutput
    from goldgate.render.checkrun import check_summary, check_title

    finish(run, event, CheckRunOutput(conclusion, check_title(why), check_summary(why)))


def settled(run: StepRun, code: int) -> None:
    """Complete the check run of a step that ended with exit code ``code`` and no report to
    publish (mode check, a refused input, a run that wrote none): ``success`` for 0,
    ``cancelled`` for 130, else ``failure``."""
    from goldgate.base.errors import ExitCode

    conclusion: Conclusion = "success" if code == 0 else "failure"
    if code == ExitCode.INTERRUPTED:
        conclusion = "cancelled"
    abandon(run, None, f"goldgate ended with exit code {code}; nothing was published.", conclusion)
