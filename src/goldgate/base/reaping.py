"""Ending what user code left running: a process that runs user code in a child makes itself
the subreaper of that child's descendants (Linux: ``PR_SET_CHILD_SUBREAPER``), so that a
daemon the code started (even one that double-forked and called ``setsid``) is re-parented
to this process rather than to init when its own parent ends, and ``reap_descendants`` then
kills and reaps every one of them, whatever session or group it moved to. No daemon outlives
the run holding its stdout, stderr or pipes open (``goldgate evals run ... | cat`` ends), or
reads the publishing step's environment.

Shared by the supervisor of a run (``goldgate.app.supervisor``) and the action's run step
(``goldgate.app.action.seal``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time

__all__ = ["become_subreaper", "collect_orphans", "descendants", "reap_descendants"]

_PR_SET_CHILD_SUBREAPER = 36
_ROUNDS = 10_000


def become_subreaper() -> bool:
    """Make this process the subreaper of its descendants (Linux); whether it is one."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def _parents() -> dict[int, int]:
    """Every process's parent, read from ``/proc``."""
    found: dict[int, int] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return found
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as stat:
                fields = stat.read().rpartition(b")")[2].split()
            found[int(name)] = int(fields[1])
        except (OSError, ValueError, IndexError):
            continue
    return found


def descendants(root: int | None = None) -> set[int]:
    """The processes whose chain of parents leads to ``root`` (this process)."""
    root = os.getpid() if root is None else root
    parents = _parents()
    children: dict[int, list[int]] = {}
    for pid, parent in parents.items():
        children.setdefault(parent, []).append(pid)
    found: set[int] = set()
    waiting = list(children.get(root, []))
    while waiting:
        pid = waiting.pop()
        if pid not in found:
            found.add(pid)
            waiting += children.get(pid, [])
    return found


def _reap(pids: set[int]) -> None:
    """Collect those of ``pids`` that are this process's children and have ended (never
    another child's status: an in-process caller's own)."""
    for pid in pids:
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(pid, os.WNOHANG)


def collect_orphans(spared: frozenset[int] = frozenset(), kept: int | None = None) -> None:
    """Reap this process's children that have ended, but ``spared`` and ``kept`` (the child
    whose status the caller waits for). A subreaper inherits every orphan of user code: one
    that ends while the run goes on stays a zombie until its new parent collects it, and a
    container whose PID 1 counts zombies (tini's census) would find it there."""
    me = os.getpid()
    for pid, parent in _parents().items():
        if parent == me and pid != kept and pid not in spared and _zombie(pid):
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(pid, os.WNOHANG)


def reap_descendants(spared: frozenset[int] = frozenset()) -> int:
    """Kill (SIGKILL) and reap every descendant of this process but ``spared`` (those it had
    before user code ran: an in-process caller's own), again and again until none is left:
    orphans keep arriving as their parents die; the number killed. Call it once the child
    that ran user code has been waited for: whatever is left is what that code started."""
    killed: set[int] = set()
    for _ in range(_ROUNDS):
        _reap(killed)
        living = {pid for pid in descendants() - spared if not _zombie(pid)}
        if not living:
            _reap(killed)
            collect_orphans(spared)  # those that ended by themselves meanwhile
            return len(killed)
        for pid in living:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        killed |= living
        time.sleep(0.002)
    return len(killed)


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rpartition(b")")[2].split()[0] == b"Z"
    except (OSError, IndexError):
        return True  # gone
