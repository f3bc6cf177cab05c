"""``goldgate report NAME``: read a report (and a comparison of it), render it with the
renderer ``render.registry`` names, and write the text to a file or stdout. ``render`` is the
one way any command renders: by name, with a ``RenderContext``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING

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
from goldgate.render.registry import (
    ANNOTATION_LIMIT,
    TERMINAL_WIDTH,
    Budget,
    Details,
    Links,
    RenderContext,
    Renderer,
    renderer,
)

if TYPE_CHECKING:
    from goldgate.app.renderpass import BaselineRead, RenderPass
    from goldgate.comparison.models import Comparison
    from goldgate.report.models import Report


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


@dataclass(frozen=True)
class RenderRequest:
    """What ``goldgate report junit|markdown|annotations|html|show`` asked: the renderer
    ``kind`` of ``render.registry``, the report file (and a comparison file whose candidate
    it is), where to write (None: stdout), and the renderer's options."""

    kind: str
    report_path: Path
    output: Path | None = None
    comparison_path: Path | None = None
    details: Details = "safe"
    budget: Budget = "comment"
    link_base: str | None = None
    maximum: int = ANNOTATION_LIMIT
    rich: bool = False
    color: bool = True
    width: int = TERMINAL_WIDTH


def render_report(request: RenderRequest) -> ExitCode:
    """Read a report (and a comparison whose candidate it is), render it with what the
    command line chose, write it to ``output`` or stdout. The rendering names
    ``report_path`` as where the full report is. Nothing is sent anywhere."""
    kind, report_path = request.kind, request.report_path
    comparison_path, details = request.comparison_path, request.details
    import os

    from goldgate.app.renderpass import PassRequest, render_pass
    from goldgate.base.problems import display_path
    from goldgate.report.streamread import streamed_report

    note_project_secrets()
    with collections_paused():  # a big report is millions of objects and no cycles
        # A comparison is verified (both its reports compared again) before the report is
        # read, so that the two are never in memory at once; the report read must then be
        # the very bytes the comparison was verified against.
        verified = None
        if comparison_path is not None:
            from goldgate.comparison.verify import report_file_digest

            expected = report_file_digest(report_path)
            verified = verified_comparison(comparison_path, expected, report_path)
        with streamed_report(report_path) as streamed:  # its cases read once, below
            report = streamed.report
            if verified is not None and streamed.digest != verified.candidate.digest:
                shown = display_path(report_path)
                raise InvalidInputError(f"{shown}: changed while it was read.")
            before = None
            if verified is not None and renderer(kind).shows_baseline:
                before = baseline_report(verified.baseline.path, verified.baseline.digest)
            context = RenderContext(
                report,
                details=details,
                budget=request.budget,
                links=Links(link_base=request.link_base, full_report=display_path(report_path)),
                sources=gold_sources(report, os.environ),
                maximum=request.maximum,
                rich=request.rich,
                color=request.color,
                width=request.width,
                baseline=None if before is None else before.report,
            )
            wanted = PassRequest(
                junit=kind == "junit",
                html=kind == "html",
                baseline_latencies=None if before is None else before.latencies,
            )
            with render_pass(streamed, context, verified, wanted) as rendered:
                _write_rendered(request, rendered)
    return ExitCode.PASSED


def _write_rendered(request: RenderRequest, rendered: RenderPass) -> None:
    """What ``request`` asked, from one pass over the report's cases, to its file (JUnit
    and the HTML page written as they are made) or stdout."""
    from goldgate.app.renderpass import spooled_file

    kind, output = request.kind, request.output
    read = [request.report_path]
    if request.comparison_path is not None:
        read.append(request.comparison_path)
    private = request.details == "values"
    writer = {"junit": rendered.write_junit, "html": rendered.write_html}.get(kind)
    if writer is not None and output is not None:
        spooled_file(output, writer, read, mode=0o600 if private else 0o644)
        return
    if writer is not None:
        pieces: list[str] = []
        writer(pieces.append)
        text = "".join(pieces)
    else:
        text = render(kind, rendered.context)
    write_or_print(text, output, read, commands=renderer(kind).commands, private=private)


def verified_comparison(comparison_path: Path, digest: str, report_path: Path) -> Comparison:
    """The comparison file at ``comparison_path``, refused (``InvalidInputError``) unless its
    candidate is the report whose bytes have ``digest`` (read from ``report_path``) and its
    figures are what its reports give (``comparison.verify``)."""
    from goldgate.base.problems import display_path
    from goldgate.comparison import read_comparison
    from goldgate.comparison.verify import streamed_comparison, verify_comparison

    shown = display_path(comparison_path)
    # Read as a stream where it is the file its reports give (issue 43), else read whole.
    streamed = streamed_comparison(Path(shown), report_path)
    comparison = streamed or read_comparison(shown)  # InvalidInputError naming the place
    if comparison.candidate.digest != digest:
        raise InvalidInputError(
            f"{shown} compares the report {comparison.candidate.digest}, not this report ({digest})"
        )
    if streamed is None:
        verify_comparison(comparison, shown, report_path)
    return comparison


def gold_sources(report: Report, environ: Mapping[str, str]) -> dict[str, str | None]:
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


def baseline_report(path: str, digest: str) -> BaselineRead | None:
    """The baseline report of a comparison (its figures, each suite's cases left out, and
    its latencies), where it is still on disk with the bytes the comparison recorded; None
    otherwise (the renderer then shows the comparison's own figures of the baseline
    only)."""
    from goldgate.app.renderpass import read_with_latencies
    from goldgate.base.errors import GoldgateError

    try:
        found = read_with_latencies(Path(path))
    except (OSError, GoldgateError):
        return None
    return found if found.digest == digest else None


def render_function(name: str) -> Renderer:
    """The function of the renderer ``name`` (``render.registry``), its module imported now."""
    module, _, attribute = renderer(name).function.partition(":")
    function: Renderer = getattr(import_module(module), attribute)
    return function


def render(name: str, context: RenderContext) -> str:
    """``context`` rendered by the renderer ``name`` of ``render.registry``: how every
    command renders (``goldgate report``, the action's publishing, a fork's comment)."""
    return render_function(name)(context)
