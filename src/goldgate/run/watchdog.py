"""Deadlines and stop requests that win even when a target blocks the event loop.

An ``async def`` target that calls ``time.sleep`` or spins the CPU never yields, so neither
its cancel scope's deadline nor a Ctrl-C handled on the loop can take effect. A watchdog
thread watches a heartbeat the loop keeps: when the loop has been silent past an attempt's
deadline (or past a stop request), it signals the main thread, whose handler raises
``LoopBlocked`` inside the blocking code, so the runner records that attempt and the loop
goes on. If even that does not free the loop (code that never returns to Python), the
watchdog gives up on it and calls ``on_stuck``, which writes the report from this thread.

An attempt that ignores cancellation (it catches ``CancelledError`` and awaits again) keeps
the loop alive but never ends. Once it is well past its deadline (or a stop request), the
watchdog marks its task, and the cancellation next thrown into user code awaited through
``interruptible`` becomes ``LoopBlocked`` (``why`` ``ignored``, or ``stop``), which its
``except CancelledError`` does not catch; should it catch that too, the watchdog gives up
on the loop as above.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import signal
import sys
import threading
import time
import weakref
from collections.abc import Callable, Coroutine, Generator
from pathlib import Path
from types import FrameType
from typing import Any, Generic, TypeVar

import anyio
import anyio.from_thread
import anyio.lowlevel

from goldgate.base.errors import LoopBlocked

__all__ = ["Watchdog", "interruptible"]

_HEARTBEAT = 0.05
_POLL = 0.05
_KICK_AGAIN = 0.25
_IGNORED = 2.0
"""Seconds past its deadline (or a stop request), beyond the grace, that an attempt may go
on while the event loop runs: cancelling it ends it at once (a command target is killed
within a second). Later, the attempt ignores being cancelled."""


_BROKEN_IN: weakref.WeakKeyDictionary[asyncio.Task[Any], str] = weakref.WeakKeyDictionary()
"""Tasks whose attempt ignores being cancelled, and why the watchdog broke in."""

_T = TypeVar("_T")


class interruptible(Generic[_T]):
    """Awaits user code's coroutine, handing on what it awaits, except that once the
    watchdog broke into the task (``_BROKEN_IN``) the exception thrown into the coroutine,
    the cancellation it keeps catching, becomes ``LoopBlocked``, which it does not."""

    __slots__ = ("_coroutine",)

    def __init__(self, coroutine: Coroutine[Any, Any, _T]) -> None:
        self._coroutine = coroutine

    def __await__(self) -> Generator[Any, Any, _T]:
        inner = self._coroutine.__await__()
        sent: Any = None
        thrown: BaseException | None = None
        while True:
            try:
                yielded = inner.send(sent) if thrown is None else inner.throw(thrown)
            except StopIteration as stop:
                result: _T = stop.value
                return result
            sent, thrown = None, None
            try:
                sent = yield yielded
            except BaseException as error:  # handed on; see above
                task = asyncio.current_task() if _BROKEN_IN else None
                why = _BROKEN_IN.get(task) if task is not None else None
                thrown = error if why is None else LoopBlocked(why)


def _package_dir(module: Any) -> str:
    return str(Path(module.__file__).resolve().parent)


def _own_code_dirs() -> tuple[str, ...]:
    import asyncio

    goldgate = str(Path(__file__).resolve().parents[1])  # the package, not its public face
    return (goldgate, _package_dir(anyio), _package_dir(asyncio))


def _neutral_code_dirs() -> tuple[str, ...]:
    """Code that both goldgate and a target may be running: the standard library and the
    libraries goldgate itself uses. Whose work it is depends on who called it."""
    import sysconfig
    from importlib.util import find_spec

    found = [sysconfig.get_paths()["stdlib"]]
    # Found, not imported: a run of Python evals never loads pydantic, and need not here.
    for name in ("pydantic", "pydantic_core"):
        spec = find_spec(name)
        if spec is not None and spec.origin is not None:
            found.append(str(Path(spec.origin).resolve().parent))
    return tuple(found)


class Watchdog:
    """Start with ``with watchdog:`` in the main thread and run ``heartbeat`` on the loop.
    The runner registers each attempt's deadline with ``begin`` and ``end``."""

    def __init__(
        self,
        on_stuck: Callable[[], None],
        *,
        grace: float = 0.5,
        give_up: float = 2.5,
    ) -> None:
        self.on_stuck = on_stuck
        self.grace = grace
        self.give_up = give_up
        self.last_tick = time.monotonic()
        self.deadlines: dict[object, float] = {}
        self.tasks: dict[object, asyncio.Task[Any] | None] = {}
        self.ignoring_since: float | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.stop_at: float | None = None
        self._why = "deadline"
        self._closed = threading.Event()
        self._thread: threading.Thread | None = None
        self._main = threading.main_thread().ident
        self._own = _own_code_dirs()
        self._neutral = _neutral_code_dirs()
        self._previous: Any = None

    # --- the loop's side ---------------------------------------------------------------------

    async def heartbeat(self) -> None:
        with contextlib.suppress(RuntimeError):  # another backend than asyncio
            self._loop = asyncio.get_running_loop()
        while True:
            self.last_tick = time.monotonic()
            await anyio.sleep(_HEARTBEAT)

    def begin(self, token: object, seconds: float) -> None:
        self.deadlines[token] = time.monotonic() + seconds
        if self._loop is not None:
            self.tasks[token] = asyncio.current_task()

    def end(self, token: object) -> None:
        self.deadlines.pop(token, None)
        task = self.tasks.pop(token, None)
        if task is not None:
            _BROKEN_IN.pop(task, None)

    def _break_in(self, why: str, late: float) -> None:
        """On the loop: every attempt past its deadline by ``late`` (all of them, after a
        stop request) gets ``LoopBlocked`` instead of the next cancellation it would catch
        (see ``interruptible``). ``ignoring_since``: since when some attempt still running
        has been broken into (None: none)."""
        now = time.monotonic()
        running = False
        for token, deadline in list(self.deadlines.items()):
            task = self.tasks.get(token)
            if task is None:
                continue
            if task.done():  # its worker ended without saying so (cancelled): nothing runs
                self.end(token)
                continue
            if why == "stop" or deadline + late <= now:
                _BROKEN_IN[task] = why
                running = True
        if not running:
            self.ignoring_since = None
        elif self.ignoring_since is None:
            self.ignoring_since = now

    def request_stop(self) -> None:
        if self.stop_at is None:
            self.stop_at = time.monotonic()

    # --- the main thread's side --------------------------------------------------------------

    def _in_own_code(self, frame: FrameType | None) -> bool:
        """Whether the main thread is doing goldgate's work rather than a target's: the
        innermost frame that is neither generated code (``<string>``: dataclass and pydantic
        methods) nor shared library code decides."""
        while frame is not None:
            filename = frame.f_code.co_filename
            if filename.startswith(self._own):
                return True
            if not (filename.startswith("<") or filename.startswith(self._neutral)):
                return False
            frame = frame.f_back
        return True  # nothing but library code: not a target's

    def _raise_in_blocker(self, signum: int, frame: FrameType | None) -> None:
        if self._in_own_code(frame):
            return  # not the blocker: the next kick lands in it
        raise LoopBlocked(self._why)

    def __enter__(self) -> Watchdog:
        self._previous = signal.signal(signal.SIGUSR1, self._raise_in_blocker)
        self._thread = threading.Thread(target=self._watch, name="goldgate watchdog", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._closed.set()
        if self._thread is not None:
            self._thread.join(timeout=1)
        with contextlib.suppress(ValueError, TypeError):
            signal.signal(signal.SIGUSR1, self._previous)

    # --- the watchdog thread -----------------------------------------------------------------

    def _due(self, now: float, late: float) -> str | None:
        if self.stop_at is not None and now - self.stop_at >= late:
            return "stop"
        if any(deadline + late <= now for deadline in list(self.deadlines.values())):
            return "deadline"
        return None

    def _watch(self) -> None:
        kicked_at: float | None = None
        last_kick = 0.0
        while not self._closed.wait(_POLL):
            now = time.monotonic()
            if now - self.last_tick < self.grace:  # the loop is alive
                kicked_at, last_kick = None, self._ignoring(now, last_kick)
                since = self.ignoring_since
                if since is not None and now - since >= self.give_up:
                    self.on_stuck()  # it ignores LoopBlocked as well
                    return
                continue
            why = self._due(now, self.grace)
            if why is None or self._in_own_code(sys._current_frames().get(self._main or 0)):
                kicked_at = None  # goldgate's own work (writing what finished): let it end
                continue
            if kicked_at is None:
                kicked_at = now
            if now - kicked_at >= self.give_up:
                self.on_stuck()
                return
            if now - last_kick >= _KICK_AGAIN and self._main is not None:
                self._why = why
                last_kick = now
                signal.pthread_kill(self._main, signal.SIGUSR1)

    def _ignoring(self, now: float, last_kick: float) -> float:
        """With the loop alive: ask the loop to break into attempts that ignore being
        cancelled (``_break_in``); when it was last asked."""
        late = self.grace + _IGNORED
        why = self._due(now, late)
        loop = self._loop
        if why is None or loop is None:
            self.ignoring_since = None
            return last_kick
        if now - last_kick >= _KICK_AGAIN:
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(
                    self._break_in, "ignored" if why == "deadline" else why, late
                )
            last_kick = now
        return last_kick


async def call_in_daemon_thread(function: Callable[..., Any], *args: Any, name: str) -> Any:
    """``function(*args)`` in a daemon thread of its own (called ``name``), in a copy of the
    caller's context; what it raises is raised here.

    A deadline abandons the thread (Python cannot stop it). Unlike a worker thread from the
    pool, a daemon thread does not keep the process alive at exit, so a hung sync target or
    eval cannot hold goldgate open after its report is written."""
    token = anyio.lowlevel.current_token()
    done = anyio.Event()
    outcome: list[tuple[bool, Any]] = []
    context = contextvars.copy_context()

    def body() -> None:
        try:
            outcome.append((True, context.run(function, *args)))
        except BaseException as error:  # raised again in the caller
            outcome.append((False, error))
        with contextlib.suppress(RuntimeError):  # the event loop is gone: nobody waits
            anyio.from_thread.run_sync(done.set, token=token)

    threading.Thread(target=body, name=name, daemon=True).start()
    await done.wait()
    succeeded, value = outcome[0]
    if not succeeded:
        raise value
    return value
