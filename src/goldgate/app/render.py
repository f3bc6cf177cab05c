"""``goldgate report NAME``: read a report (and a comparison of it), render it with the
renderer ``render.registry`` names, and write the text to a file or stdout."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from importlib import import_module
from pathlib import Path
from typing import Any

from goldgate.app.conclude import (
    note_project_secrets,
)
from goldgate.base.errors import (
    ExitCode,
    InvalidInputError,
)
from goldgate.base.memory import collections_paused
from goldgate.base.stdio import (
    warn,
    write_commands,
    write_stdout,
)
from goldgate.render.registry import renderer


def write_or_print(
    text: str,
    output: Path | None,
    protected: Sequence[Path] = (),
    *,
    commands: bool = False,
    private: bool = False,
) -> None:
    """``text`` to ``output`` (never over a file in ``protected``), else to stdout;
    ``commands``: it is goldgate's own workflow commands (annotations, their data escaped
    inside them), printed as they are; ``private``: it holds expected and actual values, so
    the file is the owner's alone (0600, as reports are)."""
    if output is None:
        written = write_commands(text) if commands else write_stdout(text, end="")
        if not written:
            warn("goldgate: stdout cannot be written; use -o FILE to keep the rendering.")
        return
    from goldgate.base.outputs import write_output_file

    write_output_file(output, text, protected=protected, mode=0o600 if private else 0o644)


def render_report(
    kind: str,
    report_path: Path,
    output: Path | None = None,
    comparison_path: Path | None = None,
    **options: Any,
) -> ExitCode:
    """``goldgate report junit|markdown|annotations|show`` (the renderer ``kind`` of
    ``render.registry``): read a report (and a comparison whose candidate it is), render it,
    write it to ``output`` or stdout. Nothing is sent anywhere."""
    with collections_paused():  # a big report is millions of objects and no cycles
        text = rendered(kind, report_path, comparison_path, **options)
    read = [report_path] if comparison_path is None else [report_path, comparison_path]
    private = options.get("details") == "values"
    write_or_print(text, output, read, commands=renderer(kind).commands, private=private)
    return ExitCode.PASSED


def load_comparison_view(comparison_path: Path, digest: str, report: Any, report_path: Path) -> Any:
    """The renderers' view of the comparison file at ``comparison_path``; refused
    (``InvalidInputError``) unless its candidate is the report whose bytes have ``digest``
    (read from ``report_path``) and its figures are what its reports give
    (``comparison.verify``)."""
    from goldgate.base.problems import display_path
    from goldgate.comparison import read_comparison
    from goldgate.comparison.verify import verify_comparison
    from goldgate.render.compared import comparison_view

    shown = display_path(comparison_path)
    comparison = read_comparison(shown)  # InvalidInputError naming the place
    if comparison.candidate.digest != digest:
        raise InvalidInputError(
            f"{shown} compares the report {comparison.candidate.digest}, not this report ({digest})"
        )
    verify_comparison(comparison, shown, report_path)
    return comparison_view(comparison, report)


def gold_sources(report: Any, environ: Mapping[str, str]) -> dict[str, str | None]:
    """Where each gold file the report names is, relative to the workspace
    (``GITHUB_WORKSPACE``, else the working folder), for annotations and gold links: the
    report names a file as the run was given it (relative to the working folder, or
    absolute, or through a symlink), and GitHub attaches an annotation only to a path
    relative to the repository. Symlinks are resolved on both sides; a file outside the
    workspace maps to None (no file is named); one that is not there is left out (its
    name in the report is all there is)."""
    workspace = Path(environ.get("GITHUB_WORKSPACE", "").strip() or Path.cwd())
    try:
        root = workspace.resolve()
    except (OSError, RuntimeError):
        return {}
    places: dict[str, str | None] = {}
    for suite in report.suites:
        source = suite.cases_source
        if source is None or source in places:
            continue
        try:
            path = Path(source).resolve()
            if not path.is_file():
                continue  # not here (a report made elsewhere): its own name is all there is
            places[source] = path.relative_to(root).as_posix()
        except ValueError:  # outside the workspace: no file of the repository
            places[source] = None
        except (OSError, RuntimeError):  # a loop, or a name no path can hold
            continue
    return places


def rendered(kind: str, report_path: Path, comparison_path: Path | None, **options: Any) -> str:
    """The report at ``report_path`` (with the comparison at ``comparison_path``, checked to
    be of this report) rendered by the renderer ``kind`` of ``render.registry`` with
    ``options``; a renderer that shows where the full report is names ``report_path``."""
    from goldgate.base.problems import display_path
    from goldgate.report.io import read_report_and_digest

    note_project_secrets()

    report, digest = read_report_and_digest(report_path)
    comparison = None
    if comparison_path is not None:
        comparison = load_comparison_view(comparison_path, digest, report, report_path)
    if "sources" in renderer(kind).options and "sources" not in options:
        import os

        options["sources"] = gold_sources(report, os.environ)
    if comparison is not None and renderer(kind).baseline:
        options["baseline"] = baseline_report(comparison)
    return render(kind, report, comparison, full_report=display_path(report_path), **options)


def baseline_report(comparison: Any) -> Any:
    """The baseline report of a comparison view, where it is still on disk with the bytes
    the comparison recorded; None otherwise (the renderer then shows the comparison's own
    figures of the baseline only)."""
    from goldgate.base.errors import GoldgateError
    from goldgate.report.io import read_report_and_digest

    if comparison.baseline_report is None:
        return None
    path, digest = comparison.baseline_report
    try:
        report, found = read_report_and_digest(Path(path))
    except (OSError, GoldgateError):
        return None
    return report if found == digest else None


def render_function(name: str) -> Callable[..., str]:
    """The function of the renderer ``name`` (``render.registry``), its module imported now."""
    module, _, attribute = renderer(name).function.partition(":")
    function: Callable[..., str] = getattr(import_module(module), attribute)
    return function


def render(
    name: str, report: Any, comparison: Any = None, full_report: str | None = None, **options: Any
) -> str:
    """``report`` (and a comparison view of it) rendered by the renderer ``name`` with
    ``options`` (``baseline`` among them only for a renderer that takes it); ``full_report``
    goes only to renderers that take it. An option the renderer
    does not accept is a ``TypeError``, as a call of its function with it would be."""
    chosen = renderer(name)
    unknown = sorted(set(options) - chosen.options - ({"baseline"} if chosen.baseline else set()))
    if unknown:
        raise TypeError(f"the {name} renderer takes no option {', '.join(unknown)}")
    if chosen.full_report:
        options["full_report"] = full_report
    return render_function(name)(report, comparison, **options)
