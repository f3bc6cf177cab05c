"""helpers/lazy.py: a test dependency (scipy.stats, sklearn.metrics) is imported when a test
first uses one of its names, not when pytest collects the module holding it, and a missing one
skips only the test using it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from _pytest.outcomes import Skipped

from helpers.lazy import LazyModule

HEAVY = ("scipy.stats", "sklearn.metrics")


@pytest.fixture
def planted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A module of its own on sys.path, not imported yet."""
    name = f"lazy_witness_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text("ANSWER = 42\n", "utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, name, raising=False)
    return name


def test_collection_s_questions_import_nothing(planted: str) -> None:
    lazy = LazyModule(planted)

    for asked in ("__test__", "_mock_name", "__call__", "__wrapped__"):
        getattr(lazy, asked, None)

    assert planted not in sys.modules


def test_a_public_name_imports_the_module(planted: str) -> None:
    assert LazyModule(planted).ANSWER == 42
    assert planted in sys.modules


def test_a_missing_module_skips_the_test_using_it_with_the_reason() -> None:
    lazy = LazyModule("no_such_module_lazy_witness", reason="the oracle is missing")

    with pytest.raises(Skipped, match="the oracle is missing"):
        assert lazy.anything is None


def test_the_oracle_modules_are_lazy_where_the_tests_name_them() -> None:
    """The modules that use scipy.stats and sklearn.metrics hold them lazily (an eager
    ``pytest.importorskip`` at module level costs every pytest worker two CPU-seconds)."""
    from compare import test_classification, test_stats
    from scoring import test_judges, test_metrics_sklearn

    held = [
        getattr(module, name)
        for module, name in (
            (test_stats, "scipy_stats"),
            (test_classification, "scipy_stats"),
            (test_judges, "sklearn_metrics"),
            (test_metrics_sklearn, "sklearn_metrics"),
        )
    ]
    assert all(isinstance(value, LazyModule) for value in held)
    assert {value._name for value in held} == set(HEAVY)
