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
import threading
from collections.abc import Callable, Iterator
from typing import Any

_channel: int | None = None
"""In the child: the write end of the pipe to the parent."""
_signalled: list[int] = []
_stop_handlers: list[Callable[[int], None]] = []
_stops_from: list[int] = []
_listening: list[bool] = []
"""Where a stop forwarded by the parent goes (``listen_for_stops``): the run's own."""


def open_channel(write_end: int) -> None:
    """In a freshly forked child: what ``announce`` writes goes to ``write_end``."""
    global _channel  # noqa: PLW0603 - one process, one parent
    _channel = write_end


def listen_for_stops(read_end: int) -> None:
    """In a freshly forked child: the signal numbers the parent writes to ``read_end`` as it
    forwards SIGINT and SIGTERM go to the handler ``on_stop`` registers, read by a thread
    started then (not here: a run forks its report process while it has no other thread).
    The signal itself can be ignored, blocked or handled by user code that runs in the main
    thread (``signal.signal(SIGTERM, SIG_IGN)`` in an async eval); the pipe cannot, so the
    run stops as asked all the same."""
    _stops_from[:] = [read_end]


def _listen(read_end: int) -> None:
    while True:
        try:
            data = os.read(read_end, 64)
        except InterruptedError:
            continue
        except OSError:
            return
        if not data:
            return
        for signum in data:
            for handler in list(_stop_handlers):
                handler(signum)


def on_stop(handler: Callable[[int], None] | None) -> None:
    """``handler`` gets every stop the parent forwards from now on (None: nobody does)."""
    _stop_handlers.clear()
    if handler is None:
        return
    _stop_handlers.append(handler)
    if _stops_from and not _listening:
        _listening.append(True)
        thread = threading.Thread(
            target=_listen, args=(_stops_from[0],), name="goldgate stop requests", daemon=True
        )
        thread.start()


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
