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
_GIVE_UP_SECONDS = 10.0
_SWEEP_GAP = 64  # numbers in a row with no process: the sweep is past the newest


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


def _parents(
    killing: set[int] | None = None, spared: frozenset[int] = frozenset()
) -> dict[int, int]:
    """Every process's parent, read from ``/proc``. With ``killing`` (this process and its
    descendants known so far), a process but ``spared`` whose parent is among them
    is killed (SIGKILL) the moment it is read, and joins them: a process that forks and
    ends in a loop is caught within its next fork, not a whole listing later."""
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
            pid, parent = int(name), int(fields[1])
        except (OSError, ValueError, IndexError):
            continue
        found[pid] = parent
        if killing is not None and parent in killing and pid not in spared:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
            killing.add(pid)
    return found


def descendants(root: int | None = None, spared: frozenset[int] = frozenset()) -> set[int]:
    """The processes whose chain of parents leads to ``root`` (this process), zombies
    included, but ``spared`` and what descends from them."""
    root = os.getpid() if root is None else root
    return _below(root, _parents(), spared)


def _below(root: int, parents: dict[int, int], spared: frozenset[int]) -> set[int]:
    children: dict[int, list[int]] = {}
    for pid, parent in parents.items():
        children.setdefault(parent, []).append(pid)
    found: set[int] = set()
    waiting = list(children.get(root, []))
    while waiting:
        pid = waiting.pop()
        if pid not in found and pid not in spared:
            found.add(pid)
            waiting += children.get(pid, [])
    return found


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


def reap_descendants(spared: frozenset[int] = frozenset()) -> bool:
    """Kill (SIGKILL) and reap every descendant of this process but ``spared`` (those it had
    before user code ran: an in-process caller's own, and theirs), again and again until
    none is left, living or ended: orphans keep arriving as their parents die. Whether
    none is left (False: some still ran after ``_GIVE_UP_SECONDS``, and the caller must not
    trust anything they could write). Call it once the child that ran user code has been
    waited for: whatever is left is what that code started.

    Done only when a whole listing of ``/proc`` finds no descendant at all, not even one
    that has ended: a process that forks and ends in a loop always leaves one behind (its
    child lives, or it is a zombie this subreaper has not collected, since only this loop
    collects), so it cannot slip between listings as it could were ended ones not counted.
    Every one found is killed at once, ended or not (killing a zombie is harmless), before
    its state is read again."""
    me = os.getpid()
    known: set[int] = set()
    deadline = time.monotonic() + _GIVE_UP_SECONDS
    while time.monotonic() < deadline:
        _kill_children(spared, deadline)
        killing = {me, *known}
        parents = _parents(killing, spared)
        found = _below(me, parents, spared)
        if not found:
            return True
        _sweep(max(parents), killing, spared)
        for pid in found - killing:  # listed before its parent: killed now
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        known = found
        _reap(found)
        if not any(_zombie(pid) for pid in found):
            time.sleep(0.001)  # a killed process takes a moment to end
    return not descendants(spared=spared)


def _own_children() -> set[int] | None:
    """This process's children, from ``/proc/self/task/*/children`` (None where the kernel
    does not keep that file)."""
    found: set[int] = set()
    try:
        tasks = os.listdir("/proc/self/task")
        for task in tasks:
            with open(f"/proc/self/task/{task}/children", "rb") as children:
                found.update(int(pid) for pid in children.read().split())
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        pass  # a thread that ended meanwhile: its children are the others' now
    return found


def _kill_children(spared: frozenset[int], deadline: float) -> None:
    """Kill and collect this process's own children but ``spared`` until none is left.
    A subreaper inherits each orphan of user code as its parent ends, so a chain that forks
    and ends in a loop lands here one member at a time: one small file read a round catches
    it long before a listing of every process in ``/proc`` would, on a busy machine too. The
    listing after it still decides whether anything is left."""
    while time.monotonic() < deadline:
        children = _own_children()
        if children is None:
            return
        living = children - spared
        if not living:
            return
        for pid in living:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        _reap(living)


def _sweep(after: int, killing: set[int], spared: frozenset[int]) -> None:
    """Kill the processes started since a listing of ``/proc`` whose parent is in
    ``killing`` (which they join): Linux gives new processes the numbers after the last
    one, so those past ``after`` (the highest listed) are read at once, without listing
    again, and a process that forks and ends in a loop cannot stay ahead of the listings."""
    empty = 0
    pid = after
    while empty < _SWEEP_GAP:
        pid += 1
        try:
            with open(f"/proc/{pid}/stat", "rb") as stat:
                parent = int(stat.read().rpartition(b")")[2].split()[1])
        except (OSError, ValueError, IndexError):
            empty += 1
            continue
        empty = 0
        if parent in killing and pid not in spared:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
            killing.add(pid)


def _reap(pids: set[int]) -> None:
    """Collect those of ``pids`` that are this process's children and have ended (never
    another child's status: an in-process caller's own)."""
    for pid in pids:
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(pid, os.WNOHANG)


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rpartition(b")")[2].split()[0] == b"Z"
    except (OSError, IndexError):
        return True  # gone
