"""Memory management for large, acyclic workloads.

Loading gold, reading a report and rendering one build millions of small objects that live
on and hold no reference cycles. Python's cyclic collector, triggered by those allocations,
would rescan the growing heap again and again (measured: reading a 100,000-attempt report
took 9 s instead of 2 s, and checking large gold grew quadratically). Pausing it for the
length of such work loses nothing: the objects are freed by reference counting.

This tuning is an accelerator (``base.accelerators``): with ``GOLDGATE_ACCELERATORS=0``
every function here leaves the collector as Python runs it. ``resident_bytes`` and
``single_threaded`` say what this process holds now, for the report process's choice
(``report.process.report_process_wanted``).
"""

from __future__ import annotations

import contextlib
import gc
import os
from collections.abc import Iterator

from goldgate.base import accelerators

__all__ = [
    "RUN_YOUNG_THRESHOLD",
    "collections_paused",
    "collections_spaced",
    "freeze_survivors",
    "long_lived",
    "resident_bytes",
    "single_threaded",
]


@contextlib.contextmanager
def collections_paused() -> Iterator[None]:
    """No cyclic garbage collection inside the block (restored as it was, even nested)."""
    if not accelerators.enabled():
        yield
        return
    accelerators.note("gc tuning")
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@contextlib.contextmanager
def long_lived() -> Iterator[None]:
    """Around building what lives as long as the process: a command's imports of what it
    runs on (goldgate's modules, pydantic's models, the event loop), and the gold, targets
    and settings a run prepares. They are hundreds of thousands of objects, millions for
    large gold, which each collection would scan again: the first one after loading 10,000
    cases took 20-32 ms. Nothing is collected while they are built, and what exists then is
    frozen out of later collections (``gc.freeze``), so that collections resume with
    nothing of it to scan."""
    with collections_paused():
        yield
        freeze_survivors()


def freeze_survivors() -> None:
    """What exists now lives as long as the process (the gold a run loaded, say): frozen
    out of later collections (``gc.freeze``), which then have nothing of it to scan."""
    if accelerators.enabled():
        gc.freeze()


RUN_YOUNG_THRESHOLD = 10_000
"""Allocations between two collections of the youngest generation during a run, instead of
Python's 700 (``collections_spaced``)."""


@contextlib.contextmanager
def collections_spaced(young: int = RUN_YOUNG_THRESHOLD) -> Iterator[None]:
    """Collections of the youngest generation ``young`` allocations apart inside the block
    (the older generations' thresholds, and the threshold after the block, as they were).

    A run allocates a few dozen containers per attempt, nearly all freed by reference
    counting once the attempt is written. Collected every 700 allocations, those in flight
    were scanned again and again: 60 collections and 17 ms of the run's process at 10,000
    attempts, against 2 ms with 10,000 (what a collection finds, a target's cycles, is
    found a little later)."""
    if not accelerators.enabled():
        yield
        return
    previous = gc.get_threshold()
    gc.set_threshold(young, *previous[1:])
    try:
        yield
    finally:
        gc.set_threshold(*previous)


def single_threaded() -> bool:
    """Whether this process runs one thread, counting threads that native code started
    (which ``threading`` does not see)."""
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


def resident_bytes() -> int:
    """This process's resident memory now. (Not ``ru_maxrss``: Linux carries a peak over
    ``exec``, so a process started by a large one would seem to hold what its parent held.)"""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0
