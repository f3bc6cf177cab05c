"""An eval's cases, each built into an ``EvalCase``: its id in the suite (``name``,
``name[id]`` for a case, ``name~k`` for a trial, as EZVals names them), its options layered
(``goldgate.evals.layering``), what its context carries and, for seed 004's dataset lines
(``{"id", "input", "expect"}``), the ``expect`` its output is scored against.

Everything is checked before a run starts: unknown keys, a case file that is not strict JSON
Lines, an ``expect`` that is malformed or holds a broken pattern, an input a report cannot
hold; each is ``InvalidInputError`` naming the file and line, or the eval and the case.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, Final, NamedTuple

from goldgate.base.errors import InvalidInputError
from goldgate.base.textsafe import starts_command
from goldgate.evals._options import Definition
from goldgate.evals.layering import Layered, layered_cases
from goldgate.evals.values import DEEP, copying_of, declared_json, fresh_values
from goldgate.gold.compiled import compile_text
from goldgate.scoring.text import text_expected_problem

__all__ = ["UNSET", "EvalCase", "expand"]

_ID = re.compile(r"[^\x00-\x1f\x7f-\x9f\s](?:[^\x00-\x1f\x7f-\x9f]*[^\x00-\x1f\x7f-\x9f\s])?")


class _Unset:
    def __repr__(self) -> str:
        return "UNSET"


UNSET: Final = _Unset()
"""A value a case does not have (no ``reference``, no ``expect``)."""
_NO_EVALUATORS: Final[tuple[Callable[..., Any], ...]] = ()
_NO_THRESHOLDS: Final[Mapping[str, float]] = MappingProxyType({})


class EvalCase(NamedTuple):
    """One run of an eval function, before it runs (a named tuple: 10,000 cases are built
    for 10,000 attempts, several times faster than a frozen dataclass, and as immutable)."""

    function: Definition
    case_id: str
    input: Any
    reference: Any
    """The case's reference, or ``UNSET`` when no layer gave one."""
    metadata: Mapping[str, Any]
    expect: Any
    """Seed 004's ``expect`` (an assertion object or prose), or ``UNSET``."""
    envelope: dict[str, Any]
    """The case as the report stores it: ``{"payload": {"case", "input", "reference"?,
    "labels"?}, "metadata"}`` (plain JSON)."""
    origin: str
    """``file:line`` of the case (its line in a case file, else the eval's definition)."""
    copying: int = DEEP
    """How ``context_values`` copies (``goldgate.evals.values``)."""
    dataset: str = ""
    labels: tuple[str, ...] = ()
    default_key: str | None = "pass"
    timeout: float | None = None
    target: Callable[..., Any] | None = None
    evaluators: tuple[Callable[..., Any], ...] = _NO_EVALUATORS
    error: tuple[str, str] | None = None
    """Why the case could not be given (an input loader that raised): the safe reason and
    the error as EZVals records it. The case's attempts fail with it."""
    thresholds: Mapping[str, float] = _NO_THRESHOLDS
    live: bool = False

    @property
    def has_expect(self) -> bool:
        return self.expect is not UNSET

    def context_values(self) -> tuple[Any, Any, dict[str, Any]]:
        """Fresh copies of input, reference and metadata for one attempt: an eval that
        changes them changes neither the next attempt nor the report."""
        reference: Any = None if self.reference is UNSET else self.reference
        return fresh_values(self.copying, self.input, reference, self.metadata)


def _expect_problem(expect: Any) -> str | None:
    problem = text_expected_problem(expect)
    if problem is not None:
        return problem
    patterns = compile_text(expect).pattern_problems()
    return patterns[0][1] if patterns else None


def _case_id(function: Definition, raw: Any, where: str) -> str:
    if raw is None:
        return function.name
    if isinstance(raw, bool) or not isinstance(raw, str | int):
        raise InvalidInputError(f"{where}: a case 'id' is a string or an integer.")
    text = str(raw)
    # An integer's digits always match.
    if type(raw) is not int and (not _ID.fullmatch(text) or starts_command(text)):
        raise InvalidInputError(
            f"{where}: case id {text!r} must be nonempty, without control characters or "
            "surrounding whitespace, and must not start with '::'."
        )
    return f"{function.name}[{text}]"


def _evaluators(value: Any) -> tuple[Callable[..., Any], ...]:
    if not value:
        return _NO_EVALUATORS
    return tuple(value) if isinstance(value, list | tuple) else (value,)


_OPTION_KEYS: Final = frozenset(
    {"dataset", "labels", "default_score_key", "timeout", "target", "evaluators", "trials"}
)
"""The options a case may set besides its values (input, reference, metadata)."""


