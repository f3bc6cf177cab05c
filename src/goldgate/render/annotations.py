"""GitHub workflow commands: annotations that point at a failing case's line in its gold file.

``::error file=PATH,line=N,title=TITLE::MESSAGE``, one line each. GitHub shows at most 10
errors, 10 warnings and 10 notices per step and drops the rest silently, so at most
``maximum`` errors are written (runtime failures and check errors first, then gold
disagreements, each in case-major order) and one notice counts what was left out.

Each line is written by ``render.workflow_commands.command``, which puts data on one line
and escapes it as the runner expects, so no line from data can start a workflow command:
every line written here starts with a command goldgate chose.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain, islice

from goldgate.base.problems import Violation
from goldgate.render import text
from goldgate.render.registry import ANNOTATION_LIMIT, RenderContext
from goldgate.render.view import (
    REGRESSIONS,
    AttemptItem,
    ComparisonView,
    repository_path,
)
from goldgate.render.workflow_commands import command


def _file(source: str | None) -> str | None:
    # GitHub attaches an annotation to a path relative to the repository root; an absolute
    # path or one outside the working folder would attach to nothing.
    return repository_path(source, None)


@dataclass(frozen=True)
class Described:
    """What an annotation of a failing attempt says, whatever carries it (a workflow
    command, a check run's annotation): its kind in words, its one-line message, its title,
    the gold file relative to the repository root (None: none) and its line there, and the
    comparison's change of the attempt (None without one)."""

    kind: str
    message: str
    title: str
    file: str | None
    line: int | None
    change: str | None


def describe(
    item: AttemptItem,
    comparison: ComparisonView | None,
    sources: Mapping[str, str | None] | None = None,
) -> Described:
    """The one wording of a failing attempt's annotation."""
    kinds = {
        "runtime": "runtime failure",
        "check_error": "check error",
        "failure": "gold disagreement",
    }
    kind = kinds.get(item.problem or "", "problem")
    message = item.reason
    change = (
        None if comparison is None else comparison.change_of(item.suite, item.case_id, item.attempt)
    )
    if change is not None and change.change in REGRESSIONS:
        kind = "regression"
        message = f"{change.change} against the baseline: {change.detail}; {message}"
    elif change is not None and change.change in ("gold changed", "input changed", "flaky"):
        # Not a regression, and said so: a failure here is not the application's change.
        message = f"{change.change}, not a regression: {change.detail}; {message}"
    location = item.location
    file = repository_path(location.source, sources)
    return Described(
        kind,
        text.one_line(message),
        text.one_line(f"goldgate {kind}: {text.name(item.suite)} / {text.name(item.label)}"),
        file,
        location.line if file is not None else None,
        None if change is None else change.change,
    )


def _annotation(
    item: AttemptItem,
    comparison: ComparisonView | None,
    sources: Mapping[str, str | None] | None = None,
) -> str:
    said = describe(item, comparison, sources)
    return command("error", said.message, file=said.file, line=said.line, title=said.title)


def _limited(lines: Iterable[str], total: int, maximum: int, rest: tuple[str, str]) -> list[str]:
    """The first ``maximum`` lines, and a notice counting the rest: ``rest`` is its noun
    (``more problem``) and what follows the count."""
    shown = list(islice(lines, maximum))
    if total > len(shown):
        noun, tail = rest
        said = f"{text.count(total - len(shown), noun)} {tail}"
        shown.append(command("notice", said, title="goldgate"))
    return shown


def render_annotations(context: RenderContext) -> str:
    """Error annotations for the run's runtime failures, check errors and failing attempts
    (at most ``context.maximum``), and a notice counting the rest; empty when nothing
    failed. ``context.sources`` maps each gold file as the report names it to its path
    relative to the workspace (None: outside it), so that an annotation lands on the file
    whatever form ``--config`` took."""
    view = context.view()
    maximum, full_report = context.maximum, context.links.full_report
    counts = view.counts
    total = counts["runtime"] + counts["check_error"] + counts["failure"]
    items = chain(view.problems(("runtime", "check_error")), view.problems(("failure",)))
    where = f"; the full list is in {text.one_line(full_report)}" if full_report else ""
    rest = (
        "more failing attempt",
        f"not annotated (GitHub shows {ANNOTATION_LIMIT} errors per step){where}",
    )
    comparison = view.comparison
    lines = _limited(
        (_annotation(item, comparison, context.sources) for item in items), total, maximum, rest
    )
    return "".join(line + "\n" for line in lines)


def violation_annotations(
    violations: Sequence[Violation], *, maximum: int = ANNOTATION_LIMIT
) -> str:
    """``goldgate evaluate --check --format github``: each violation of the gold or settings
    as an error at its file, line and column (at most ``maximum``), and a notice counting
    the rest."""
    lines = (
        command(
            "error",
            f"{violation.message} (at {violation.pointer})"
            if violation.pointer
            else violation.message,
            file=_file(violation.source) or violation.source,
            line=violation.line,
            col=violation.column,
            title="goldgate check",
        )
        for violation in violations
    )
    rest = ("more problem", "not annotated; run 'goldgate evaluate --check' for the full list")
    return "".join(line + "\n" for line in _limited(lines, len(violations), maximum, rest))
