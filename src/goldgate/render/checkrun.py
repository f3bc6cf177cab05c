"""A check run's output, as text: every annotation, its title and its summary.

Workflow commands show at most 10 errors, 10 warnings and 10 notices a step
(``render.annotations``); a check run (the Checks API) takes annotations 50 to a request
with no overall limit. ``check_annotations`` gives one per failing attempt (a gold
disagreement, a runtime failure, a check error) and one per improved unit, at its line of
its gold file relative to the repository root, worded as the workflow commands word them
(``annotations.describe``): ``failure`` for regressions, runtime failures, check errors
and other failures; ``warning`` for a failing attempt the comparison calls flaky, gold
changed or input changed (not the application's change); ``notice`` for improvements
(they pass, so they add to the failing ones). They are ordered by severity (regressions,
then runtime failures and check errors, failures, warnings, notices; each in case-major
order), so the first request of 50 holds what matters most, and bounded by ``maximum``,
with a final notice counting what was left out.

Safe as the comment is: ids, names, statuses, reasons and numbers, never an expected or
actual value, each text made one safe line (``render.text``). Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from goldgate.render import text
from goldgate.render.annotations import describe
from goldgate.render.fanout import BaseSink, feed, whole
from goldgate.render.registry import RenderContext
from goldgate.render.view import (
    AttemptItem,
    ChangeItem,
    ComparisonView,
    SuiteView,
    repository_path,
)
from goldgate.report.caserecords import CaseRecord
from goldgate.report.passing import PassingCase

Level = Literal["failure", "warning", "notice"]

BATCH = 50
"""Annotations the Checks API takes in one request (more is 422)."""
SUMMARY_LIMIT = 65_535
"""Characters of a check run's ``output.summary`` (and ``output.text``)."""
TITLE_LIMIT = 255
"""Characters of a check run's title shown before it is shortened."""
NO_FILE = "."
"""The path of an annotation whose case has no gold file in the repository (the Checks
API needs one): GitHub lists it on the check run's page, on no file."""
_NOT_REGRESSIONS = ("flaky", "gold changed", "input changed")


@dataclass(frozen=True)
class CheckAnnotation:
    """One annotation of a check run, as the Checks API takes it."""

    path: str
    line: int
    level: Level
    title: str
    message: str

    def json(self) -> dict[str, str | int]:
        return {
            "path": self.path,
            "start_line": self.line,
            "end_line": self.line,
            "annotation_level": self.level,
            "title": self.title,
            "message": self.message,
        }


def _failing(
    item: AttemptItem, comparison: ComparisonView | None, sources: Mapping[str, str | None] | None
) -> tuple[int, CheckAnnotation]:
    """A failing attempt's annotation and its rank: 0 a regression, 1 a runtime failure or
    check error, 2 a gold disagreement, 3 a disagreement that is not the application's
    change (a warning)."""
    said = describe(item, comparison, sources)
    level: Level = "failure"
    rank = {"regression": 0, "runtime failure": 1, "check error": 1}.get(said.kind, 2)
    if item.problem == "failure" and said.change in _NOT_REGRESSIONS:
        level, rank = "warning", 3
    found = CheckAnnotation(said.file or NO_FILE, said.line or 1, level, said.title, said.message)
    return rank, found


def _improved(item: ChangeItem, sources: Mapping[str, str | None] | None) -> CheckAnnotation:
    file = repository_path(item.location.source, sources)
    label = item.case_id if item.attempt <= 1 else f"{item.case_id}#{item.attempt}"
    return CheckAnnotation(
        file or NO_FILE,
        (item.location.line or 1) if file is not None else 1,
        "notice",
        text.one_line(f"goldgate improvement: {text.name(item.suite)} / {text.name(label)}"),
        text.one_line(f"improved against the baseline: {item.detail}"),
    )


class CheckRunSink(BaseSink):
    """The check run's annotations of failing attempts as a pass over the cases meets them:
    per rank the first ``maximum`` + 1 (what the check run can send, and the first left
    out) and how many there are."""

    def __init__(
        self,
        comparison: ComparisonView | None,
        sources: Mapping[str, str | None] | None,
        maximum: int,
    ) -> None:
        self._comparison, self._sources = comparison, sources
        self._keep = max(maximum, 0) + 1
        self.ranked: dict[int, list[CheckAnnotation]] = {rank: [] for rank in range(4)}
        self.total = 0

    takes_passing = True

    def passing(self, suite: SuiteView, case: PassingCase) -> None:
        return None  # no attempt of it fails: nothing to annotate

    def case(self, suite: SuiteView, case: CaseRecord) -> None:
        for item in suite.problems(("runtime", "check_error", "failure"), (case,)):
            rank, found = _failing(item, self._comparison, self._sources)
            self.total += 1
            kept = self.ranked[rank]
            if len(kept) < self._keep:
                kept.append(found)


def check_annotations(
    context: RenderContext, maximum: int, found: CheckRunSink | None = None
) -> tuple[CheckAnnotation, ...]:
    """Every annotation of the check run, by severity, at most ``maximum`` and then one
    notice counting the rest (``context.links.full_report`` says where they are);
    ``found``: the failing attempts' annotations as a pass over a streamed report kept
    them (else the report's own cases are read)."""
    view = context.view()
    comparison, sources = view.comparison, context.sources
    if found is None:
        found = CheckRunSink(comparison, sources, maximum)
        feed(whole(view.suites), (found,))
    improved = comparison.improvements if comparison is not None else ()
    # Stable: case-major order within a rank.
    ordered = [annotation for rank in range(4) for annotation in found.ranked[rank]]
    ordered += (_improved(change, sources) for change in improved[: max(maximum, 0) + 1])
    total = found.total + len(improved)
    kept = ordered[: max(maximum, 0)]
    if total > len(kept):
        left = total - len(kept)
        first = ordered[len(kept)]
        full = context.links.full_report
        where = f"; every one is in {text.one_line(full)}" if full else ""
        kept.append(
            CheckAnnotation(
                first.path,
                first.line,
                "notice",
                "goldgate",
                f"{text.count(left, 'more annotation')} not sent (GOLDGATE_MAX_ANNOTATIONS "
                f"is {maximum:,}){where}.",
            )
        )
    return tuple(kept)


def batches(annotations: tuple[CheckAnnotation, ...]) -> tuple[tuple[CheckAnnotation, ...], ...]:
    """The annotations in requests of at most ``BATCH``; one empty batch for none."""
    if not annotations:
        return ((),)
    return tuple(annotations[start : start + BATCH] for start in range(0, len(annotations), BATCH))


def check_title(markdown: str) -> str:
    """The check run's title: the Markdown report's first line (its heading), bounded."""
    for line in markdown.splitlines():
        if line.startswith("## "):
            return text.one_line(line[3:], TITLE_LIMIT)
    return "goldgate"


def check_summary(markdown: str) -> str:
    """The check run's summary: the Markdown report, rendered within ``SUMMARY_LIMIT``
    already (this only guards the limit)."""
    if len(markdown) <= SUMMARY_LIMIT:
        return markdown
    return markdown[: SUMMARY_LIMIT - 1] + text.ELLIPSIS