class _Shared:
    """What the cases of one eval share, worked out once: its metadata as a report holds it
    (by identity: a case that sets none has the eval's own object), and its options as a
    case without options of its own has them."""

    def __init__(self, function: Definition) -> None:
        self.function = function
        self.metadata: tuple[Any, Any] | None = None
        self.options: tuple[Any, ...] | None = None

    def plain_metadata(self, metadata: Any, where: str, who: str) -> Any:
        if self.metadata is not None and self.metadata[0] is metadata:
            return self.metadata[1]
        plain = declared_json(metadata, where, who, "metadata")
        self.metadata = (metadata, plain)
        return plain

    def options_of(self, layered: Layered) -> tuple[Any, ...]:
        """(dataset, labels, default key, timeout, target, evaluators, trials)."""
        own = not _OPTION_KEYS.isdisjoint(layered.given)
        if not own and self.options is not None:
            return self.options
        params, function = layered.params, self.function
        dataset = params.get("dataset") or (
            function.file.stem if function.file is not None else function.name
        )
        options = (
            dataset,
            tuple(params.get("labels") or ()),
            params.get("default_score_key"),
            params.get("timeout"),
            params.get("target"),
            _evaluators(params.get("evaluators")),
            params.get("trials") or 1,
        )
        if not own:
            self.options = options
        return options


def _trial_ids(case_id: str, count: int) -> list[str]:
    """``case_id``, or its trials ``case_id~1`` ... as EZVals names them."""
    return [case_id] if count == 1 else [f"{case_id}~{k}" for k in range(1, count + 1)]


def _build(
    function: Definition,
    layered: Layered,
    shared: _Shared,
    thresholds: Mapping[str, float],
    *,
    live: bool,
    trials: bool,
) -> list[EvalCase]:
    """One case (one per trial of it, with ``trials``)."""
    params, where, who = layered.params, layered.where, function.who
    case_id = _case_id(function, layered.raw_id, where)
    input_value = params.get("input")
    reference = params.get("reference", UNSET)
    metadata = params.get("metadata") or {}
    expect = layered.given.get("expect", UNSET)
    if expect is not UNSET:
        problem = _expect_problem(expect)
        if problem is not None:
            raise InvalidInputError(f"{where}: {who}: expect: {problem}.")
    dataset, labels, default_key, timeout, target, evaluators, count = shared.options_of(layered)
    payload: dict[str, Any] = {
        "case": case_id,
        "input": declared_json(input_value, where, who, "input"),
    }
    if reference is not UNSET:
        payload["reference"] = declared_json(reference, where, who, "reference")
    if labels:
        payload["labels"] = list(labels)
    plain_metadata = shared.plain_metadata(metadata, where, who)
    copying = DEEP
    if (
        payload["input"] is input_value
        and payload.get("reference", reference) is reference
        and plain_metadata is metadata
    ):
        copying = copying_of(input_value, None if reference is UNSET else reference, metadata)
    built = []
    ids = _trial_ids(case_id, count if trials else 1)
    for one in ids:
        envelope = {
            "payload": payload if one is case_id else {**payload, "case": one},
            "metadata": plain_metadata,
        }
        case = EvalCase(
            function=function,
            case_id=one,
            input=input_value,
            reference=reference,
            metadata=metadata,
            expect=expect,
            envelope=envelope,
            origin=where,
            copying=copying,
            dataset=dataset,
            labels=labels,
            default_key=default_key,
            timeout=timeout,
            target=target,
            evaluators=evaluators,
            error=layered.error,
            thresholds=thresholds,
            live=live,
        )
        built.append(case)
    return built


def expand(
    function: Definition, defaults: Mapping[str, Any] | None = None, *, trials: bool = True
) -> list[EvalCase]:
    """Every case of ``function`` in order, checked, with its file's ``ezvals_defaults``
    (none for a function given directly, as in EZVals). ``cases=[]`` gives none. Without
    ``trials``, each case once (calling an eval runs it so, as in EZVals)."""
    defaults = defaults or {}
    thresholds = function.params.get("thresholds", defaults.get("thresholds")) or _NO_THRESHOLDS
    live = bool(function.params.get("live", defaults.get("live")))
    shared = _Shared(function)
    cases: list[EvalCase] = []
    seen: dict[str, str] = {}
    for layered in layered_cases(function, defaults):
        for case in _build(function, layered, shared, thresholds, live=live, trials=trials):
            if case.case_id in seen:
                raise InvalidInputError(
                    f"{case.origin}: {function.who}: case id {case.case_id!r} repeats "
                    f"{seen[case.case_id]}."
                )
            seen[case.case_id] = case.origin
            cases.append(case)
    return cases
