"""What user code leaves running cannot keep goldgate alive once its report is written.

Python waits at exit for every non-daemon thread, and asyncio, when its loop closes, for
every call still running in the loop's default executor. A target that starts a thread and
returns, or abandons a blocking ``run_in_executor`` call, would hold the process open for as
long as that work takes. The run abandons such work instead, and the console script exits
with its code once the report is written, after warning that it left threads behind.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Collection
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

_GRACE = 0.5
"""Seconds a thread gets to end on its own (worker pools stop as their loop closes)."""


@cache
def _abandoning_executor() -> type[ThreadPoolExecutor]:
    # Defined on first use: the console script imports this module for
    # threads_left_running, and a command that runs nothing must not load asyncio for it.
    from concurrent.futures import ThreadPoolExecutor

    class _AbandoningExecutor(ThreadPoolExecutor):
        """A default executor whose shutdown does not wait for calls still running."""

        def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
            super().shutdown(wait=False, cancel_futures=True)

    return _AbandoningExecutor


def abandon_executor_work() -> None:
    """Give the running asyncio loop a default executor that closing the loop does not wait
    for; call inside the loop before any user code runs."""
    import asyncio

    asyncio.get_running_loop().set_default_executor(
        _abandoning_executor()(thread_name_prefix="goldgate-executor")
    )


def threads_left_running(present_before: Collection[threading.Thread]) -> int:
    """How many non-daemon threads, started since ``present_before`` was taken, are still
    running after a short grace in which they may end on their own."""
    deadline = time.monotonic() + _GRACE
    left = 0
    for thread in threading.enumerate():
        if thread.daemon or thread in present_before or thread is threading.current_thread():
            continue
        thread.join(max(0.0, deadline - time.monotonic()))
        left += thread.is_alive()
    return left
