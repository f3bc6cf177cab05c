"""A command target: the request as JSON on stdin, the result document as JSON on stdout.

The command runs in a session (and process group) of its own. Whatever ends the attempt —
the command exiting, its output growing past the limit, a deadline or Ctrl-C cancelling the
caller — the whole group is signalled (SIGTERM, then SIGKILL after a short grace when the
command is still running) and the command reaped, in shielded cleanup, so that no child or
grandchild outlives the attempt. A process that left the group (its own ``setsid``) is out
of reach; the attempt then stops reading its pipes shortly after the command exited.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import ByteReceiveStream, ByteSendStream, Process

from goldgate.gold.settings.models import DEFAULT_MAX_RESULT_BYTES
from goldgate.run.errors import TargetFailure
from goldgate.run.targets._documents import document_from_bytes, encode_request
from goldgate.run.targets.base import TargetContext, TargetRequest, TargetResponse

DEFAULT_STDERR_LIMIT = 64 * 1024
DEFAULT_KILL_GRACE = 0.5
_CHUNK = 64 * 1024
_REAP_LIMIT = 5.0


def _signal_group(pgid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)


class _Capture:
    """What is kept of one of the command's output streams, at most ``limit`` bytes; ``done``
    is set when its reader stops."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.data = bytearray()
        self.done = anyio.Event()


class _Tail(_Capture):
    """The last ``limit`` bytes of a stream (``cut`` when there were more)."""

    cut = False

    def add(self, chunk: bytes) -> None:
        self.data += chunk
        excess = len(self.data) - self.limit
        if excess > 0:
            del self.data[:excess]
            self.cut = True

    def text(self) -> str | None:
        data = bytes(self.data)
        if self.cut:  # do not start in the middle of a UTF-8 sequence
            start = 0
            while start < min(len(data), 4) and data[start] & 0xC0 == 0x80:
                start += 1
            data = data[start:]
        return data.decode("utf-8", errors="replace") if data else None


class _Output(_Capture):
    """Standard output, up to ``limit`` bytes; one byte more marks it as too large
    (``overflow``)."""

    overflow = False


