"""The one switch for goldgate's speed-ups, and the CPUs they may keep busy.

Each speed-up is private to the stage it speeds up and is chosen there, by asking
``enabled()``; off, that stage takes its plain path, which gives the very same outcome:

- gold (``gold/_stream``): a case file checked as it streams, by forked helpers on spare
  CPUs, its cases read back from the file (``pread``) when the run needs them. Off: the
  file is parsed whole and checked in this process, its cases held in memory.
- patterns (``gold/_flatpatterns``, ``gold/patterns``): flat patterns compiled in one pass
  by a hand-built program, the rest by ``re``'s compiler taken step by step, with a cache of
  our own. Off: ``re.compile``.
- the report (``report/process``): a large run's attempts scored and its report written by
  a process forked for it. Off: in the run's own process.
- verification (``report/background``): ``report merge``'s shards, and the publishing
  step's candidate and baseline (``app/action/verifying``), verified by a process forked for
  it while this one reads, compares and renders them. Off: each report verified by the
  process reading it.
- memory (``base/memory``): the cyclic collector paused, spaced out or frozen around work
  that builds long-lived objects. Off: Python's collector as it comes.

``GOLDGATE_ACCELERATORS=0`` turns every one of them off (so does ``false``, ``no`` or
``off``, in any case); unset, empty, ``1`` or anything else leaves them on, the default: the
switch only ever chooses between two paths with equal outcomes, so no value of it is a
mistake worth stopping a run for. It is read once per process, when a stage first asks
(a forked process inherits the answer); ``refresh`` reads it again (for tests).

``used()`` names the speed-ups this process took (each stage notes its own with ``note``),
so that a test can tell a run really took the accelerated paths.
"""

from __future__ import annotations

import contextlib
import functools
import os
from pathlib import Path
from typing import Final

__all__ = ["VARIABLE", "cpu_budget", "enabled", "note", "refresh", "used"]

VARIABLE: Final = "GOLDGATE_ACCELERATORS"
_OFF: Final = frozenset({"0", "false", "no", "off"})


@functools.cache
def enabled() -> bool:
    """Whether the speed-ups are on (see the module's description)."""
    return os.environ.get(VARIABLE, "").strip().lower() not in _OFF


def refresh() -> None:
    """Read ``GOLDGATE_ACCELERATORS`` again at the next ``enabled()``."""
    enabled.cache_clear()


_USED: set[str] = set()


def note(name: str) -> None:
    """The speed-up ``name`` was taken in this process (cheap: a set's add)."""
    _USED.add(name)


def used() -> frozenset[str]:
    """The speed-ups this process (or the one it was forked from, before the fork) took."""
    return frozenset(_USED)


_QUOTAS: Final = (
    ("/sys/fs/cgroup/cpu.max", None),  # cgroup v2: "<quota> <period>" or "max <period>"
    ("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", "/sys/fs/cgroup/cpu/cpu.cfs_period_us"),  # v1
)


def cpu_budget() -> float:
    """How many CPUs this process may keep busy: those it may run on, or fewer where its
    container's CPU quota says so (a container limited to one CPU gains nothing from a
    forked helper, and shares that CPU with it)."""
    cpus = float(len(os.sched_getaffinity(0)))
    for quota_file, period_file in _QUOTAS:
        try:
            fields = Path(quota_file).read_text().split()
            if period_file is not None:
                fields.append(Path(period_file).read_text().strip())
        except OSError:
            continue
        if len(fields) == 2 and fields[0] not in ("max", "-1"):
            with contextlib.suppress(ValueError, ZeroDivisionError):
                cpus = min(cpus, int(fields[0]) / int(fields[1]))
        break
    return cpus
