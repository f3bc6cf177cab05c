"""The offline cross-checks of gold against itself and the settings. Nothing is imported or run.

Each rule returns violations; structural (model) errors are found before these run, so the
rules see only suites and cases that parsed. What ``expected`` must be is each comparison
kind's own rule (``ComparisonKind.rules``, ``gold.kinds``); how an expectation names its
scorer is checked here for every kind.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterator, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from goldgate.base.jsonvalue import json_equal
from goldgate.base.problems import Located, Violation, violation_at
from goldgate.base.textsafe import quote
from goldgate.gold.compiled import CompiledExpectation
from goldgate.gold.kinds import Kinds, comparison_kinds
from goldgate.gold.models import (
    MAXIMUM_THRESHOLDS,
    METRIC_THRESHOLDS,
    RUN_THRESHOLDS,
    Case,
    Metric,
    Suite,
)
from goldgate.gold.paths import result_path_problem
from goldgate.gold.shapes import note_of

if TYPE_CHECKING:  # annotations only: the report builder imports this without the settings
    from goldgate.gold.settings.models import WorkflowSettings

Path_ = tuple[str | int, ...]


class PlacedCase(NamedTuple):
    """A case that parsed, with the file and path it came from (a named tuple: the check
    makes one per case, and a frozen dataclass's ``__init__`` is several times slower)."""

    case: Case
    document: Located
    path: Path_
    compiled: tuple[CompiledExpectation, ...]

    def at(self, suffix: Path_, message: str) -> Violation:
        return violation_at(self.document, (*self.path, *suffix), message)


def manifest_violations(
    document: Located, suites: Sequence[tuple[int, Suite]]
) -> Iterator[Violation]:
    counts = Counter(suite.name for _, suite in suites)
    for index, suite in suites:
        if counts[suite.name] > 1:
            yield violation_at(
                document, ("suites", index, "name"), f"duplicate suite name {quote(suite.name)}"
            )


def suite_violations(
    document: Located,
    suite_path: Path_,
    suite: Suite,
    cases: Sequence[PlacedCase],
    workflows: dict[str, WorkflowSettings] | None,
    scorer_names: Collection[str] | None,
    *,
    unparsed: Sequence[Any] = (),
    judge_names: Collection[str] | None = None,
) -> Iterator[Violation]:
    """``unparsed``: the suite's cases that did not parse (their problems are reported
    already). What they would hold is taken from them as far as it can be (an ``id``, a
    text comparison), and no rule reports what they may hold but did not say. ``workflows``
    and ``scorer_names`` None: the settings did not load (their problems are reported), so
    nothing is checked against them."""
    workflow = None if workflows is None else workflows.get(suite.workflow)
    ids = Counter(placed.case.id for placed in cases)
    has_text = any(
        expectation.comparison == "text"
        for placed in cases
        for expectation in placed.case.expectations
    )
    known_ids: Collection[str] | None = ids
    if unparsed:
        other = [raw.get("id") if isinstance(raw, dict) else None for raw in unparsed]
        strings = [item for item in other if isinstance(item, str)]
        known_ids = {*ids, *strings} if len(strings) == len(other) else None
        has_text = has_text or any(map(_has_text_comparison, unparsed))
    yield from suite_head_violations(
        document,
        suite_path,
        suite,
        workflow,
        known_ids,
        has_text if has_text or not unparsed else None,
        settings_known=workflows is not None,
    )
    metrics = metric_scopes(suite.metrics)
    for placed in cases:
        if ids[placed.case.id] > 1:
            yield placed.at(("id",), f"duplicate case id {quote(placed.case.id)} in this suite")
        yield from case_violations(placed, workflow, scorer_names, metrics, judge_names=judge_names)


def _has_text_comparison(raw: Any) -> bool:
    expectations = raw.get("expectations") if isinstance(raw, dict) else None
    return isinstance(expectations, list) and any(
        isinstance(item, dict) and item.get("comparison") == "text" for item in expectations
    )


def suite_head_violations(
    document: Located,
    suite_path: Path_,
    suite: Suite,
    workflow: WorkflowSettings | None,
    case_ids: Collection[str] | None,
    has_text: bool | None,
    *,
    settings_known: bool = True,
) -> Iterator[Violation]:
    """What is wrong with the suite itself, given its cases' ids and whether any of them has
    a text comparison (``None``: not known, as some cases did not parse): its target (when
    the settings are known), its metrics' definitions, its thresholds."""
    if settings_known:
        yield from _target_violations(document, suite_path, suite, workflow)
    yield from _metric_violations(document, suite_path, suite, case_ids, workflow)
    yield from _threshold_violations(document, suite_path, suite, has_text)


def case_violations(
    placed: PlacedCase,
    workflow: WorkflowSettings | None,
    scorer_names: Collection[str] | None,
    metrics: Sequence[tuple[Metric, frozenset[str] | None]],
    *,
    judge_names: Collection[str] | None = None,
) -> Iterator[Violation]:
    """What is wrong with one case on its own and as gold of the suite's metrics (each with
    the ids it includes, see ``metric_scopes``). ``judge_names``: the judges the settings
    declare (None: not known, nothing is checked against them)."""
    yield from _case_violations(placed, workflow, scorer_names, judge_names=judge_names)
    for metric, included in metrics:
        if included is None or placed.case.id in included:
            yield from _metric_gold_violations(placed, metric)


def metric_scopes(metrics: Sequence[Metric]) -> list[tuple[Metric, frozenset[str] | None]]:
    """Each metric with the case ids it includes (``None``: every case)."""
    return [
        (metric, None if metric.cases is None else frozenset(metric.cases)) for metric in metrics
    ]


def _target_violations(
    document: Located, suite_path: Path_, suite: Suite, workflow: WorkflowSettings | None
) -> Iterator[Violation]:
    if workflow is None:
        yield violation_at(
            document,
            (*suite_path, "workflow"),
            f"workflow {quote(suite.workflow)} is not declared in the settings",
        )
        return
    if suite.step is not None and suite.flow is None:
        yield violation_at(document, (*suite_path, "step"), "a suite with a step needs its flow")
        return
    if suite.flow is None:
        return
    flow = workflow.flows.get(suite.flow)
    if flow is None:
        yield violation_at(
            document,
            (*suite_path, "flow"),
            f"flow {quote(suite.flow)} is not declared in workflow {quote(suite.workflow)}",
        )
    elif suite.step is not None and suite.step not in flow.steps:
        yield violation_at(
            document,
            (*suite_path, "step"),
            f"step {quote(suite.step)} is not declared in flow {quote(suite.flow)}",
        )


def _case_violations(
    placed: PlacedCase,
    workflow: WorkflowSettings | None,
    scorer_names: Collection[str] | None,
    *,
    judge_names: Collection[str] | None,
) -> Iterator[Violation]:
    case = placed.case
    names = [expectation.name for expectation in case.expectations]
    # Counted only where a name repeats (rare): a Counter per case was a cost of every check.
    repeated = () if len(set(names)) == len(names) else {n for n in names if names.count(n) > 1}
    envelope = case.input.as_json()
    kinds = comparison_kinds()
    for index, expectation in enumerate(case.expectations):
        where: Path_ = ("expectations", index)
        if expectation.name in repeated:
            message = f"duplicate expectation name {quote(expectation.name)} in this case"
            yield placed.at((*where, "name"), message)
        problem = result_path_problem(expectation.path, workflow)
        if problem:
            yield placed.at((*where, "path"), problem)
        problems = _comparison_problems(placed.compiled[index], envelope, scorer_names, kinds)
        for suffix, message in problems:
            yield placed.at((*where, *suffix), message)
        if expectation.judge is not None:
            wrong = judge_problem(expectation.judge, expectation, judge_names)
            if wrong is not None:
                yield placed.at((*where, "judge"), wrong)


def judge_problem(judge: str, expectation: Any, judge_names: Collection[str] | None) -> str | None:
    """What is wrong with an expectation's ``judge``: a judge decides only what a person
    would, the prose ``expected`` or the ``note`` of a text expectation, and only a judge the
    settings declare (``judge_names`` None: not known)."""
    if expectation.comparison != "text" or note_of(expectation.expected) is None:
        return (
            "'judge' decides what a person would: only a text expectation whose expected is "
            "prose or has a 'note' may name one"
        )
    if judge_names is not None and judge not in judge_names:
        return f"judge {quote(judge)} is not declared in the settings' judges"
    return None


def _comparison_problems(
    expectation: CompiledExpectation,
    envelope: dict[str, Any],
    scorer_names: Collection[str] | None,
    kinds: Kinds,
) -> Sequence[tuple[Path_, str]]:
    """What is wrong with how an expectation compares (a sequence, not a generator: every
    expectation of large gold is checked here, and most have nothing wrong). The model
    accepted only registered names (a kind unregistered since is refused all the same)."""
    name = expectation.comparison
    kind = kinds.get(name)
    if kind is None:
        return [(("comparison",), f"comparison {quote(name)} is not registered")]
    if kind.uses_scorer:
        if expectation.scorer is None:
            return [(("comparison",), f"a {name} comparison names its registered 'scorer'")]
        if scorer_names is not None and expectation.scorer not in scorer_names:
            scorer = quote(expectation.scorer)
            return [(("scorer",), f"scorer {scorer} is not registered in the settings")]
        return ()
    problems = kind.rules(expectation.expected, expectation.form, envelope)
    if expectation.scorer is not None:
        wrong = (("scorer",), f"'scorer' is only used by the custom comparison, not {name}")
        return [wrong, *problems]
    return problems


def _metric_violations(
    document: Located,
    suite_path: Path_,
    suite: Suite,
    case_ids: Collection[str] | None,
    workflow: WorkflowSettings | None,
) -> Iterator[Violation]:
    names = Counter(metric.name for metric in suite.metrics)
    for index, metric in enumerate(suite.metrics):
        where: Path_ = (*suite_path, "metrics", index)
        if names[metric.name] > 1:
            message = f"duplicate metric name {quote(metric.name)}"
            yield violation_at(document, (*where, "name"), message)
        problem = result_path_problem(metric.path, workflow)
        if problem:
            yield violation_at(document, (*where, "path"), problem)
        yield from _catalog_violations(document, where, metric)
        for position, case_id in enumerate(metric.cases or ()):
            if case_ids is not None and case_id not in case_ids:
                yield violation_at(
                    document,
                    (*where, "cases", position),
                    f"case {quote(case_id)} is not in this suite",
                )


def _catalog_violations(document: Located, where: Path_, metric: Metric) -> Iterator[Violation]:
    seen: list[Any] = []
    for position, label in enumerate(metric.labels):
        if metric.kind == "multilabel" and label is None:
            yield violation_at(
                document, (*where, "labels", position), "a multilabel catalog holds strings only"
            )
        if any(json_equal(label, other) for other in seen):
            message = f"duplicate label {quote(label)} in the catalog"
            yield violation_at(document, (*where, "labels", position), message)
        seen.append(label)


def _metric_gold_violations(placed: PlacedCase, metric: Metric) -> Iterator[Violation]:
    at_path = [
        index
        for index, expectation in enumerate(placed.case.expectations)
        if expectation.path == metric.path
    ]
    if len(at_path) != 1:
        found = "none" if not at_path else f"{len(at_path)}"
        yield placed.at(
            ("expectations",),
            f"metric {quote(metric.name)} needs exactly one expectation at {quote(metric.path)}, "
            f"found {found}",
        )
        return
    index = at_path[0]
    gold = placed.case.expectations[index].expected
    where: Path_ = ("expectations", index, "expected")
    if metric.kind == "classification":
        if not (gold is None or isinstance(gold, str)):
            yield placed.at(where, "a classification label is a string or null")
        elif gold not in metric.labels:
            yield placed.at(
                where, f"the gold label is not in the catalog of metric {quote(metric.name)}"
            )
    elif not isinstance(gold, list) or not all(isinstance(label, str) for label in gold):
        yield placed.at(where, f"metric {quote(metric.name)} expects an array of string labels")
    else:
        unknown = [label for label in gold if label not in metric.labels]
        if unknown:
            yield placed.at(
                where,
                f"{len(unknown)} gold label(s) not in the catalog of metric {quote(metric.name)}",
            )


def _threshold_violations(
    document: Located, suite_path: Path_, suite: Suite, has_text: bool | None
) -> Iterator[Violation]:
    metrics = {metric.name: metric for metric in suite.metrics}
    for key, bound in suite.thresholds.items():
        where = (*suite_path, "thresholds", key)
        if key in MAXIMUM_THRESHOLDS:
            continue  # a maximum: any figure at or above 0
        if bound > 1:
            yield violation_at(document, where, f"must be at most 1.0, found {bound!r}")
            continue
        if key in RUN_THRESHOLDS:
            if key == "json.parse" and not (suite.text and suite.text.json_):
                message = "'json.parse' needs the suite's text.json: true"
            elif key == "schema.requiredCoverage" and not (suite.text and suite.text.requiredKeys):
                message = "'schema.requiredCoverage' needs the suite's text.requiredKeys"
            elif key != "pass_rate" and has_text is False:
                # Only text comparisons measure these: the threshold could never hold.
                message = f"{quote(key)} is measured on text comparisons, and this suite has none"
            else:
                continue
            yield violation_at(document, where, message)
            continue
        if key.startswith("text."):
            yield violation_at(
                document, where, f"{quote(key)} is a counter: reported, never thresholded"
            )
            continue
        name, _, figure = key.rpartition(".")
        metric = metrics.get(name)
        if metric is None or figure not in METRIC_THRESHOLDS:
            valid = ", ".join(valid_thresholds(suite, has_text is not False))
            message = f"unknown threshold {quote(key)}; this suite can gate on {valid}"
            yield violation_at(document, where, message)
        elif figure == "exact_set_accuracy" and metric.kind != "multilabel":
            yield violation_at(document, where, "exact_set_accuracy is a multilabel figure")
        elif figure == "accuracy" and metric.kind == "multilabel":
            message = "a multilabel metric has exact_set_accuracy, not accuracy"
            yield violation_at(document, where, message)


def valid_thresholds(suite: Suite, has_text: bool) -> list[str]:
    """Every threshold ``suite`` can gate on, so that a typo's message lists the right names:
    the run figures its comparisons and text options measure, then each metric's figures
    for its kind."""
    text = suite.text
    run = {
        "pass_rate": True,
        "expect.satisfied": has_text,
        "json.parse": has_text and text is not None and text.json_,
        "schema.requiredCoverage": has_text and text is not None and bool(text.requiredKeys),
    }
    names = [key for key in RUN_THRESHOLDS if run[key]]
    for metric in suite.metrics:
        wrong = "accuracy" if metric.kind == "multilabel" else "exact_set_accuracy"
        names.extend(f"{metric.name}.{figure}" for figure in METRIC_THRESHOLDS if figure != wrong)
    return [*names, *(f"{key} (a maximum)" for key in MAXIMUM_THRESHOLDS)]
