"""A check run of its own (the Checks API): created ``in_progress`` before the run, then
completed with its conclusion, title, summary and every annotation.

The lessons of the reporters that publish one (EnricoMi's publish-unit-test-result-action
above all) are kept here: the run belongs on the pull request's head commit, never the merge
commit GitHub checks out (the caller passes ``pull_request.head.sha``); annotations go 50 to
a request (more is 422), the later ones in ``PATCH`` updates, which append, and the run is
completed only by the last of them, so that a run is never shown complete with half its
annotations; a run is never left ``in_progress`` by goldgate (the caller completes it as
``cancelled`` after a signal). The title, the summary and every annotation are the
renderer's (``render.checkrun``), escaped and bounded there.

Requests go through ``client.connect``'s retries, as every GitHub write of goldgate does; a
create that failed with 5xx is not posted again (it may exist: a second would be a second
entry in the checks). Whatever GitHub refuses (403 without ``checks: write``, a fork's
read-only token) raises ``GitHubUnavailable``, one sentence for the caller's warning.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Literal

from goldgate.github.client import reaching_github
from goldgate.render.checkrun import CheckAnnotation, batches

if TYPE_CHECKING:
    from github.Repository import Repository

Conclusion = Literal["success", "failure", "neutral", "cancelled"]


@dataclass(frozen=True)
class CheckRunOutput:
    """What a completed check run shows: its conclusion, title, summary (Markdown) and
    annotations (in the order they are sent)."""

    conclusion: Conclusion
    title: str
    summary: str
    annotations: tuple[CheckAnnotation, ...] = ()


def create_check_run(repo: Repository, *, name: str, head_sha: str, details_url: str | None) -> int:
    """Create the check run ``name`` on ``head_sha``, ``in_progress``; its id."""
    from github.GithubObject import NotSet

    with reaching_github(f"create the check run {name!r}"):
        created = repo.create_check_run(
            name,
            head_sha,
            status="in_progress",
            started_at=datetime.now(UTC),
            details_url=NotSet if details_url is None else details_url,
        )
        return int(created.id)


def complete_check_run(
    repo: Repository, check_run_id: int, output: CheckRunOutput, *, details_url: str | None
) -> int:
    """Send ``output``'s annotations 50 to a request, the last request completing the run
    with its conclusion; the number of requests sent."""
    from github.GithubObject import NotSet

    run = repo.get_check_run(check_run_id)  # lazy: no request
    parts = batches(output.annotations)
    for index, batch in enumerate(parts, start=1):
        body = {
            "title": output.title,
            "summary": output.summary,
            "annotations": [annotation.json() for annotation in batch],
        }
        last = index == len(parts)
        with reaching_github(f"update the check run {check_run_id} ({index} of {len(parts)})"):
            if not last:
                run.edit(output=body)
                continue
            run.edit(
                status="completed",
                conclusion=output.conclusion,
                completed_at=datetime.now(UTC),
                output=body,
                details_url=NotSet if details_url is None else details_url,
            )
    return len(parts)
