"""How an eval's failures are told: the error text a result keeps (as EZVals records it: the
exception's type and message, then the traceback through the user's own code only) and the
``file:line`` where it was raised, for the safe one-sentence reason of the attempt.

The error text is private detail (it may hold anything the message held): it is kept in the
attempt's result in the report, never printed. The reason names the type and the place only.
"""

from __future__ import annotations

import os
import sys
import threading
import traceback
from pathlib import Path
from typing import Final

__all__ = ["describe", "place"]

_OWN: Final = str(Path(__file__).resolve().parent.parent)
"""goldgate's package folder: its frames are not the user's."""


def _internal_folders() -> tuple[str, ...]:
    folders = [_OWN, "<", threading.__file__]
    for name in ("asyncio", "anyio", "concurrent.futures"):
        module = sys.modules.get(name)
        where = getattr(module, "__file__", None)
        if where:
            folders.append(os.path.dirname(where))
    return tuple(folders)


def _shown(filename: str, root: Path | None) -> str:
    path = Path(filename)
    base = root if root is not None else Path.cwd()
    try:
        return path.resolve().relative_to(base.resolve()).as_posix()
    except (ValueError, OSError):
        return path.name if root is not None else filename


def _user_frames(error: BaseException) -> list[traceback.FrameSummary]:
    internal = _internal_folders()
    return [
        frame
        for frame in traceback.extract_tb(error.__traceback__)
        if not frame.filename.startswith(internal)
    ]


def place(error: BaseException, root: Path) -> str | None:
    """``file:line`` (relative to ``root`` when inside it, else the file's name) of the
    innermost frame of ``error``'s traceback in the user's code."""
    frames = _user_frames(error)
    if not frames:
        return None
    return f"{_shown(frames[-1].filename, root)}:{frames[-1].lineno}"


def describe(error: BaseException, headline: str | None = None, root: Path | None = None) -> str:
    """The error as EZVals records it: ``Type: message`` (or ``headline``), then the
    traceback through the user's code only."""
    frames = _user_frames(error)
    for frame in frames:
        frame.filename = _shown(frame.filename, root)
    where = (
        "Traceback (most recent call last):\n" + "".join(traceback.format_list(frames))
        if frames
        else ""
    )
    first = headline + "\n" if headline else "".join(traceback.format_exception_only(error))
    return first + where
