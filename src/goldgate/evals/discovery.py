"""Finding eval functions: files named on the command line, and in folders the files named
``eval_*.py`` or ``*_eval.py``, imported one by one.

An eval file is imported as a module of its own (a name derived from its path, so two
``eval_qa.py`` in different folders do not collide), with its folder and the project's on
``sys.path`` so that it can import its helpers and the application. What it prints while
importing goes to stderr: stdout is goldgate's. A file that does not import is
``InvalidInputError`` (exit 2) naming the file and the line.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
import traceback
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from goldgate.base.channel import import_deadline, signal_received
from goldgate.base.errors import GoldgateError, InvalidInputError
from goldgate.base.problems import display_path
from goldgate.base.stdio import user_output_to_stderr
from goldgate.evals._decorator import EvalFunction

__all__ = ["eval_files", "import_eval_file", "is_eval_file", "load_evals"]

_SKIPPED_FOLDERS = frozenset({"__pycache__", "node_modules", "site-packages"})


def is_eval_file(path: Path) -> bool:
    """Whether a file found in a folder is an eval file."""
    name = path.name
    return name.endswith(".py") and (name.startswith("eval_") or name.endswith("_eval.py"))


def _walk(folder: Path) -> Iterator[Path]:
    try:
        entries = sorted(folder.iterdir())
    except OSError as error:
        raise InvalidInputError(
            f"{display_path(folder)}: cannot be read ({error.strerror or error})."
        ) from None
    for entry in entries:
        if entry.is_dir() and not entry.is_symlink():
            if entry.name.startswith(".") or entry.name in _SKIPPED_FOLDERS:
                continue
            if (entry / "pyvenv.cfg").exists():  # a virtual environment
                continue
            yield from _walk(entry)
        elif entry.is_file() and is_eval_file(entry):
            yield entry


def eval_files(paths: Iterable[Path]) -> list[Path]:
    """The eval files ``paths`` name: a file as given, a folder's eval files (recursively, in
    name order). Each once, in order of first mention."""
    found: dict[Path, None] = {}
    for path in paths:
        if path.is_file():
            found.setdefault(path.resolve(), None)
        elif path.is_dir():
            for file in _walk(path):
                found.setdefault(file.resolve(), None)
        else:
            raise InvalidInputError(f"{display_path(path)}: no such file or folder.")
    return list(found)


def _line_in(error: BaseException, path: Path) -> int | None:
    frames = [f for f in traceback.extract_tb(error.__traceback__) if Path(f.filename) == path]
    return frames[-1].lineno if frames else None


def _module_name(path: Path) -> str:
    digest = hashlib.sha256(str(path).encode("utf-8", "surrogatepass")).hexdigest()[:12]
    stem = "".join(c if c.isalnum() or c == "_" else "_" for c in path.stem)
    return f"goldgate_eval_{digest}_{stem}"


def import_eval_file(path: Path, search_paths: Sequence[Path] = ()) -> list[EvalFunction]:
    """Import one eval file and return the eval functions it defines, in source order."""
    display = display_path(path)
    for folder in reversed([path.parent, *search_paths]):
        entry = str(folder)
        if entry not in sys.path:
            sys.path.insert(0, entry)
    name = _module_name(path)
    spec = importlib.util.spec_from_file_location(name, path)
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
        raise InvalidInputError(f"{display}:{line}: {error}") from None
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
    return sorted(found, key=lambda function: function.line)


def load_evals(paths: Sequence[Path], search_paths: Sequence[Path] = ()) -> list[EvalFunction]:
    """Every eval function in ``paths``, file by file in order."""
    functions: list[EvalFunction] = []
    for file in eval_files(paths):
        functions.extend(import_eval_file(file, search_paths))
    return functions
