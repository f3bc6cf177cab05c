"""``goldgate report ...``: a report rendered for CI or a person (JUnit XML, Markdown,
annotations, a terminal view, an HTML page), the reports of shards merged, and a fork pull
request's comment rebuilt for a trusted job. ``goldgate.cli`` adds the group to the root app.
"""

# No `from __future__ import annotations` here: typer reads the hints of every command at
# start-up, and string annotations would be compiled again by eval() on every run.
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from goldgate.app.commandline.shared import command_group, finish
from goldgate.base.errors import ExitCode
from goldgate.base.stdio import warn
from goldgate.render.registry import Budget, Details

report_app = command_group(
    "report",
    "Render a report for CI or a person (JUnit XML, Markdown, annotations, a terminal "
    "view, an HTML page), or merge the reports of shards.",
)

ReportArgument = Annotated[
    Path,
    typer.Argument(help="A report file written by goldgate evaluate.", dir_okay=False),
]
OutputFile = Annotated[
    Path | None,
    typer.Option(
        "-o", "--output", metavar="FILE", help="Write here instead of stdout.", dir_okay=False
    ),
]
ComparisonFile = Annotated[
    Path | None,
    typer.Option(
        "--comparison",
        metavar="FILE",
        help="A comparison of this report with a baseline (goldgate evaluate --compare): "
        "show regressions, improvements, flaky cases and McNemar's test.",
        dir_okay=False,
    ),
]


def _details(values: str) -> Any:
    """The ``--details`` option of a rendering: ``safe`` shows what is safe anywhere,
    ``values`` adds ``values`` too."""
    return typer.Option(
        "--details", help=f"safe: names, ids, statuses and numbers; values: also {values}"
    )


@report_app.command("junit")
def report_junit(
    report: ReportArgument,
    output: Annotated[
        Path,
        typer.Option(
            "-o", "--output", metavar="FILE", help="JUnit XML file to write.", dir_okay=False
        ),
    ],
    comparison: ComparisonFile = None,
) -> None:
    """JUnit XML: a testsuite per suite, a testcase per attempt (for the checks tab)."""
    from goldgate.app.render import RenderRequest, render_report

    finish(render_report(RenderRequest("junit", report, output=output, comparison_path=comparison)))


def _link_base(value: str | None) -> str | None:
    if value is None:
        return None
    from goldgate.render.escape import check_link_base

    try:
        return check_link_base(value)
    except ValueError as error:
        raise typer.BadParameter(str(error)) from None


@report_app.command("fork-comment")
def report_fork_comment(
    folder: Annotated[
        Path,
        typer.Argument(help="The downloaded comment artifact of a pull request's run."),
    ],
    head_sha: Annotated[
        str,
        typer.Option(
            "--head-sha",
            metavar="SHA",
            help="The commit the triggering run ran on (github.event.workflow_run.head_sha).",
        ),
    ],
    output: Annotated[
        Path,
        typer.Option("-o", "--output", metavar="FILE", help="JSON file to write.", dir_okay=False),
    ],
    repository: Annotated[
        str | None,
        typer.Option("--repository", metavar="OWNER/REPO", help="Link gold in this repository."),
    ] = None,
    server_url: Annotated[
        str | None, typer.Option("--server-url", metavar="URL", help="e.g. https://github.com")
    ] = None,
    details: Annotated[
        Details,
        typer.Option(
            "--details",
            help="values shows expected and actual values only if the hand-off asks for "
            "them too (a fork's run cannot widen what is shown).",
        ),
    ] = "safe",
) -> None:
    """Rebuild a fork pull request's comment from the report its run left (for a trusted
    workflow_run job): the body is rendered here, never taken from the artifact."""
    from goldgate.app.forkcomment import fork_comment

    finish(
        fork_comment(
            folder=folder,
            head_sha=head_sha,
            output=output,
            repository=repository,
            server_url=server_url,
            details=details,
        )
    )


