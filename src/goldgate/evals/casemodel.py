"""An eval case as the engine's ``Case`` model, for code that asks an eval suite for its cases
as models (a regrade, the Python API). A run never builds one (``plan.EvalCases``), so that it
never imports the gold models or pydantic."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final, TypeVar

from pydantic import BaseModel

from goldgate.evals.collector import PASS_ONLY
from goldgate.gold.compiled import CompiledExpectation
from goldgate.gold.models import Case, Envelope, Expectation, constructed

__all__ = ["case_model"]

_ENVELOPE_FIELDS: Final = frozenset({"payload", "metadata"})
_CASE_SET: Final = frozenset({"id", "input", "expectations", "family", "split"})
_M = TypeVar("_M", bound=BaseModel)


def _constructed(kind: type[_M], values: dict[str, Any], given: frozenset[str] = _CASE_SET) -> _M:
    """``models.constructed``: 10,000 cases make 20,000 models, five times faster than
    ``model_construct``. tests/evals/test_plan.py checks it against ``model_construct``."""
    return constructed(kind, values, given)


def _expectation(compiled: CompiledExpectation) -> Expectation:
    return Expectation.model_construct(
        name=compiled.name,
        path=compiled.path,
        expected=compiled.expected,
        comparison=compiled.comparison,
        scorer=None,
    )


_PASS_ONLY_MODELS: Final = [_expectation(PASS_ONLY[0])]


def case_model(
    case_id: str,
    envelope: Mapping[str, Any],
    compiled: Sequence[CompiledExpectation],
    *,
    family: str | None = None,
    split: str | None = None,
) -> Case:
    """An eval case as the engine's ``Case``. Built without validation: the envelope is plain
    JSON already, and the score comparison is an eval's own (gold files cannot name it). The
    runner reads only how many expectations a case has; their compiled form is the suite's."""
    if compiled is PASS_ONLY:
        expectations = _PASS_ONLY_MODELS
    else:
        expectations = [_expectation(e) for e in compiled]
    model = _constructed(
        Envelope,
        {"payload": envelope.get("payload", {}), "metadata": envelope.get("metadata", {})},
        _ENVELOPE_FIELDS,
    )
    return _constructed(
        Case,
        {
            "id": case_id,
            "input": model,
            "expectations": expectations,
            "family": family,
            "split": split,
            "source": None,
            "note": None,
        },
    )
