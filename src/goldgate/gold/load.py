"""Finding and loading gold: the manifest, its case files, every violation in one pass.

Two paths load a suite. The whole-file path parses its case file whole, checks every case in
this process, holds the cases in memory and describes every violation. The streamed path
(``gold/_stream``, private to this stage) checks a case file as it streams by, on several
cores for a large one, and reads each case back from the file when the run needs it: an
accelerator, taken only for good gold and only while ``GOLDGATE_ACCELERATORS`` is not
``0`` (``base.accelerators``); both give the same suite.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import Field, ValidationError

from goldgate.base import accelerators, english
from goldgate.base.errors import InvalidInputError, JsonSyntaxError, MissingFileError
from goldgate.base.jsonvalue import json_type_name
from goldgate.base.memory import collections_paused
from goldgate.base.problems import (
    Violation,
    display_path,
    from_validation_error,
    sort_violations,
    violation_at,
)
from goldgate.base.strictjson import JsonDocument, load_json_file
from goldgate.base.textsafe import escape_control
from goldgate.gold._stream.streamed import reference_problem, stream_suite
from goldgate.gold.compiled import compile_expectations
from goldgate.gold.errors import GoldCheckError
from goldgate.gold.lines import element_lines
from goldgate.gold.models import Case, Manifest, Suite
from goldgate.gold.rules import PlacedCase, manifest_violations, suite_violations
from goldgate.gold.settings.load import LoadedSettings
from goldgate.gold.settings.models import WorkflowSettings
from goldgate.gold.suites import Dataset, DatasetIdentity, GoldSuite, dataset_fingerprint


class _ManifestHead(Manifest):
    """The manifest with its suites left raw, so each suite is checked on its own."""

    suites: list[Any] = Field(min_length=1)  # type: ignore[assignment,unused-ignore]


@dataclass(frozen=True)
class GoldCheck:
    """The outcome of checking gold: every violation, or the loaded dataset."""

    path: Path
    violations: tuple[Violation, ...]
    dataset: Dataset | None
    case_count: int


def check_gold(
    settings: LoadedSettings | None,
    path: Path | None = None,
    *,
    extra_scorers: Collection[str] = (),
    for_run: bool = False,
) -> GoldCheck:
    """Check gold offline against itself and ``settings``; nothing is imported or run.
    ``for_run``: a run follows (``load_gold``), so the first cases of a case file are kept
    as checked, with the patterns the check compiled (``gold._stream.store``); a check alone
    keeps nothing it would not use. ``settings`` None: they did not load (their problems
    are reported elsewhere), so the gold at ``path`` is checked on its own, nothing against
    them, and nothing is kept."""
    with collections_paused():  # loading builds millions of live objects and no cycles
        return _check_gold(settings, path, extra_scorers, for_run)


def _check_gold(
    settings: LoadedSettings | None,
    path: Path | None,
    extra_scorers: Collection[str],
    for_run: bool,
) -> GoldCheck:
    if path is None:
        assert settings is not None, "without settings, the gold's path must be given"
        path = settings.dataset_path
    violations: list[Violation] = []
    try:
        manifest_doc = load_json_file(path, display=display_path(path))
    except JsonSyntaxError as error:
        return GoldCheck(path, (Violation.of_syntax(error),), None, 0)
    except MissingFileError:
        raise MissingFileError(
            f"{escape_control(display_path(path))}: gold manifest not found; set "
            "evaluation.dataset in the settings or pass --dataset (the default is "
            "evaluation/dataset.json beside config/)."
        ) from None
    if not isinstance(manifest_doc.value, dict):
        found = json_type_name(manifest_doc.value)
        message = f"the manifest must be a JSON object, found {found}"
        return GoldCheck(path, (violation_at(manifest_doc, (), message),), None, 0)
    try:
        head = _ManifestHead.model_validate(manifest_doc.value)
    except ValidationError as error:
        violations.extend(from_validation_error(manifest_doc, error))
        head = None
    raw_suites = manifest_doc.value.get("suites")
    raw_suites = raw_suites if isinstance(raw_suites, list) else []
    scorer_names = None if settings is None else {*settings.settings.scorers, *extra_scorers}
    workflows, judge_names = _declared(settings)
    suites: list[tuple[int, Suite]] = []
    built: list[GoldSuite] = []
    case_count = 0
    for index, raw_suite in enumerate(raw_suites):
        try:
            suite = Suite.model_validate(raw_suite)
        except ValidationError as error:
            violations.extend(from_validation_error(manifest_doc, error, ("suites", index)))
            violations.extend(_cases_of_refused_suite(manifest_doc, path, index, raw_suite))
            continue
        suites.append((index, suite))
        streamed = _streamed(
            manifest_doc, path, suite, workflows, scorer_names, for_run, judge_names=judge_names
        )
        if streamed is not None:
            case_count += len(streamed.cases)
            built.append(streamed)
            continue
        placed, source, case_problems, raw_cases, lines, unparsed = _load_cases(
            manifest_doc, path, index, suite.cases
        )
        violations.extend(case_problems)
        case_count += len(placed)
        violations.extend(
            suite_violations(
                manifest_doc,
                ("suites", index),
                suite,
                placed,
                workflows,
                scorer_names,
                unparsed=unparsed,
                judge_names=judge_names,
            )
        )
        if not case_problems:
            cases = tuple(item.case for item in placed)
            compiled = tuple(item.compiled for item in placed)
            built.append(GoldSuite.build(suite, cases, source, raw_cases, compiled, lines))
    violations.extend(manifest_violations(manifest_doc, suites))
    if violations or head is None:
        return GoldCheck(path, tuple(sort_violations(violations)), None, case_count)
    fingerprint = dataset_fingerprint(head.name, [suite.fingerprint for suite in built])
    identity = DatasetIdentity(head.name, head.revision, fingerprint)
    dataset = Dataset(
        name=head.name,
        revision=head.revision,
        suites=tuple(replace(suite, dataset=identity) for suite in built),
        path=path,
        fingerprint=fingerprint,
    )
    return GoldCheck(path, (), dataset, case_count)


def _declared(
    settings: LoadedSettings | None,
) -> tuple[dict[str, WorkflowSettings] | None, frozenset[str] | None]:
    """The workflows and judges the settings declare (None: the settings did not load)."""
    if settings is None:
        return None, None
    return settings.workflows, frozenset(settings.settings.judges)


def _streamed(
    manifest_doc: JsonDocument,
    path: Path,
    suite: Suite,
    workflows: dict[str, WorkflowSettings] | None,
    scorer_names: Collection[str] | None,
    keep: bool,
    *,
    judge_names: Collection[str] | None = None,
) -> GoldSuite | None:
    """The suite checked as its case file streams by (``stream_suite``): an accelerator
    (``base.accelerators``), and never without the settings, which the streamed check needs.
    ``None``: the whole-file path checks the suite, with its cases held in memory."""
    if not accelerators.enabled() or workflows is None or scorer_names is None:
        return None
    return stream_suite(
        manifest_doc, path, suite, workflows, scorer_names, keep=keep, judge_names=judge_names
    )


def _cases_of_refused_suite(
    manifest_doc: JsonDocument, path: Path, index: int, raw_suite: Any
) -> list[Violation]:
    """The problems of the cases of a suite that did not parse (so that one pass lists every
    mistake): each case is checked on its own, as the suite's rules need the suite."""
    cases = raw_suite.get("cases") if isinstance(raw_suite, dict) else None
    if not (isinstance(cases, str) and cases) and not isinstance(cases, list):
        return []  # the suite's own problems say what is wrong with its cases
    return _load_cases(manifest_doc, path, index, cases).problems