@report_app.command("markdown")
def report_markdown(
    report: ReportArgument,
    budget: Annotated[
        Budget,
        typer.Option(
            "--budget",
            help="comment: 65,536 characters; summary: 1 MiB (job summary).",
        ),
    ] = "comment",
    details: Annotated[
        Details,
        _details("expected and actual values of failing checks (never for held-out cases)."),
    ] = "safe",
    link_base: Annotated[
        str | None,
        typer.Option(
            "--link-base",
            metavar="URL",
            callback=_link_base,
            help="Link each case to its gold line: the repository's blob URL at a commit, "
            "e.g. https://github.com/OWNER/REPO/blob/SHA.",
        ),
    ] = None,
    output: OutputFile = None,
    comparison: ComparisonFile = None,
) -> None:
    """Markdown for a pull-request comment or a job summary, within GitHub's size limits."""
    from goldgate.app.render import RenderRequest, render_report

    finish(
        render_report(
            RenderRequest(
                "markdown",
                report,
                output=output,
                comparison_path=comparison,
                budget=budget,
                details=details,
                link_base=link_base,
            )
        )
    )


@report_app.command("html")
def report_html(
    report: ReportArgument,
    output: Annotated[
        Path,
        typer.Option("-o", "--output", metavar="FILE", help="HTML file to write.", dir_okay=False),
    ],
    details: Annotated[
        Details,
        _details(
            "expected and actual values of failing checks, strings diffed (never for held-out "
            "cases)."
        ),
    ] = "safe",
    comparison: ComparisonFile = None,
) -> None:
    """One self-contained HTML page (no network): verdict, figures, heatmaps, cases."""
    from goldgate.app.render import RenderRequest, render_report

    finish(
        render_report(
            RenderRequest(
                "html", report, output=output, comparison_path=comparison, details=details
            )
        )
    )


@report_app.command("annotations")
def report_annotations(
    report: ReportArgument,
    maximum: Annotated[
        int,
        typer.Option("--max", min=0, help="Error annotations to print (GitHub shows 10 per step)."),
    ] = 10,
    comparison: ComparisonFile = None,
) -> None:
    """GitHub workflow commands: an error at the gold line of each failing case."""
    from goldgate.app.render import RenderRequest, render_report

    finish(
        render_report(
            RenderRequest(
                "annotations", report, output=None, comparison_path=comparison, maximum=maximum
            )
        )
    )


@report_app.command("show")
def report_show(
    report: ReportArgument,
    comparison: ComparisonFile = None,
    details: Annotated[
        Details,
        _details(
            "every failing check's expected and actual values, one under the other, with "
            "where two strings first differ, and a python target's exception (private: for "
            "your terminal, not CI; never for held-out cases)."
        ),
    ] = "safe",
) -> None:
    """The report for a person: tables and colour on a terminal, plain text otherwise,
    within the terminal's width (80 columns when it does not say)."""
    import os
    import shutil

    from goldgate.app.render import RenderRequest, render_report

    terminal = sys.stdout.isatty()
    finish(
        render_report(
            RenderRequest(
                "show",
                report,
                output=None,
                comparison_path=comparison,
                rich=terminal,
                color=terminal and "NO_COLOR" not in os.environ,
                width=shutil.get_terminal_size().columns,
                details=details,
            )
        )
    )


@report_app.command("merge")
def report_merge(
    reports: Annotated[
        list[Path], typer.Argument(help="The report of every shard (evaluate --shard K/N).")
    ],
    output: Annotated[
        Path, typer.Option("--output", "-o", help="Report file to create (never overwritten).")
    ],
) -> None:
    """Join the reports of all shards of one run into the report of the whole run."""
    from goldgate.app.merge import merge_shard_reports

    try:
        code = merge_shard_reports(reports, output)
    except KeyboardInterrupt:  # typer would exit 130 without a word
        done = f"written to {output}" if output.is_file() else "not written"
        warn(f"goldgate: interrupted; the merged report was {done}.")
        code = ExitCode.INTERRUPTED
    finish(code)
