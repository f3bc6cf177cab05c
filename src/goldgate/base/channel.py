"""What a supervised child tells its supervisor (``goldgate.app.supervisor``), and whether a
real signal reached this process: the child's side, which any stage may use.

Over a private pipe the child says where its report's temporary file is, when its report is
written, and when it starts and ends an import of user code. Outside a supervised child
nothing is said.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from typing import Any

_channel: int | None = None
"""In the child: the write end of the pipe to the parent."""
_signalled: list[int] = []


def open_channel(write_end: int) -> None:
    """In a freshly forked child: what ``announce`` writes goes to ``write_end``."""
    global _channel  # noqa: PLW0603 - one process, one parent
    _channel = write_end


def note_signal(signum: int) -> None:
    """A real SIGINT or SIGTERM reached this process (its handlers call this), so that a
    ``KeyboardInterrupt`` raised while importing user code can be told from one the code
    raised itself."""
    _signalled.append(signum)


def signal_received() -> bool:
    return bool(_signalled)


def in_child() -> bool:
    """Whether this process is a supervised child (it must end with ``os._exit``)."""
    return _channel is not None


def announce(kind: str, *values: Any) -> None:
    """Tell the parent something (nothing happens outside a supervised child). One line of
    JSON, far below PIPE_BUF, so that it arrives whole or not at all."""
    if _channel is None:
        return
    line = json.dumps([kind, *values], ensure_ascii=True).encode("ascii") + b"\n"
    with contextlib.suppress(OSError):
        os.write(_channel, line)


@contextlib.contextmanager
def import_deadline(what: str) -> Iterator[None]:
    """Around an import of user code: the parent ends the child when it takes longer than
    the deadline given to ``supervise``."""
    announce("import", what)
    try:
        yield
    finally:
        announce("imported")
