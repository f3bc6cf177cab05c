"""Finding eval functions as ``ezvals run PATH`` finds them: a file named on the command line,
whatever its name; in a folder (searched recursively, in name order) every ``.py`` file
except those whose names start with ``_``, skipping hidden folders, folders whose names start
with ``__``, ``node_modules`` and ``venv`` (and, goldgate's addition, any folder holding a
virtual environment's ``pyvenv.cfg``). ``PATH::name,other`` selects evals of a file by
function name, ``name[id]`` (or ``name@id``) one case.

An eval file is imported as a module of its own (a name derived from its path, so two
``eval_qa.py`` in different folders do not collide), with its folder and the project's on
``sys.path`` so that it can import its helpers and the application. What it prints while
importing goes to stderr: stdout is goldgate's. A file that does not import is
``InvalidInputError`` (exit 2) naming the file and the line. Its module-level
``ezvals_defaults`` are its evals' file defaults.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import sys
import traceback
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from goldgate.base.channel import import_deadline, signal_received
from goldgate.base.errors import GoldgateError, InvalidInputError
from goldgate.base.problems import display_path
from goldgate.base.stdio import user_output_to_stderr
from goldgate.evals._decorator import EvalFunction
from goldgate.evals.errors import UnknownArgumentError
from goldgate.evals.layering import check_defaults

__all__ = [
    "EvalFile",
    "eval_files",
    "import_eval_file",
    "is_eval_file",
    "load_eval_file",
    "load_evals",
    "split_selectors",
]

_SKIPPED_FOLDERS = frozenset({"node_modules", "venv"})


@dataclass(frozen=True)
class EvalFile:
    """One eval file, imported: its evals in source order, its file defaults, and the
    selectors its path carried (``PATH::name,...``; empty: every eval)."""

    path: Path
    functions: tuple[EvalFunction, ...]
    defaults: Mapping[str, Any] = field(default_factory=dict)
    selectors: tuple[str, ...] = ()


def is_eval_file(path: Path) -> bool:
    """Whether a file found in a folder is an eval file: a ``.py`` file whose name does not
    start with ``_``."""
    name = path.name
    return name.endswith(".py") and not name.startswith("_")


def _skipped_folder(folder: Path) -> bool:
    name = folder.name
    if name.startswith((".", "__")) or name in _SKIPPED_FOLDERS:
        return True
    return (folder / "pyvenv.cfg").exists()  # a virtual environment, whatever its name


def _walk(folder: Path) -> Iterator[Path]:
    try:
        entries = sorted(folder.iterdir())
    except OSError as error:
        raise InvalidInputError(
            f"{display_path(folder)}: cannot be read ({error.strerror or error})."
        ) from None
    for entry in entries:
        if entry.is_dir() and not entry.is_symlink():
            if not _skipped_folder(entry):
                yield from _walk(entry)
        elif entry.is_file() and is_eval_file(entry):
            yield entry


def split_selectors(path: Path) -> tuple[Path, tuple[str, ...]]:
    """``PATH::name,other[id]`` as the path and its selectors (``name@id`` is ``name[id]``);
    a path without ``::`` selects everything."""
    text = str(path)
    if "::" not in text or path.exists():
        return path, ()
    head, _, tail = text.partition("::")
    selectors = []
    for given in tail.split(","):
        part = given.strip()
        if "@" in part and not part.endswith("]"):
            name, _, case = part.partition("@")
            part = f"{name}[{case}]"
        if part:
            selectors.append(part)
    return Path(head), tuple(selectors)


def eval_files(paths: Iterable[Path]) -> list[tuple[Path, tuple[str, ...]]]:
    """The eval files ``paths`` name, with their selectors: a file as given, a folder's eval
    files (recursively, in name order). Each once, in order of first mention (a file named
    twice with selectors gets them all)."""
    found: dict[Path, tuple[str, ...]] = {}
    for given in paths:
        path, selectors = split_selectors(given)
        if path.is_file():
            file = path.resolve()
            before = found.get(file)
            if before is None:
                found[file] = selectors
            elif before and selectors:
                found[file] = (*before, *selectors)
            else:
                found[file] = ()
        elif path.is_dir() and not selectors:
            for file in _walk(path):
                found.setdefault(file.resolve(), ())
        elif path.is_dir():
            raise InvalidInputError(
                f"{display_path(given)}: '::' selects evals of a file; {display_path(path)} "
                "is a folder."
            )
        else:
            raise InvalidInputError(f"{display_path(path)}: no such file or folder.")
    return list(found.items())


def _line_in(error: BaseException, path: Path) -> int | None:
    frames = [f for f in traceback.extract_tb(error.__traceback__) if Path(f.filename) == path]
    return frames[-1].lineno if frames else None


def _module_name(path: Path) -> str:
    digest = hashlib.sha256(str(path).encode("utf-8", "surrogatepass")).hexdigest()[:12]
    stem = "".join(c if c.isalnum() or c == "_" else "_" for c in path.stem)
    return f"goldgate_eval_{digest}_{stem}"


def _import(path: Path, search_paths: Sequence[Path]) -> tuple[list[EvalFunction], Any]:
    """Import one eval file: the eval functions it defines, in source order, and its
    ``ezvals_defaults`` (``None`` when it has none)."""
    display = display_path(path)
    for folder in reversed([path.parent, *search_paths]):
        entry = str(folder)
        if entry not in sys.path:
            sys.path.insert(0, entry)
    name = _module_name(path)
    # A named file is Python whatever its name ends with (``evals.txt`` too).
    loader = importlib.machinery.SourceFileLoader(name, str(path))
    spec = importlib.util.spec_from_file_location(name, path, loader=loader)
    if spec is None or spec.loader is None:
        raise InvalidInputError(f"{display}: cannot be imported as a Python file.")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        with user_output_to_stderr(), import_deadline(f"eval file {display}"):
            spec.loader.exec_module(module)  # stdout is goldgate's
    except SyntaxError as error:
        sys.modules.pop(name, None)
        line = error.lineno or 1
        where = display_path(Path(error.filename)) if error.filename else display
        raise InvalidInputError(
            f"{where}:{line}: the eval file does not parse ({error.msg})."
        ) from None
    except KeyboardInterrupt as error:
        sys.modules.pop(name, None)
        if signal_received():
            raise  # Ctrl-C or SIGTERM while importing: interrupted, not a broken file
        line = _line_in(error, path) or 1
        raise InvalidInputError(
            f"{display}:{line}: the eval file does not import: importing it raised "
            "KeyboardInterrupt."
        ) from None
    except GoldgateError as error:  # an eval defined wrongly: say where
        sys.modules.pop(name, None)
        line = _line_in(error, path) or 1
        refusal = (
            UnknownArgumentError if isinstance(error, UnknownArgumentError) else InvalidInputError
        )
        raise refusal(f"{display}:{line}: {error}") from None
    except BaseException as error:
        sys.modules.pop(name, None)
        line = _line_in(error, path) or 1
        if isinstance(error, ModuleNotFoundError) and error.name:
            why = f"module {error.name!r} was not found"
        else:
            why = f"importing it raised {type(error).__name__}"
        raise InvalidInputError(
            f"{display}:{line}: the eval file does not import: {why}."
        ) from None
    found = [
        value
        for value in vars(module).values()
        if isinstance(value, EvalFunction) and getattr(value.function, "__module__", None) == name
    ]
    return sorted(found, key=lambda function: function.line), vars(module).get("ezvals_defaults")


def import_eval_file(path: Path, search_paths: Sequence[Path] = ()) -> list[EvalFunction]:
    """Import one eval file and return the eval functions it defines, in source order."""
    return _import(path, search_paths)[0]


def _defaults_line(path: Path) -> int:
    """The line of ``ezvals_defaults =`` in ``path`` (1 when it is not found as written)."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return 1
    return next((n for n, t in enumerate(lines, 1) if t.startswith("ezvals_defaults")), 1)


def load_eval_file(
    path: Path, search_paths: Sequence[Path] = (), selectors: tuple[str, ...] = ()
) -> EvalFile:
    """Import one eval file, its file defaults checked (``InvalidInputError`` naming the
    file and line)."""
    functions, defaults = _import(path, search_paths)
    where = f"{display_path(path)}:{_defaults_line(path)}"
    return EvalFile(path, tuple(functions), check_defaults(defaults, where), selectors)


def load_evals(paths: Sequence[Path], search_paths: Sequence[Path] = ()) -> list[EvalFile]:
    """Every eval file ``paths`` name, imported, in order."""
    return [load_eval_file(file, search_paths, selectors) for file, selectors in eval_files(paths)]
