"""Custom scorer registration: by name and revision, in memory or by import path."""

from __future__ import annotations

import functools
import re
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from goldgate.base.errors import InvalidInputError
from goldgate.base.imports import is_async_callable
from goldgate.base.jsonvalue import FrozenJson
from goldgate.run.scorers import import_scorer
from goldgate.scoring import RegisteredScorer, ScorerRegistry


async def same(actual: FrozenJson, expected: FrozenJson) -> bool:
    return actual == expected


def sync_same(actual: FrozenJson, expected: FrozenJson) -> bool:
    return actual == expected


class AsyncCallable:
    async def __call__(self, actual: FrozenJson, expected: FrozenJson) -> bool:
        return True


async def _three(actual: FrozenJson, expected: FrozenJson, flag: bool) -> bool:
    return flag


def test_async_callables_are_recognised() -> None:
    assert is_async_callable(same)
    assert is_async_callable(AsyncCallable())
    assert is_async_callable(functools.partial(_three, flag=True))
    assert not is_async_callable(sync_same)
    assert not is_async_callable(AsyncCallable)  # the class itself is a sync callable
    assert not is_async_callable("same")


def test_registered_scorer_validates() -> None:
    scorer = RegisteredScorer("same", "1", same)
    assert (scorer.name, scorer.revision, scorer.function) == ("same", "1", same)
    with pytest.raises(TypeError, match="'same' must be an async function"):
        RegisteredScorer("same", "1", sync_same)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="nonempty name"):
        RegisteredScorer("", "1", same)
    with pytest.raises(ValueError, match="nonempty revision"):
        RegisteredScorer("same", "", same)


def test_registry_is_an_immutable_mapping() -> None:
    first, second = RegisteredScorer("a", "1", same), RegisteredScorer("b", "2", same)
    registry = ScorerRegistry([first, second])
    assert list(registry) == ["a", "b"]
    assert registry["b"] is second
    assert registry.get("c") is None
    assert len(registry) == 2
    assert registry.revisions() == {"a": "1", "b": "2"}
    assert len(ScorerRegistry()) == 0
    with pytest.raises(TypeError):
        registry["c"] = first  # type: ignore[index]
    with pytest.raises(AttributeError):
        registry.extra = 1  # type: ignore[attr-defined]


def test_registry_refuses_duplicate_names() -> None:
    with pytest.raises(ValueError, match="scorer 'a' is registered more than once"):
        ScorerRegistry([RegisteredScorer("a", "1", same), RegisteredScorer("a", "2", same)])


def _write(folder: Path, name: str, source: str) -> None:
    (folder / f"{name}.py").write_text(textwrap.dedent(source), encoding="utf-8")


@pytest.fixture
def scorer_folder(tmp_path: Path) -> Any:
    name = f"gg_scorers_{tmp_path.name.replace('-', '_')}"
    _write(
        tmp_path,
        name,
        """
        async def casefolded(actual, expected):
            return actual.casefold() == expected.casefold()

        class Holder:
            @staticmethod
            async def nested(actual, expected):
                return True

        def not_async(actual, expected):
            return True

        constant = 3
        """,
    )
    _write(tmp_path, name + "_broken", "raise RuntimeError('secret-token-123')\n")
    _write(tmp_path, name + "_syntax", "def (:\n")
    _write(tmp_path, name + "_needs", "import gg_definitely_not_installed_module\n")
    saved_path = list(sys.path)
    yield tmp_path, name
    sys.path[:] = saved_path
    for module in [m for m in sys.modules if m.startswith(name)]:
        del sys.modules[module]


def test_import_scorer_puts_search_paths_first(scorer_folder: Any) -> None:
    # They stay on sys.path: a scorer module may import more of its package lazily.
    folder, name = scorer_folder
    scorer = import_scorer(f"{name}:casefolded", "casefolded", "1", [folder])
    assert sys.path[0] == str(folder)
    assert (scorer.name, scorer.revision) == ("casefolded", "1")
    nested = import_scorer(f"{name}:Holder.nested", "nested", "2", [folder])
    assert nested.function.__name__ == "nested"


@pytest.mark.parametrize(
    ("attribute", "message"),
    [
        ("missing", "has no attribute 'missing'"),
        ("Holder.gone", "has no attribute 'Holder.gone'"),
        ("constant", "is not callable"),
        ("not_async", "is not an async function"),
    ],
)
def test_import_scorer_refuses_bad_attributes(
    scorer_folder: Any, attribute: str, message: str
) -> None:
    folder, name = scorer_folder
    with pytest.raises(InvalidInputError, match=re.escape(message)) as caught:
        import_scorer(f"{name}:{attribute}", "s", "1", [folder])
    assert f"'{name}:{attribute}'" in str(caught.value)


@pytest.mark.parametrize(
    ("suffix", "message"),
    [
        ("_broken", "raised RuntimeError"),
        ("_syntax", "raised SyntaxError"),
        ("_needs", "module 'gg_definitely_not_installed_module' was not found"),
        ("_nope", "was not found"),
    ],
)
def test_import_failures_are_one_sentence(scorer_folder: Any, suffix: str, message: str) -> None:
    folder, name = scorer_folder
    with pytest.raises(InvalidInputError, match=message) as caught:
        import_scorer(f"{name}{suffix}:casefolded", "s", "1", [folder])
    text = str(caught.value)
    assert f"'{name}{suffix}:casefolded'" in text
    assert "Traceback" not in text
    assert "secret-token-123" not in text
    assert "\n" not in text
    assert caught.value.__cause__ is None
    assert caught.value.__suppress_context__


@pytest.mark.parametrize("path", ["module", ":attr", "module:", "a:b:c"])
def test_malformed_import_paths(path: str) -> None:
    with pytest.raises(
        InvalidInputError, match=re.escape("is not of the form 'package.module:attribute'")
    ):
        import_scorer(path, "s", "1", [])