class CommandTarget:
    """Runs ``argv`` in ``cwd`` once per attempt (see the module docstring)."""

    def __init__(
        self,
        argv: Sequence[str],
        cwd: Path,
        *,
        max_result_bytes: int = DEFAULT_MAX_RESULT_BYTES,
        stderr_limit: int = DEFAULT_STDERR_LIMIT,
        env: Mapping[str, str] | None = None,
        kill_grace: float = DEFAULT_KILL_GRACE,
    ) -> None:
        if not argv or not argv[0]:
            raise ValueError("a command target needs a program as its first element")
        self.argv = tuple(argv)
        self.cwd = Path(cwd)
        self.max_result_bytes = max_result_bytes
        self.stderr_limit = stderr_limit
        self.env = None if env is None else dict(env)
        self.kill_grace = kill_grace

    def load(self) -> None:
        return None

    def describe(self) -> dict[str, Any]:
        return {"kind": "command", "command": list(self.argv)}

    async def aclose(self) -> None:
        return None

    async def __call__(self, request: TargetRequest) -> TargetResponse:
        body = encode_request(request.as_json())
        process = await self._start()
        pgid = process.pid  # start_new_session: the command leads its own group
        output = _Output(self.max_result_bytes)
        tail = _Tail(self.stderr_limit)
        try:
            async with anyio.create_task_group() as group:
                stdin, stdout, stderr_stream = process.stdin, process.stdout, process.stderr
                assert stdin is not None
                assert stdout is not None
                assert stderr_stream is not None
                group.start_soon(_feed, stdin, body)
                group.start_soon(_read_output, stdout, output, pgid)
                group.start_soon(_read_tail, stderr_stream, tail)
                await process.wait()
                # The command is done: what is left of its group only holds pipes open.
                _signal_group(pgid, signal.SIGKILL)
                with anyio.move_on_after(self.kill_grace):
                    await output.done.wait()
                    await tail.done.wait()
                group.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True):
                await self._stop(process, pgid)
        stderr = tail.text()
        if output.overflow:
            raise TargetFailure(
                f"command result exceeded {self.max_result_bytes} bytes", stderr=stderr
            )
        status = process.returncode
        if status is None or status != 0:
            raise TargetFailure(_exit_reason(status), stderr=stderr)
        document = document_from_bytes(bytes(output.data), origin="command stdout", stderr=stderr)
        return TargetResponse(document, stderr=stderr)

    async def _start(self) -> Process:
        program = self.argv[0]
        try:
            # Shielded: once the command exists, the caller's cleanup must know about it.
            with anyio.CancelScope(shield=True):
                return await anyio.open_process(
                    self.argv, cwd=self.cwd, env=self.env, start_new_session=True
                )
        except FileNotFoundError as error:
            if error.filename is not None and os.fspath(error.filename) == os.fspath(self.cwd):
                reason = "command could not be started: its working folder does not exist"
            else:
                reason = f"command program {program!r} was not found"
        except PermissionError:
            reason = f"command program {program!r} is not executable"
        except OSError as error:
            kind = errno.errorcode.get(error.errno or 0, type(error).__name__)
            reason = f"command program {program!r} could not be started ({kind})"
        raise TargetFailure(reason)  # outside the handlers: no exception context to leak

    async def _stop(self, process: Process, pgid: int) -> None:
        """Signal the whole group and reap the command; call shielded."""
        if process.returncode is None:
            _signal_group(pgid, signal.SIGTERM)
            with anyio.move_on_after(self.kill_grace):
                await process.wait()
        _signal_group(pgid, signal.SIGKILL)
        with anyio.move_on_after(_REAP_LIMIT):
            await process.wait()
        if process.returncode is not None:
            # Closing the process closes its pipe transports as well, even those a grandchild
            # outside the group still holds open; left to the garbage collector, asyncio
            # would close them after the event loop is gone and print "Exception ignored ...
            # Event loop is closed". Only once reaped: ``aclose`` waits for the exit.
            with contextlib.suppress(Exception):
                await process.aclose()
            return
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                with contextlib.suppress(Exception):  # never mask what ended the attempt
                    await stream.aclose()


def build(argv: list[str], context: TargetContext) -> CommandTarget:
    """The command target of ``command: [argv...]`` (``factory.TARGET_KINDS``): it runs in
    the project root with a copy of the context's environment."""
    grace = DEFAULT_KILL_GRACE if context.kill_grace is None else context.kill_grace
    return CommandTarget(
        argv,
        context.project_root,
        max_result_bytes=context.max_result_bytes,
        env=dict(context.environ),
        kill_grace=grace,
    )


def _exit_reason(status: int | None) -> str:
    if status is None:
        return "command did not exit"
    if status < 0:
        try:
            name = signal.Signals(-status).name
        except ValueError:
            name = f"signal {-status}"
        return f"command was killed by {name}"
    return f"command exited with status {status}"


async def _feed(stream: ByteSendStream, body: bytes) -> None:
    try:
        for start in range(0, len(body), _CHUNK):
            await stream.send(body[start : start + _CHUNK])
        await stream.aclose()
    except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
        pass  # the command does not read its input, or is gone: its exit decides


async def _read_output(stream: ByteReceiveStream, output: _Output, pgid: int) -> None:
    try:
        while True:
            chunk = await stream.receive(_CHUNK)
            output.data += chunk
            if len(output.data) > output.limit:
                output.overflow = True
                del output.data[output.limit :]
                _signal_group(pgid, signal.SIGKILL)
                return
    except (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
        pass
    finally:
        output.done.set()


async def _read_tail(stream: ByteReceiveStream, tail: _Tail) -> None:
    try:
        while True:
            tail.add(await stream.receive(_CHUNK))
    except (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
        pass
    finally:
        tail.done.set()
