"""Memory management for large, acyclic workloads.

Loading gold, reading a report and rendering one build millions of small objects that live
on and hold no reference cycles. Python's cyclic collector, triggered by those allocations,
would rescan the growing heap again and again (measured: reading a 100,000-attempt report
took 9 s instead of 2 s, and checking large gold grew quadratically). Pausing it for the
length of such work loses nothing: the objects are freed by reference counting.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

__all__ = ["collections_paused", "long_lived_imports"]


@contextlib.contextmanager
def collections_paused() -> Iterator[None]:
    """No cyclic garbage collection inside the block (restored as it was, even nested)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@contextlib.contextmanager
def long_lived_imports() -> Iterator[None]:
    """Around a command's imports of what it runs on (goldgate's modules, pydantic's models,
    the event loop): they build hundreds of thousands of objects that live as long as the
    process, which each collection would scan again. Nothing is collected while they load,
    and what exists then is frozen out of later collections (``gc.freeze``, as a run does
    for its gold), so that collections resume with nothing of it to scan."""
    with collections_paused():
        yield
        gc.freeze()
