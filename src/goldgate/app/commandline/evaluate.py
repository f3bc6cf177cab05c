"""``goldgate evaluate``: run gold against the application and write a report, or check the
gold offline (``--check``), re-score a saved report (``--replay``) or compare two
(``--compare``). The options of one mode given with another are refused, never ignored.
``goldgate.cli`` registers the command on the root app.
"""

# No `from __future__ import annotations` here: typer reads the hints of every command at
# start-up, and string annotations would be compiled again by eval() on every run.
from pathlib import Path
from typing import Annotated

import typer

from goldgate.app.commandline.shared import (
    ConfigOption,
    FormatOption,
    OutputFormat,
    check_timeout,
    concurrency_option,
    finish,
    fixed,
    repeat_option,
    supervised,
)
from goldgate.base.errors import InvalidInputError
from goldgate.base.memory import long_lived
from goldgate.run.limits import (
    DEFAULT_CONCURRENCY,
    DEFAULT_REPEAT,
    DEFAULT_TIMEOUT,
    MAX_CONCURRENCY,
    MAX_REPEAT,
    MAX_TIMEOUT,
    RunOptions,
)


def evaluate(
    config: ConfigOption = Path("config/settings.yaml"),
    dataset: Annotated[
        Path | None,
        typer.Option(
            "--dataset",
            help="Gold manifest; default: evaluation.dataset from the settings, else "
            "evaluation/dataset.json beside config/.",
            dir_okay=False,
        ),
    ] = None,
    check: Annotated[
        bool, typer.Option("--check", help="Check gold offline; import and run nothing.")
    ] = False,
    output_format: FormatOption = OutputFormat.text,
    suite: Annotated[
        list[str] | None,
        typer.Option("--suite", metavar="NAME", help="Run only this suite (repeatable)."),
    ] = None,
    live: Annotated[
        bool,
        typer.Option("--live", help="Authorize live workflows (external, possibly paid calls)."),
    ] = False,
    max_concurrency: Annotated[
        int | None,
        concurrency_option(
            f"Case workers per suite (1-{MAX_CONCURRENCY}; default {DEFAULT_CONCURRENCY})."
        ),
    ] = None,
    timeout: Annotated[
        float | None,
        typer.Option(
            "--timeout",
            help="Seconds per attempt T, custom scoring and every wait (retries, rate "
            f"limits) included (positive, at most {MAX_TIMEOUT:g}; default {DEFAULT_TIMEOUT:g}): "
            "a suite of "
            "N attempts at --max-concurrency C ends within ceil(N/C) x T, a run within the "
            "sum over its suites plus start-up and writing the report.",
        ),
    ] = None,
    repeat: Annotated[
        int | None,
        repeat_option(
            f"Attempts per case, in case-major order (1-{MAX_REPEAT}; default {DEFAULT_REPEAT})."
        ),
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            help="Report (or comparison) file to create, never overwritten; default: a new "
            "file under .goldgate/evaluations/ in the project folder (the one holding "
            "config/); a comparison goes to .goldgate/comparisons/ there, or beside the "
            "candidate.",
            dir_okay=False,
        ),
    ] = None,
    shard: Annotated[
        str | None,
        typer.Option(
            "--shard",
            metavar="K/N",
            help="Run shard K of N: the cases whose id hashes there, the same on every "
            "machine; join the reports with 'goldgate report merge'.",
        ),
    ] = None,
    variant: Annotated[
        str | None,
        typer.Option("--variant", metavar="NAME", help="Name what runs; default: settings."),
    ] = None,
    variant_revision: Annotated[
        str | None,
        typer.Option(
            "--variant-revision",
            metavar="REV",
            help="Revision of what runs; default: the commit (GITHUB_SHA in GitHub Actions, "
            "else git HEAD), else the configuration digest.",
        ),
    ] = None,
    replay: Annotated[
        Path | None,
        typer.Option(
            "--replay",
            metavar="REPORT",
            help="Apply the current gold to a complete report's saved results; run nothing.",
            dir_okay=False,
        ),
    ] = None,
    compare: Annotated[
        Path | None,
        typer.Option(
            "--compare",
            metavar="CANDIDATE",
            help="Compare this report with --baseline; load no settings, run nothing.",
            dir_okay=False,
        ),
    ] = None,
    baseline: Annotated[
        Path | None,
        typer.Option(
            "--baseline",
            metavar="BASELINE",
            help="The report --compare compares with.",
            dir_okay=False,
        ),
    ] = None,
    partial: Annotated[
        bool,
        typer.Option(
            "--partial",
            help="With --compare: compare the attempts whose identity and input match and "
            "list the rest (for pull requests that edit gold).",
        ),
    ] = False,
    cache: Annotated[
        Path | None,
        typer.Option(
            "--cache",
            metavar="DIR",
            help="Response cache of live workflows: an attempt whose workflow revision, "
            "target, request and attempt index match a stored answer takes it without a "
            "call; new answers are stored (plain files, for actions/cache). A folder in "
            "which git tracks files is refused; with GOLDGATE_CACHE_KEY set, entries are "
            "signed and an unsigned one is a miss. Off by default.",
            file_okay=False,
        ),
    ] = None,
    fail_on_regression: Annotated[
        bool,
        typer.Option(
            "--fail-on-regression",
            help="With --compare: exit 1 when any attempt (a case, with --repeat) regressed "
            "or is mixed.",
        ),
    ] = False,
) -> None:
    """Run gold against the application and write an immutable report (or --check it,
    --replay a report, or --compare two)."""
    with long_lived():
        from goldgate.app import check as check_app
        from goldgate.app import compare as compare_app
        from goldgate.app import evaluate as evaluate_app
        from goldgate.app import replay as replay_app
        from goldgate.run.session import RunRequest

    json_output = output_format is OutputFormat.json
    github = output_format is OutputFormat.github
    # Run options default to None so that one given explicitly is known: --check runs
    # nothing, and silently ignoring an option would let a user believe it took effect.
    if check:
        _refuse_run_options(
            {
                "--suite": suite,
                "--live": live or None,
                "--max-concurrency": max_concurrency,
                "--timeout": timeout,
                "--repeat": repeat,
                "--output": output,
                "--shard": shard,
                "--cache": cache,
            }
        )
        finish(
            check_app.check_gold_command(config, dataset, json_output=json_output, github=github)
        )
    if github:
        raise typer.BadParameter(
            "github annotations are for --check; after a run use 'goldgate report annotations'",
            param_hint="--format",
        )
    run_only = {
        "--suite": bool(suite),
        "--live": live,
        "--repeat": repeat is not None,
        "--max-concurrency": max_concurrency is not None,
        "--timeout": timeout is not None,
        "--shard": shard is not None,
        "--variant": variant is not None,
        "--variant-revision": variant_revision is not None,
        "--cache": cache is not None,
    }
    if compare is not None or baseline is not None:
        _refuse_for_mode(run_only, "--compare", "a comparison reads two reports")
        if compare is None or baseline is None:
            missing = "--baseline" if baseline is None else "--compare"
            raise typer.BadParameter("--compare and --baseline go together", param_hint=missing)
        if replay is not None:
            raise typer.BadParameter("replay or compare, not both", param_hint="--replay")
        finish(
            compare_app.compare_reports(
                compare_app.CompareRequest(
                    candidate=compare,
                    baseline=baseline,
                    output=output,
                    partial=partial,
                    fail_on_regression=fail_on_regression,
                    json_output=json_output,
                )
            )
        )
    for flag, used in (("--partial", partial), ("--fail-on-regression", fail_on_regression)):
        if used:
            raise typer.BadParameter("only with --compare", param_hint=flag)
    if replay is not None:
        _refuse_for_mode(run_only, "--replay", "a replay re-scores what the report ran")
        from goldgate.base.problems import pin_working_folder

        pin_working_folder()  # custom scorers are user code: they may change the folder
        finish(
            replay_app.replay_evaluation(
                replay_app.ReplayRequest(
                    report=replay.absolute(),
                    config=config.absolute(),
                    dataset=fixed(dataset),
                    output=fixed(output),
                    json_output=json_output,
                )
            )
        )
    check_timeout(timeout)
    options = RunOptions(
        max_concurrency=DEFAULT_CONCURRENCY if max_concurrency is None else max_concurrency,
        timeout=DEFAULT_TIMEOUT if timeout is None else timeout,
        repeat=DEFAULT_REPEAT if repeat is None else repeat,
    )
    supervised(options.timeout, json_output)
    finish(
        evaluate_app.run_evaluation(
            RunRequest(
                config=config.absolute(),
                dataset=fixed(dataset),
                suites=tuple(suite or ()),
                live=live,
                output=fixed(output),
                json_output=json_output,
                shard=_shard(shard),
                options=options,
                variant=variant,
                variant_revision=variant_revision,
                cache=fixed(cache),
            )
        )
    )


def _shard(text: str | None) -> tuple[int, int] | None:
    if text is None:
        return None
    from goldgate.report.merge import parse_shard

    try:
        return parse_shard(text)
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="--shard") from None


def _refuse_run_options(options: dict[str, object]) -> None:
    """Refuse the run-only options given with --check (exit 2), naming them."""
    given = [name for name, value in options.items() if value is not None]
    if not given:
        return
    several = len(given) > 1
    raise InvalidInputError(
        f"{', '.join(given)} only {'apply' if several else 'applies'} to a run, and --check "
        f"runs nothing; drop {'them' if several else 'it'} or drop --check."
    )


def _refuse_for_mode(given: dict[str, bool], mode: str, why: str) -> None:
    """Options that shape a run mean nothing to a replay or a comparison: refuse them rather
    than ignore them."""
    for flag, used in given.items():
        if used:
            raise typer.BadParameter(f"not used with {mode}: {why}", param_hint=flag)
