"""``goldgate judge ...``: judges of prose measured against the team's recorded verdicts
(docs/judges.md). ``goldgate.cli`` adds the group to the root app.
"""

# No `from __future__ import annotations` here: typer reads the hints of every command at
# start-up, and string annotations would be compiled again by eval() on every run.
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from goldgate.app.commandline.shared import ConfigOption, finish

judge_app = typer.Typer(
    name="judge",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="Judges of prose: calibrate them against the team's recorded verdicts.",
)


class CalibrationFormat(StrEnum):
    text = "text"
    json = "json"


@judge_app.command("calibrate")
def judge_calibrate(
    judge: Annotated[
        list[str] | None,
        typer.Option(
            "--judge",
            metavar="NAME",
            help="Calibrate this judge (repeatable); default: every judge of the settings.",
        ),
    ] = None,
    report: Annotated[
        list[Path] | None,
        typer.Option(
            "--report",
            metavar="REPORT",
            dir_okay=False,
            help="A report whose answers to take (repeatable); default: every "
            "complete report under the project's .goldgate/evaluations/.",
        ),
    ] = None,
    config: ConfigOption = Path("config/settings.yaml"),
    store: Annotated[
        Path | None,
        typer.Option(
            "--store",
            dir_okay=False,
            help="Verdict store; default: evaluation/verdicts.jsonl in the project.",
        ),
    ] = None,
    cache: Annotated[
        Path | None,
        typer.Option(
            "--cache",
            metavar="DIR",
            file_okay=False,
            help="Response cache of the judge's workflow, as for evaluate --live.",
        ),
    ] = None,
    output_format: Annotated[
        CalibrationFormat,
        typer.Option("--format", help="text for people; json prints the records, in a list."),
    ] = CalibrationFormat.text,
) -> None:
    """Run each judge on every answer a person decided in the verdict store (an answer of
    the reports, for an expectation naming the judge, against the gold it was decided on;
    each answer once) and write its calibration record, evaluation/judges/NAME.json: the
    verdicts, agreement, Cohen's kappa and its 95% interval, the table of human and judge
    verdicts, requests, cached answers and cost. A judge's verdicts decide checks only
    while this record is for its current revision, holds at least min_verdicts verdicts
    and the lower bound of the kappa interval is at least min_kappa; otherwise the judge
    only suggests. An answer the judge gives no verdict on is counted apart. A live
    command: it needs the judge workflow's credentials (exit 2 naming the variable,
    nothing sent, when one is missing)."""
    from goldgate.app.judges import CalibrationRequest, calibrate_command

    request = CalibrationRequest(
        config=config,
        judges=tuple(judge or ()),
        reports=tuple(report or ()),
        store=store,
        cache=cache,
        output_format="json" if output_format is CalibrationFormat.json else "text",
    )
    finish(calibrate_command(request))
