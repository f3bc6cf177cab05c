"""The package's public face: every name in goldgate.__all__ resolves, lazily."""

from __future__ import annotations

import subprocess
import sys

import pytest

import goldgate


@pytest.mark.parametrize("name", goldgate.__all__)
def test_every_public_name_resolves(name: str) -> None:
    assert getattr(goldgate, name) is not None or name == "FrozenJson"


def test_unknown_names_raise_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = goldgate.nope  # type: ignore[attr-defined]


def test_importing_goldgate_loads_no_models() -> None:
    code = "import sys, goldgate; print('pydantic' in sys.modules, 'anyio' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )

    assert result.stdout.split() == ["False", "False"]


def test_the_api_names_are_the_evaluation_modules() -> None:
    from goldgate.run import api as evaluation

    assert goldgate.evaluate is evaluation.evaluate
    assert goldgate.EvaluationVariant is evaluation.EvaluationVariant
    assert goldgate.Expectation is evaluation.Expectation
    assert goldgate.RegisteredScorer is evaluation.RegisteredScorer


def test_replay_and_compare_are_public_and_no_module_shadows_them() -> None:
    # Importing the modules that hold them must not replace the public functions: the
    # modules are named replays and comparison for that reason.
    from goldgate import comparison
    from goldgate.comparison import models
    from goldgate.comparison import replay as replays

    assert goldgate.replay is replays.replay
    assert goldgate.compare is comparison.compare
    assert goldgate.Comparison is models.Comparison
    code = (
        "import goldgate.comparison.models, goldgate.comparison.replay, goldgate; "
        "from goldgate import compare, replay; print(callable(compare), callable(replay))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.split() == ["True", "True"]
