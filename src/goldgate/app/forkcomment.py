"""The fork hand-off: what a pull request's run leaves for a trusted ``workflow_run`` job to
post, and how that job rebuilds the comment from it.

A run on a fork's pull request has a read-only token, so it cannot comment; it writes
``goldgate-comment-<id>.json`` beside a copy of its report (and comparison) instead. That
run executes the pull request's own workflow, so whatever it leaves is the fork's to write:
the trusted job never posts a body from it. ``goldgate report fork-comment`` reads the
hand-off as data, renders the comment from the attached report with goldgate's own Markdown
renderer (so data is escaped, mentions and HTML are broken, and the verdict is the one the
report's attempts give), and links gold at the commit the triggering run ran on, as the
event (not the file) says. The pull request number in the hand-off is only a claim: the
posting script checks it against the event's pull requests and head commit.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from goldgate.app.action.inputs import FAIL_ON, FailOn
from goldgate.app.conclude import note_project_secrets
from goldgate.base.errors import ExitCode, InvalidInputError
from goldgate.base.files import read_regular_file
from goldgate.base.memory import collections_paused
from goldgate.base.problems import display_path
from goldgate.base.stdio import write_stdout
from goldgate.base.textsafe import quote, refuse_control
from goldgate.render.registry import DETAILS, Details

if TYPE_CHECKING:
    from goldgate.app.renderpass import RenderPass
    from goldgate.comparison.models import Comparison
    from goldgate.render.registry import RenderContext
    from goldgate.report.models import Report

FORMAT: Final = "goldgate.fork-comment/1"
HANDOFF_GLOB: Final = "goldgate-comment-*.json"
HANDOFF_LIMIT: Final = 64 * 1024
"""Bytes of a hand-off file: a few fields and two file names."""
COMMENT_ID_LIMIT: Final = 200
"""Characters of a comment id: its marker must leave the body room."""
_FIELDS: Final = frozenset(
    {
        "format",
        "pull_request",
        "head_sha",
        "comment_id",
        "details",
        "link_gold",
        "report",
        "comparison",
        "check_run",
        "fail_on",
    }
)
_SHA: Final = re.compile(r"[0-9a-f]{40}")
_FILE_NAME: Final = re.compile(r"goldgate-comment-[A-Za-z0-9_.-]+\.json")
_REPOSITORY: Final = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
PREFACE: Final = (
    "Posted by this repository's workflow from the report that the pull request's own run "
    "left; that run ran the pull request's code."
)
"""The note under the verdict of a comment rebuilt here."""


def file_names(comment_id: str) -> tuple[str, str, str]:
    """The hand-off, report and comparison file names for ``comment_id`` (safe for a file)."""
    stem = "goldgate-comment-" + re.sub(r"[^A-Za-z0-9_.-]+", "_", comment_id)
    return f"{stem}.json", f"{stem}.report.json", f"{stem}.comparison.json"


def handoff(
    pull_request: int,
    *,
    head_sha: str | None,
    comment_id: str,
    details: Details,
    link_gold: bool,
    report: str,
    comparison: str | None,
    check_run: FailOn | None = None,
) -> dict[str, Any]:
    """The hand-off document the action writes (file names are relative to its folder);
    ``check_run``, the step's ``fail_on`` when it asked for a check run (None: it did not),
    lets the trusted job create that check run too."""
    return {
        "format": FORMAT,
        "pull_request": pull_request,
        "head_sha": head_sha,
        "comment_id": comment_id,
        "details": details,
        "link_gold": link_gold,
        "report": report,
        "comparison": comparison,
        "check_run": check_run is not None,
        "fail_on": check_run or FAIL_ON[0],
    }


@dataclass(frozen=True)
class Handoff:
    source: str
    pull_request: int
    head_sha: str
    comment_id: str
    details: Details
    link_gold: bool
    report: Path
    comparison: Path | None
    check_run: bool = False
    fail_on: FailOn = "disagreement"


def _refuse(source: str, why: str) -> InvalidInputError:
    return InvalidInputError(f"{source}: {why}; nothing is posted from it.")


def find_handoff(folder: Path) -> Path:
    """The one hand-off file in ``folder`` (the downloaded artifact)."""
    shown = str(folder)
    if not folder.is_dir():
        raise InvalidInputError(f"{shown}: not a folder (the downloaded comment artifact).")
    found = sorted(
        path
        for path in folder.glob(HANDOFF_GLOB)
        if not path.name.endswith((".report.json", ".comparison.json"))
    )
    if len(found) != 1:
        raise _refuse(shown, f"expected one goldgate-comment-*.json file, found {len(found)}")
    return found[0]


def _attached(folder: Path, *, source: str, value: Any, key: str, optional: bool) -> Path | None:
    if value is None and optional:
        return None
    if not isinstance(value, str) or not _FILE_NAME.fullmatch(value):
        raise _refuse(source, f"'{key}' is not the name of a goldgate-comment-*.json file")
    return folder / value


def read_handoff(path: Path, head_sha: str) -> Handoff:
    """The hand-off at ``path``, checked field by field; refused (``InvalidInputError``)
    unless it is one goldgate writes and is for the commit ``head_sha`` (the event's)."""
    source = str(path)
    data = read_regular_file(path, source, what="a comment hand-off")
    if len(data) > HANDOFF_LIMIT:
        raise _refuse(source, f"larger than {HANDOFF_LIMIT:,} bytes")
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise _refuse(source, "not JSON") from None
    if not isinstance(value, dict) or value.get("format") != FORMAT:
        raise _refuse(source, f"not a goldgate fork hand-off (format {FORMAT})")
    unknown = sorted(set(value) - _FIELDS)
    if unknown:
        raise _refuse(source, f"unknown field {quote(unknown[0])}")
    number = value.get("pull_request")
    if isinstance(number, bool) or not isinstance(number, int) or number < 1:
        raise _refuse(source, "'pull_request' is not a pull request number")
    if not _SHA.fullmatch(head_sha):
        raise InvalidInputError(f"--head-sha {quote(head_sha)} is not a 40-digit commit id.")
    if value.get("head_sha") != head_sha:
        raise _refuse(
            source,
            f"it was written for commit {quote(value.get('head_sha'))}, "
            f"not {head_sha}, the one the triggering run ran on",
        )
    comment_id = value.get("comment_id")
    try:
        if not isinstance(comment_id, str) or not comment_id.strip():
            raise ValueError("must be a nonempty string")
        if len(comment_id) > COMMENT_ID_LIMIT:
            raise ValueError(f"must be at most {COMMENT_ID_LIMIT} characters")
        refuse_control(comment_id)
    except ValueError as error:
        raise _refuse(source, f"'comment_id' {error}") from None
    details = next((known for known in DETAILS if known == value.get("details")), None)
    if details is None:
        raise _refuse(source, "'details' is neither safe nor values")
    link_gold = value.get("link_gold")
    if not isinstance(link_gold, bool):
        raise _refuse(source, "'link_gold' is not true or false")
    check_run = value.get("check_run", False)
    if not isinstance(check_run, bool):
        raise _refuse(source, "'check_run' is not true or false")
    fail_on = next((known for known in FAIL_ON if known == value.get("fail_on", FAIL_ON[0])), None)
    if fail_on is None:
        raise _refuse(source, f"'fail_on' is not one of {', '.join(FAIL_ON)}")
    folder = path.parent
    report = _attached(
        folder, source=source, value=value.get("report"), key="report", optional=False
    )
    assert report is not None
    comparison = _attached(
        folder, source=source, value=value.get("comparison"), key="comparison", optional=True
    )
    return Handoff(
        source,
        number,
        head_sha,
        comment_id,
        details,
        link_gold,
        report,
        comparison,
        check_run=check_run,
        fail_on=fail_on,
    )


def rebuild_comment(
    folder: Path,
    head_sha: str,
    *,
    repository: str | None = None,
    server_url: str | None = None,
    details: Details = "safe",
) -> dict[str, Any]:
    """The comment to post for the hand-off in ``folder``: its claimed pull request, the
    head commit and comment id, and the marked body rendered here from the attached report
    (and comparison). Gold links point at ``server_url``/``repository`` at ``head_sha``.
    Values are shown only when both ``details`` (the trusted job's choice) and the hand-off
    say ``values``: a fork's run cannot widen what the comment shows."""
    from goldgate.app.render import verified_comparison
    from goldgate.app.renderpass import PassRequest, render_pass
    from goldgate.render.escape import check_link_base
    from goldgate.report.streamread import streamed_report

    found = read_handoff(find_handoff(folder), head_sha)
    # Recomputed and checked like any report: a fork's run wrote it. Read as a stream: its
    # cases are read once, for the comment and the check run.
    with streamed_report(found.report) as streamed:
        comparison = None
        if found.comparison is not None:
            comparison = verified_comparison(found.comparison, streamed.digest, found.report)
        link_base = None
        if found.link_gold and repository and _REPOSITORY.fullmatch(repository):
            server = (server_url or "https://github.com").rstrip("/")
            try:
                link_base = check_link_base(f"{server}/{repository}/blob/{head_sha}")
            except ValueError:
                link_base = None
        context = _comment_context(found, streamed.report, link_base, details)
        request = PassRequest(check_run=_maximum() if found.check_run else None)
        with render_pass(streamed, context, comparison, request) as rendered:
            return _rebuilt(found, head_sha, rendered, comparison)


def _maximum() -> int:
    import os

    from goldgate.app.action.inputs import max_annotations

    return max_annotations(os.environ)


def _comment_context(
    found: Handoff, report: Report, link_base: str | None, details: Details
) -> RenderContext:
    """The comment's context: values only when the trusted job and the hand-off both say
    so, the comment's budget, the preface."""
    from goldgate.github.comments import comment_budget
    from goldgate.render.registry import Links, RenderContext

    return RenderContext(
        report,
        details="values" if details == found.details == "values" else "safe",
        budget="comment",
        links=Links(
            link_base=link_base, full_report="the report artifact of the pull request's run"
        ),
        limit=comment_budget(found.comment_id),
        notes=(PREFACE,),
    )


def _rebuilt(
    found: Handoff, head_sha: str, rendered: RenderPass, comparison: Comparison | None
) -> dict[str, Any]:
    from goldgate.app.render import render
    from goldgate.github.comments import with_marker

    body = render("markdown", rendered.context)
    rebuilt = {
        "pull_request": found.pull_request,
        "head_sha": head_sha,
        "comment_id": found.comment_id,
        "body": with_marker(body, found.comment_id),
    }
    if found.check_run:
        rebuilt["check_run"] = _check_run(found, rendered, body, comparison)
    return rebuilt


def _check_run(
    found: Handoff, rendered: RenderPass, body: str, comparison: Comparison | None
) -> dict[str, Any]:
    """The check run the trusted job creates on the fork's head commit: its name, its
    conclusion (the report's verdict under the hand-off's ``fail_on``), the comment's first
    line and Markdown, and every annotation as the Checks API takes it."""
    from goldgate.app.action.checkrun import check_run_name
    from goldgate.app.action.rules import check_conclusion, decide_exit
    from goldgate.render.checkrun import check_summary, check_title

    run_code = rendered.context.report.verdict.exit_code
    code, _ = decide_exit(found.fail_on, run_code, comparison)
    annotations = rendered.check_annotations(_maximum())
    return {
        "name": check_run_name(found.comment_id),
        "conclusion": check_conclusion(found.fail_on, code, run_code, comparison),
        "title": check_title(body),
        "summary": check_summary(body),
        "annotations": [annotation.json() for annotation in annotations],
    }


def fork_comment(
    *,
    folder: Path,
    head_sha: str,
    output: Path,
    repository: str | None = None,
    server_url: str | None = None,
    details: Details = "safe",
) -> ExitCode:
    """``goldgate report fork-comment``: the comment for a fork's hand-off, rebuilt from its
    report, written as JSON to ``output`` (new file) for the posting script."""
    from goldgate.base.outputs import write_output_file

    note_project_secrets()
    with collections_paused():
        comment = rebuild_comment(
            folder, head_sha, repository=repository, server_url=server_url, details=details
        )
    write_output_file(output, json.dumps(comment, ensure_ascii=False) + "\n")
    write_stdout(
        f"the comment for pull request #{comment['pull_request']} was rebuilt from its "
        f"report: {display_path(output)}"
    )
    return ExitCode.PASSED
