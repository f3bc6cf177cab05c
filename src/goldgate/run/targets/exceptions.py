"""What an in-process target (a python target, a Python eval) raised, as the report keeps it:
the exception's type, the innermost frame of the application (where a reviewer looks
first), and, as private detail, its message and its last frames, all bounded.

"The application" is every frame but goldgate's own, the standard library's and installed
packages' (site-packages): a library that raises deep inside is reported at the line of the
application that called it. Where no frame is the application's (it is installed as a
package too), the innermost frame that is not goldgate's is taken.
"""

from __future__ import annotations

import os
import sysconfig
import traceback
from functools import cache
from pathlib import Path
from typing import Any

FRAMES = 5
"""Frames kept, the innermost."""
MESSAGE_LIMIT = 1_000
"""Characters of the message kept."""
_NAME_LIMIT = 300


_GOLDGATE = os.path.join(str(Path(__file__).resolve().parents[2]), "")
"""goldgate's own package folder (its frames are never the application's)."""


@cache
def _not_application() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    folders = {
        _GOLDGATE,
        *(paths[key] for key in ("stdlib", "platstdlib", "purelib", "platlib") if key in paths),
    }
    return tuple(os.path.join(os.path.realpath(folder), "") for folder in folders)


def _outside_application(file: str) -> bool:
    if file.startswith("<"):  # <frozen ...>, <string>
        return True
    real = os.path.realpath(file)
    return real.startswith(_not_application()) or "site-packages" in Path(real).parts


def _goldgate(file: str) -> bool:
    return os.path.realpath(file).startswith(_GOLDGATE)


def _shown(file: str, root: Path | None) -> str:
    """A frame's file: relative to the project folder where it lies inside, else its name
    alone (where a machine keeps its packages is nobody's business)."""
    if file.startswith("<"):
        return file[:_NAME_LIMIT]
    if root is not None:
        try:
            return Path(os.path.realpath(file)).relative_to(root.resolve()).as_posix()
        except (ValueError, OSError):
            pass
    return Path(file).name[-_NAME_LIMIT:]


def _frame(summary: traceback.FrameSummary, root: Path | None) -> dict[str, Any]:
    return {
        "file": _shown(summary.filename, root),
        "line": summary.lineno,
        "function": summary.name[:_NAME_LIMIT],
    }


def exception_json(error: BaseException, root: Path | None) -> dict[str, Any]:
    """``error`` as the report's ``exception`` record (``report.caserecords.ExceptionRecord``),
    files relative to ``root`` (the project folder) where they lie inside; the report leaves
    out its message and frames when it keeps no details (``report.build``)."""
    kind = type(error)
    name = (
        kind.__qualname__
        if kind.__module__ in ("builtins", "__main__")
        else (f"{kind.__module__}.{kind.__qualname__}")
    )
    frames = [f for f in traceback.extract_tb(error.__traceback__) if not _goldgate(f.filename)]
    application = [f for f in frames if not _outside_application(f.filename)]
    record: dict[str, Any] = {"type": name[:_NAME_LIMIT]}
    if application or frames:
        record["where"] = _frame((application or frames)[-1], root)
    try:
        message = str(error)
    except Exception:  # a __str__ that raises says nothing: its type does
        message = ""
    record["message"] = message[:MESSAGE_LIMIT]
    record["frames"] = [_frame(f, root) for f in frames[-FRAMES:]]
    return record
