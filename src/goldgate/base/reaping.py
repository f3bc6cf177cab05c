"""Ending what user code left running: a process that runs user code in a child makes itself
the subreaper of that child's descendants (Linux), so that a daemon the code started (even
one that called ``setsid``) becomes this process's child when its own parent ends, and
``reap_descendants`` then kills and reaps every one of them. No daemon outlives the run
holding its stdout, stderr or pipes open (``goldgate evals run ... | cat`` ends).

Shared by the supervisor of a run (``goldgate.app.supervisor``) and any step that runs user
code in a child process.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
from pathlib import Path

__all__ = ["become_subreaper", "children_of", "reap_descendants"]

_PR_SET_CHILD_SUBREAPER = 36
_ROUNDS = 100
"""How many times ``reap_descendants`` looks again for children (each round kills every
child found; their own children are reparented here for the next round)."""


def become_subreaper() -> bool:
    """Make this process the subreaper of its descendants' orphans; whether that worked
    (Linux only). Not inherited by a forked child."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def children_of(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (read from ``/proc``; none where there is
    no ``/proc``)."""
    found: list[int] = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_bytes()
        except OSError:  # gone meanwhile
            continue
        fields = stat.rpartition(b")")[2].split()
        if len(fields) > 1 and fields[1].isdigit() and int(fields[1]) == pid:
            found.append(int(entry))
    return found


def reap_descendants() -> int:
    """Kill (SIGKILL) and reap every child of this process, then every process reparented
    to it meanwhile (with ``become_subreaper``: every descendant of a child that ended),
    until none is left; how many were killed. Call it once the child that ran user code has
    been waited for: whatever is left is what that code started."""
    me = os.getpid()
    killed = 0
    for _ in range(_ROUNDS):
        children = children_of(me)
        if not children:
            break
        for pid in children:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        for pid in children:
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(pid, 0)
        killed += len(children)
    return killed
