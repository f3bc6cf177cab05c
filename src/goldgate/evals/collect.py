"""From paths to the cases to run: each eval file imported, its evals expanded into cases
(file defaults, cases, input loaders, trials) and the ``PATH::name`` selectors applied.

A file that does not import or defines an eval wrongly stops the run before it starts (exit
2, the sentence naming the file and line). A file that uses an ``@eval`` argument goldgate
does not know (written for a newer EZVals, say) is refused too, with the argument, file and
line named, but never stops the other files: their evals run, the run ends with exit 2, and
the refused file is a case of its own in the report (suite: the file's name, as EZVals
names a file's dataset; case: its path) whose attempt failed with that sentence, so that no
reader of the report misses it. When every file is refused, nothing runs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from goldgate.base.errors import InvalidInputError
from goldgate.base.problems import display_path
from goldgate.evals._decorator import EvalFunction
from goldgate.evals.cases import EvalCase, expand
from goldgate.evals.discovery import EvalFile, eval_files, load_eval_file
from goldgate.evals.errors import UnknownArgumentError

__all__ = ["Collected", "cases_of", "collect"]

_TRIAL: Final = re.compile(r"~\d+$")
_LINE: Final = re.compile(r"^[^\n]*?:(\d+):")


@dataclass(frozen=True)
class Collected:
    """The cases of every usable file, in order (a refused file's among them), and the
    sentence refusing each file that could not be used."""

    cases: tuple[EvalCase, ...]
    refused: tuple[str, ...] = ()
    functions: int = 0
    """How many eval functions the usable files define."""


def _selected(found: EvalFile, cases: list[EvalCase]) -> list[EvalCase]:
    if not found.selectors:
        return cases
    chosen: set[int] = set()
    for selector in found.selectors:
        matched = [
            case
            for case in cases
            if selector in (case.function.name, _TRIAL.sub("", case.case_id), case.case_id)
        ]
        if not matched:
            names = ", ".join(dict.fromkeys(function.name for function in found.functions))
            raise InvalidInputError(
                f"{display_path(found.path)}::{selector}: no eval or case of "
                f"{display_path(found.path)} is named {selector!r}; its evals are "
                f"{names or 'none'}."
            )
        chosen.update(id(case) for case in matched)
    return [case for case in cases if id(case) in chosen]


def cases_of(
    functions: Sequence[EvalFunction], defaults: Mapping[str, Any] | None = None
) -> list[EvalCase]:
    """Every case of ``functions``, in order."""
    return [case for function in functions for case in expand(function, defaults)]


def _not_imported() -> None:
    """Stands in for the evals of a file that could not be used (never called)."""


def _refused_case(path: Path, sentence: str) -> EvalCase:
    display = display_path(path)
    function = EvalFunction(_not_imported, {})
    function.name, function.file, function.who = path.name, path, f"eval file {display}"
    line = _LINE.match(sentence)
    function.line = int(line.group(1)) if line else 1
    payload = {"case": display, "input": None}
    return EvalCase(
        function=function,
        case_id=display,
        input=None,
        reference=None,
        metadata={},
        expect=None,
        envelope={"payload": payload, "metadata": {}},
        origin=f"{display}:{function.line}",
        dataset=path.stem,
        error=(sentence, sentence),
    )


def collect(paths: Sequence[Path], search_paths: Sequence[Path] = ()) -> Collected:
    """The cases of every eval file ``paths`` name (see the module's docstring)."""
    cases: list[EvalCase] = []
    refused: list[InvalidInputError] = []
    usable = functions = 0
    for file, selectors in eval_files(paths):
        try:
            found = load_eval_file(file, search_paths, selectors)
            expanded = cases_of(found.functions, found.defaults)
        except UnknownArgumentError as error:
            refused.append(error)
            cases.append(_refused_case(file, str(error)))
            continue
        usable += 1
        functions += len(found.functions)
        cases.extend(_selected(found, expanded))
    if refused and not usable:
        raise refused[0]
    return Collected(tuple(cases), tuple(str(error) for error in refused), functions)