class _LoadedCases(NamedTuple):
    placed: list[PlacedCase]
    source: str
    problems: list[Violation]
    raw: list[Any]
    """The cases as loaded: what the suite's fingerprint is taken over."""
    lines: tuple[int, ...] = ()
    """Each case's line in ``source`` (only when every case loaded)."""
    unparsed: tuple[Any, ...] = ()
    """The cases that did not parse, as they are in the file."""


def _refused(source: str, violation: Violation) -> _LoadedCases:
    return _LoadedCases([], source, [violation], [])


def _load_cases(
    manifest_doc: JsonDocument, manifest_path: Path, index: int, cases: list[Any] | str
) -> _LoadedCases:
    """The cases of suite ``index`` (inline, or the case file it names) that parsed, where
    they came from, and the problems of the rest."""
    where = ("suites", index, "cases")
    if isinstance(cases, list):
        if not cases:
            return _LoadedCases(
                [],
                manifest_doc.source,
                [violation_at(manifest_doc, where, "must not be empty")],
                [],
            )
        return _validate_cases(manifest_doc, cases, where, inline=True)
    reference = cases
    problem = reference_problem(reference)
    if problem is not None:
        return _LoadedCases(
            [], manifest_doc.source, [violation_at(manifest_doc, where, problem)], []
        )
    case_path = manifest_path.parent / reference
    try:
        case_doc = load_json_file(case_path, display=display_path(case_path))
    except JsonSyntaxError as error:
        return _refused(display_path(case_path), Violation.of_syntax(error))
    except InvalidInputError as error:  # missing or unreadable: one more violation
        message = str(error).rstrip(".")
        return _LoadedCases(
            [], display_path(case_path), [violation_at(manifest_doc, where, message)], []
        )
    if not isinstance(case_doc.value, list):
        message = f"a case file holds a JSON array of cases, found {json_type_name(case_doc.value)}"
        return _refused(case_doc.source, violation_at(case_doc, (), message))
    if not case_doc.value:
        return _LoadedCases(
            [], case_doc.source, [violation_at(case_doc, (), "a case file must not be empty")], []
        )
    return _validate_cases(case_doc, case_doc.value, (), inline=False)


def _validate_cases(
    document: JsonDocument, raw_cases: list[Any], prefix: tuple[str | int, ...], *, inline: bool
) -> _LoadedCases:
    placed: list[PlacedCase] = []
    problems: list[Violation] = []
    unparsed: list[Any] = []
    for position, raw in enumerate(raw_cases):
        path = (*prefix, position)
        if isinstance(raw, str) and not inline:
            message = "a case file holds cases only; file references are one level deep"
            problems.append(violation_at(document, path, message))
            unparsed.append(raw)
            continue
        try:
            case = Case.model_validate(raw)
            placed.append(PlacedCase(case, document, path, compile_expectations(case.expectations)))
        except ValidationError as error:
            problems.extend(from_validation_error(document, error, path))
            unparsed.append(raw)
    lines = () if problems else element_lines(document.text, prefix)
    return _LoadedCases(placed, document.source, problems, raw_cases, lines, tuple(unparsed))


def load_gold(
    settings: LoadedSettings, path: Path | None = None, *, extra_scorers: Collection[str] = ()
) -> Dataset:
    """The checked dataset, or ``GoldCheckError`` listing every violation."""
    result = check_gold(settings, path, extra_scorers=extra_scorers, for_run=True)
    if result.dataset is None:
        count = len(result.violations)
        listing = "".join(violation.render() + "\n" for violation in result.violations)
        raise GoldCheckError(
            result.violations,
            f"{listing}{english.count(count, 'problem')} in the gold at "
            f"{display_path(result.path)}; run 'goldgate evaluate --check' after every edit.",
        )
    return result.dataset
