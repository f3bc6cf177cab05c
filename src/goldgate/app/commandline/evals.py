"""``goldgate evals ...``: Python evals (functions marked ``@eval``) run into the same report
as gold, or regraded from a report's saved outputs. ``goldgate.cli`` adds the group to the
root app.
"""

# No `from __future__ import annotations` here: typer reads the hints of every command at
# start-up, and string annotations would be compiled again by eval() on every run.
from pathlib import Path
from typing import Annotated

import typer

from goldgate.app.commandline.shared import (
    FormatOption,
    OutputFormat,
    check_timeout,
    command_group,
    concurrency_option,
    finish,
    fixed,
    repeat_option,
    supervised,
)
from goldgate.base.memory import long_lived
from goldgate.run.limits import (
    DEFAULT_OPTIONS,
    MAX_REPEAT,
    MAX_TIMEOUT,
    RunOptions,
)

evals_app = command_group(
    "evals",
    "Python evals: functions marked @eval, run into the same report as gold.",
)


@evals_app.command("run")
def evals_run(
    paths: Annotated[
        list[Path],
        typer.Argument(
            metavar="PATH",
            help="Eval files (FILE::name,name[id] selects evals or cases of one), and folders "
            "searched as ezvals searches them: every .py file not starting with _, skipping "
            "hidden folders, folders starting with __, node_modules and venv.",
        ),
    ],
    dataset: Annotated[
        list[str] | None,
        typer.Option("--dataset", metavar="NAME", help="Run only this dataset (repeatable)."),
    ] = None,
    label: Annotated[
        list[str] | None,
        typer.Option(
            "--label",
            metavar="LABEL",
            help="Run only evals with this label (repeatable: any of them), within --dataset.",
        ),
    ] = None,
    live: Annotated[
        bool, typer.Option("--live", help="Authorize live evals (external, possibly paid calls).")
    ] = False,
    max_concurrency: Annotated[
        int, concurrency_option("Case workers per suite.")
    ] = DEFAULT_OPTIONS.max_concurrency,
    timeout: Annotated[
        float,
        typer.Option(
            "--timeout",
            help="Seconds per attempt, evaluators included (positive, at most "
            f"{MAX_TIMEOUT:g}). An eval's own @eval(timeout=...) limits its function within "
            "that: the smaller one wins, and either way the attempt is timed_out (exit 4).",
        ),
    ] = DEFAULT_OPTIONS.timeout,
    repeat: Annotated[
        int, repeat_option(f"Attempts per case, in case-major order (1-{MAX_REPEAT}).")
    ] = DEFAULT_OPTIONS.repeat,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            help="Report file to create (never overwritten); default: a new file under "
            ".goldgate/evaluations/ in the project folder.",
            dir_okay=False,
        ),
    ] = None,
    output_format: FormatOption = OutputFormat.text,
) -> None:
    """Run eval functions and write an immutable report (a suite per dataset)."""
    with long_lived():
        from goldgate.app.evals import run_command
        from goldgate.evals.session import EvalsRequest

    check_timeout(timeout)
    supervised(timeout, output_format is OutputFormat.json)
    finish(
        run_command(
            EvalsRequest(
                paths=tuple(path.absolute() for path in paths),
                datasets=tuple(dataset or ()),
                labels=tuple(label or ()),
                live=live,
                options=RunOptions(max_concurrency=max_concurrency, timeout=timeout, repeat=repeat),
                output=fixed(output),
                json_output=output_format is OutputFormat.json,
            )
        )
    )


@evals_app.command("regrade")
def evals_regrade(
    report: Annotated[Path, typer.Argument(metavar="REPORT", help="A report of evals run.")],
    paths: Annotated[
        list[Path] | None,
        typer.Argument(
            metavar="PATH",
            help="Where the eval files are now; default: the files the report names.",
        ),
    ] = None,
    max_concurrency: Annotated[
        int, concurrency_option("Attempts regraded at once.")
    ] = DEFAULT_OPTIONS.max_concurrency,
    timeout: Annotated[
        float, typer.Option("--timeout", help="Seconds for one attempt's evaluators.")
    ] = DEFAULT_OPTIONS.timeout,
    output: Annotated[
        Path | None,
        typer.Option("--output", help="Report file to create (never overwritten).", dir_okay=False),
    ] = None,
    output_format: FormatOption = OutputFormat.text,
) -> None:
    """Run the evaluators again on a report's saved outputs (no eval is called)."""
    from goldgate.app.evals import regrade_command
    from goldgate.evals.regrade import RegradeRequest

    check_timeout(timeout)
    supervised(timeout, output_format is OutputFormat.json)
    request = RegradeRequest(
        report=report.absolute(),
        paths=tuple(path.absolute() for path in paths or ()),
        output=fixed(output),
        options=RunOptions(max_concurrency=max_concurrency, timeout=timeout),
    )
    finish(regrade_command(request, json_output=output_format is OutputFormat.json))
