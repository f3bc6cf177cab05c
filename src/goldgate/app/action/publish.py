"""Publishing a report (and its comparison): JUnit XML, the HTML page, the sticky
pull-request comment, the job summary and its Markdown copy, the annotations and the step's
outputs.

The comment is posted before the summary is written, so that a signal during the post still
shows in the summary. When GitHub says no to the comment (as it does to forks), a hand-off
file carries the report and comparison for a ``workflow_run`` job to render and post
(``goldgate.app.forkcomment``). A file that cannot be written, or a comment that cannot be
posted, is a ``::warning::``: every other output and the ``fail_on`` decision are kept.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from goldgate.app.action.inputs import ActionInputs, github_token, request_timeout
from goldgate.app.action.rules import decide_exit
from goldgate.app.action.step import (
    WORK_FOLDER,
    StepRun,
    append_step_summary,
    note_interrupted,
    run_url,
    write_step_outputs,
)
from goldgate.base.errors import ExitCode
from goldgate.github.client import describe_error, os_reason

if TYPE_CHECKING:
    from goldgate.app.renderpass import BaselineRead, RenderPass
    from goldgate.comparison.models import Comparison
    from goldgate.github.event import GitHubEvent
    from goldgate.render.registry import RenderContext
    from goldgate.report.models import Report
    from goldgate.report.streamread import StreamedReport


@dataclass(frozen=True)
class Publication:
    """What the publishing step publishes: the step's inputs and event, the report (open as
    a stream: its cases are read once, for every rendering), its comparison with the
    baseline (and where that is, and the baseline report it compared with, which gives the
    HTML page the baseline's side), and goldgate's own exit code for the run."""

    inputs: ActionInputs
    event: GitHubEvent | None
    streamed: StreamedReport
    run_code: int
    comparison: Comparison | None = None
    comparison_path: Path | None = None
    baseline: BaselineRead | None = None
    settle: Callable[[], Path | None] | None = None
    """Where a helper verifies the reports meanwhile (``verifying.Deferred.settle``): waits
    for it before anything is written, and gives where the comparison was written then."""

    @property
    def report(self) -> Report:
        return self.streamed.report

    @property
    def report_path(self) -> Path:
        return Path(self.streamed.path)


def publish(run: StepRun, publication: Publication) -> int:
    """Render and publish; the step's exit code. The comment is posted before the summary is
    written, so that a signal during the post still shows in the summary (exit 130). The
    report's cases are read once, every rendering fed from that one pass
    (``app.renderpass``); where a helper verifies the reports meanwhile, nothing is written
    before it has (``Publication.settle``)."""
    from goldgate.app.action.inputs import max_annotations
    from goldgate.app.renderpass import PassRequest, render_pass

    baseline = publication.baseline
    request = PassRequest(
        junit=publication.inputs.junit is not None,
        html=True,
        check_run=max_annotations(run.env) if run.check_run is not None else None,
        baseline_latencies=None if baseline is None else baseline.latencies,
    )
    context = _context(run, publication)
    with render_pass(
        publication.streamed, context, publication.comparison, request, run.baseline
    ) as rendered:
        if publication.settle is not None:  # rendered meanwhile; nothing written before
            written = publication.settle()  # the comparison, where its writing waited
            if written is not None:
                publication = replace(publication, comparison_path=written)
        return _publish(run, publication, rendered)


def _context(run: StepRun, publication: Publication) -> RenderContext:
    """What every rendering of the step shares: details, links, gold sources, the baseline."""
    from goldgate.app.render import gold_sources
    from goldgate.render.registry import Links, RenderContext

    inputs, report = publication.inputs, publication.report
    baseline = publication.baseline
    return RenderContext(
        report,
        details=inputs.details,
        links=Links(
            link_base=_link_base(run, publication.event) if inputs.link_gold else None,
            run_url=run_url(run.env),
            full_report=str(publication.report_path),
        ),
        sources=gold_sources(report, run.env),
        baseline=None if baseline is None else baseline.report,
    )


def _publish(run: StepRun, publication: Publication, rendered: RenderPass) -> int:
    inputs, event = publication.inputs, publication.event
    report_path, run_code = publication.report_path, publication.run_code
    comparison, comparison_path = publication.comparison, publication.comparison_path
    from goldgate.app.render import render
    from goldgate.github.comments import comment_budget, comment_length
    from goldgate.render.registry import RenderContext

    if run.interrupted:
        run_code = int(ExitCode.INTERRUPTED)
    protected = [report_path, *([comparison_path] if comparison_path else [])]
    shown = str(report_path)
    context = rendered.context
    junit = inputs.junit  # empty input: no JUnit
    if junit is not None and not _written(run, junit, rendered.write_junit, protected):
        junit = None

    def gate() -> tuple[int, RenderContext]:
        code, rule = decide_exit(inputs.fail_on, run_code, comparison)
        return code, replace(context, exit_code=code, rule=rule, notes=tuple(run.notes))

    # Named after its report: a job's second goldgate step (the evals' in pull-request.yml)
    # writes a page of its own beside the first, and the artifact keeps both.
    html_path: Path | None = WORK_FOLDER / f"{report_path.stem}.html"
    if not _written(run, WORK_FOLDER / f"{report_path.stem}.html", rendered.write_html, protected):
        html_path = None
    where = html_note(run, html_path)
    code, decided = gate()
    state = comment_state(code, comparison)
    limit = comment_budget(inputs.comment_id, state) - comment_length(where)
    made: list[tuple[RenderContext, str]] = []

    def comment_body() -> str:
        """The comment, made only where one is posted or a check run shows it, and again
        only for another verdict (a signal came meanwhile)."""
        if not made or made[-1][0] is not decided:
            body = render("markdown", replace(decided, budget="comment", limit=limit)) + where
            made.append((decided, body))
        return made[-1][1]

    comment_file, (comment_id, comment_author) = _comment(
        run,
        inputs,
        event,
        body=comment_body,
        sources=(report_path, comparison_path),
        state=state,
        code=code,
    )
    if run.interrupted:
        run_code = int(ExitCode.INTERRUPTED)
        code, decided = gate()
    summary = render("markdown", replace(decided, budget="summary")) + where
    markdown_path = WORK_FOLDER / "report.md"
    markdown_written = _written(run, markdown_path, summary, protected)
    append_step_summary(run, summary)
    # Without the full report's place: the notice counting the rest stays one short line.
    plain = RenderContext(
        context.report, context.comparison, sources=context.sources, collected=context.collected
    )
    run.out(render("annotations", plain))
    if run.check_run is not None:  # with the verdict after a signal, where one came
        _complete_check_run(run, publication, rendered, body=comment_body(), code=code)
    collected = context.collected
    assert collected is not None  # the pass kept it
    counts = collected.counts

    def compared(count: int) -> str:
        # Without a comparison nothing was compared: empty, never a "0" that says nothing
        # regressed.
        return "" if comparison is None else str(count)

    outputs = {
        "exit_code": str(run_code),  # goldgate's own code, whatever fail_on says
        "report": shown,
        "comparison": str(comparison_path or ""),
        "junit": str(junit or ""),
        "markdown": str(markdown_path) if markdown_written else "",
        "html": str(html_path or ""),
        "comment_file": comment_file,
        # The comment this run posted or edited, as GitHub answered: its id and author.
        "comment_id": comment_id,
        "comment_author": comment_author,
        "passed": str(counts["passed"]),
        "failed": str(counts["failure"]),
        "errors": str(counts["runtime"] + counts["check_error"]),
        # The comparison's one classification: the counts its summary and comment show.
        "improved": compared(comparison.classes.improved if comparison else 0),
        "regressed": compared(comparison.classes.regressions if comparison else 0),
        "flaky": compared(comparison.classes.flaky if comparison else 0),
    }
    write_step_outputs(run, outputs)
    return int(code)


def _complete_check_run(
    run: StepRun, publication: Publication, rendered: RenderPass, *, body: str, code: int
) -> None:
    """Complete the step's check run: the conclusion ``code`` and fail_on give, the
    comment's first line as its title and its Markdown as the summary, every annotation."""
    from goldgate.app.action import checkrun
    from goldgate.app.action.inputs import max_annotations
    from goldgate.app.action.rules import check_conclusion
    from goldgate.github.checkruns import CheckRunOutput
    from goldgate.render.checkrun import check_summary, check_title

    run_code = int(ExitCode.INTERRUPTED) if run.interrupted else publication.run_code
    conclusion = check_conclusion(
        publication.inputs.fail_on, code, run_code, publication.comparison
    )
    annotations = rendered.check_annotations(max_annotations(run.env))
    output = CheckRunOutput(conclusion, check_title(body), check_summary(body), annotations)
    checkrun.finish(run, publication.event, output)


def comment_state(code: int, comparison: Comparison | None) -> str:
    """What ``comment_mode: changes`` compares with the last comment: the verdict (the
    step's exit code) and the comparison's counts."""
    if comparison is None:
        return f"exit={code};no-baseline"
    classes = comparison.classes
    counts = ",".join(
        f"{name}={getattr(classes, name)}"
        for name in ("regressed", "mixed", "improved", "flaky", "gold_changed", "input_changed")
    )
    return f"exit={code};{counts}"


def html_note(run: StepRun, path: Path | None) -> str:
    """The comment's and the summary's one line saying where the HTML page is: in the
    workspace, and in the run's artifacts where the workflow uploads it (as the example
    workflows do); empty when it was not written."""
    from goldgate.render import escape

    if path is None:
        return ""
    where = f"The HTML report, with its figures and every case: {escape.markdown(str(path))}"
    runs = run_url(run.env)
    if runs is not None:
        where += f", among the artifacts of [this run]({runs}) where the workflow uploads it"
    return f"\n{where}.\n"


def _link_base(run: StepRun, event: GitHubEvent | None) -> str | None:
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
    run: StepRun,
    inputs: ActionInputs,
    event: GitHubEvent | None,
    *,
    body: Callable[[], str],
    sources: tuple[Path, Path | None],
    state: str,
    code: int,
) -> tuple[str, tuple[str, str]]:
    """Post the sticky comment (its text ``body()``, made only where one is posted); the
    hand-off file's path when it fell back, else '', and the id and author of the comment
    posted or edited ('' and '' when none was). The
    hand-off carries the report and comparison (``sources``) the comment is rendered from,
    never the body: the trusted job renders it again (``goldgate.app.forkcomment``)."""
    if (
        inputs.comment == "off"
        or inputs.comment_mode == "off"
        or event is None
        or event.pr_number is None
    ):
        return "", ("", "")
    text = body()  # before the post: a signal while it is made stops the publishing
    from goldgate.github.client import api_url, connect, repository
    from goldgate.github.comments import StickyComment, comment_authors, upsert_comment

    reason: str | None
    posted = ("", "")
    try:
        token = github_token(run.env)
        github = connect(token, base_url=api_url(run.env), timeout=request_timeout(run.env))
        repo = repository(github, event.repository or run.env.get("GITHUB_REPOSITORY", ""))
        # A personal or App token posts as another login than github-actions[bot]: without
        # knowing it, the sticky comment would be a new comment every run. Never any bot:
        # another bot's comment carrying the marker is not goldgate's.
        sticky = StickyComment(
            inputs.comment_id,
            mode=inputs.comment,
            authors=comment_authors(github, token, inputs.comment_author),
            when=inputs.comment_mode,
        )
        result = upsert_comment(repo, event.pr_number, text, sticky, state=state, passed=code == 0)
        reason = result.reason if result.fell_back else None
        if result.action in ("created", "updated") and result.comment_id is not None:
            posted = (str(result.comment_id), result.author or "")
    except KeyboardInterrupt:
        note_interrupted(run, "while the pull-request comment was posted")
        reason = "the step was interrupted while it was posted."
    except Exception as error:  # every GitHub failure is a warning, never a crash
        reason = describe_error(error)
    if reason is None:
        return "", posted
    from goldgate.app.forkcomment import file_names, handoff

    name, report_name, comparison_name = file_names(inputs.comment_id)
    path = Path(name)
    report_path, comparison_path = sources
    document = handoff(
        event.pr_number,
        head_sha=event.head_sha,
        comment_id=inputs.comment_id,
        details=inputs.details,
        link_gold=inputs.link_gold,
        report=report_name,
        comparison=None if comparison_path is None else comparison_name,
        check_run=inputs.fail_on if inputs.check_run else None,
    )
    from goldgate.base.errors import OutputFileError
    from goldgate.base.outputs import write_output_file

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
        return "", posted
    run.warning(
        f"the pull-request comment was not posted ({reason}); {path} and the report beside "
        "it are for a workflow_run job to render and post."
    )
    return str(path), posted


def _written(
    run: StepRun,
    path: Path,
    text: str | Callable[[Callable[[str], object]], None],
    protected: Sequence[Path],
) -> bool:
    """Write a rendered file (``outputs.write_output_file``: never through a planted
    symlink, never over the report), ``text`` or what a writer gives as it goes; one that
    cannot be written is a warning, and every other output and the ``fail_on`` decision are
    kept."""
    from goldgate.app.renderpass import spooled_file
    from goldgate.base.errors import OutputFileError
    from goldgate.base.outputs import write_output_file

    try:
        if isinstance(text, str):
            write_output_file(path, text, protected=protected)
        else:
            spooled_file(path, text, protected)
    except OutputFileError as error:
        run.warning(f"{error}; the other outputs are kept.")
        return False
    return True
