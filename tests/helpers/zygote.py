"""The fork server's process (``helpers.forkserver`` starts it): ``python zygote.py SCRIPT FD``.

It starts as the console script ``SCRIPT`` would (the same interpreter, ``sys.path``), imports
what every goldgate command imports (``PRELOAD``), then serves the socket ``FD``: for each
request it forks a process that becomes ``SCRIPT`` run with the request's arguments,
environment, working folder and standard streams. The process is forked twice (the middle
one exits at once), so that it is reparented to the worker, which asked while it was a
subreaper: the worker waits for it, signals it and reads its exit status as for any child.

goldgate's own modules are imported here too (all of them: which a command needs is its
own affair), which runs their definitions and nothing else. What makes that the same as
importing them in the process: what the imports read from the environment is watched and
keyed like the libraries' reads, no thread runs and no temporary folder is chosen, every
``functools`` cache of goldgate's is empty when the server starts serving, and
tests/test_forkserver.py holds every plain module-level value of goldgate's equal in a forked
and a real process. One thing is shared that a real start would not share: the string hash
seed, so a set's order is the same in every process one server forks (goldgate's output
must not depend on it anyway). Nothing here may call goldgate code.
"""

import builtins
import contextlib
import importlib
import importlib.machinery
import io
import json
import os
import pkgutil
import signal
import socket
import sys
import threading
from collections.abc import Iterator
from typing import Any

PRELOAD = (
    "goldgate.cli",  # what the console script imports first
    # What the commands import next, from the standard library and the dependencies only.
    "anyio",
    "anyio.abc",
    "anyio.from_thread",
    "anyio.lowlevel",
    "anyio.to_thread",
    "asyncio",
    "concurrent.futures",
    "csv",
    "decimal",
    "email.utils",
    "fractions",
    "hashlib",
    "hmac",
    "importlib.metadata",
    "importlib.resources",
    "jinja2",
    "logging",
    "orjson",
    "pickle",
    "pydantic",
    "pydantic.dataclasses",
    "pydantic.fields",
    "pydantic.functional_validators",
    "pydantic.json_schema",
    "pydantic.main",
    "pydantic.types",
    "pydantic_core",
    "random",
    "secrets",
    "ssl",
    "tempfile",
    "yaml",
    "zipfile",
    "zoneinfo",
)
_STREAMS = ((0, "<stdin>", "r"), (1, "<stdout>", "w"), (2, "<stderr>", "w"))


def main() -> None:
    script, descriptor = sys.argv[1], int(sys.argv[2])
    # As the interpreter sets it for the console script: its own folder first.
    sys.path[0] = os.path.dirname(script)
    path = list(sys.path)
    with _watched_environment() as read:
        for name in PRELOAD:
            __import__(name)
        _import_goldgate()
        # And the libraries the action imports ahead of its publishing step (a constant of
        # goldgate's, read, not called): PyGithub alone is about 0.4 CPU-s a forked run.
        for name in sys.modules["goldgate.app.action.modes"]._PUBLISHING_LIBRARIES:
            with contextlib.suppress(ImportError):  # as modes does: it fails where needed
                __import__(name)
    _fresh()
    server = socket.socket(fileno=descriptor)
    server.sendall(json.dumps({"read": sorted(read)}).encode())
    request, descriptors = _serve(server)
    sys.path[:] = path
    _become(script, request, descriptors)


@contextlib.contextmanager
def _watched_environment() -> Iterator[set[str]]:
    """The names of the environment variables read while the body runs (through
    ``os.environ`` and ``os.getenv``; "*" when it was listed), for the worker to compare:
    what these imports read, a process started from scratch reads from its own."""
    read: set[str] = set()
    kind = type(os.environ)
    get_item, iterate = kind.__getitem__, kind.__iter__

    def watched_get(self: Any, key: str) -> Any:
        read.add(str(key))
        return get_item(self, key)

    def watched_iter(self: Any) -> Any:
        read.add("*")
        return iterate(self)

    kind.__getitem__, kind.__iter__ = watched_get, watched_iter  # type: ignore[method-assign]
    try:
        yield read
    finally:
        kind.__getitem__, kind.__iter__ = get_item, iterate  # type: ignore[method-assign]


def _import_goldgate() -> None:
    """Every goldgate module a command can import (its whole package but ``__main__``, which
    runs the program): importing them runs no goldgate code but definitions, and what the
    imports read from the environment is watched like the libraries'. A module whose import
    fails here (an optional extra that is not installed) is left for the process to import,
    and fail, as one started from scratch does."""
    import goldgate

    for found in pkgutil.walk_packages(goldgate.__path__, "goldgate.", onerror=lambda _: None):
        if found.name != "goldgate.__main__":
            with contextlib.suppress(ImportError):
                importlib.import_module(found.name)


def _fresh() -> None:
    """Nothing a run reads once and keeps has been read here: no thread, no temporary folder
    chosen, every cache of goldgate's empty."""
    import functools
    import gc
    import tempfile

    assert threading.active_count() == 1, threading.enumerate()
    assert len(os.listdir("/proc/self/task")) == 1  # no thread native code started either
    assert tempfile.tempdir is None  # chosen from TMPDIR when first asked: in each process
    filled = [
        f"{wrapper.__module__}.{wrapper.__qualname__}"
        for wrapper in gc.get_objects()
        if isinstance(wrapper, functools._lru_cache_wrapper)
        and str(getattr(wrapper, "__module__", "")).partition(".")[0] == "goldgate"
        and wrapper.cache_info().currsize
    ]
    assert not filled, f"filled by importing goldgate: {filled}"


def _serve(server: socket.socket) -> tuple[dict[str, object], list[int]]:
    """Answer requests until the worker hangs up (then exit); in each forked process, return
    its request and the standard streams it was handed."""
    while True:
        try:
            data, descriptors, _, _ = socket.recv_fds(server, 1 << 20, 3)
        except OSError:
            data = b""
        if not data:
            os._exit(0)
        started_read, started_write = os.pipe()
        go_read, go_write = os.pipe()
        middle = os.fork()
        if middle == 0:
            child = os.fork()
            if child == 0:
                os.close(started_read)
                os.close(started_write)
                os.close(go_write)
                server.close()
                os.read(go_read, 1)  # until the worker is its parent
                os.close(go_read)
                return json.loads(data), descriptors
            os.write(started_write, str(child).encode())
            os._exit(0)
        os.close(started_write)
        os.close(go_read)
        child = int(os.read(started_read, 32) or b"0")
        os.close(started_read)
        os.waitpid(middle, 0)  # gone, so the child is the worker's now
        for descriptor in descriptors:
            os.close(descriptor)
        server.sendall(json.dumps({"pid": child}).encode())
        os.write(go_write, b"!")
        os.close(go_write)


def _become(script: str, request: dict[str, object], descriptors: list[int]) -> None:
    """This process as ``exec`` of the console script would have made it, then the script."""
    if request["new_session"]:
        os.setsid()
    for target, descriptor in enumerate(descriptors):
        os.dup2(descriptor, target)
    for name in os.listdir("/proc/self/fd"):  # close_fds: only the three streams are left
        if int(name) > 2:
            with contextlib.suppress(OSError):  # the listing's own descriptor
                os.close(int(name))
    os.umask(int(str(request["umask"])))
    signal.pthread_sigmask(signal.SIG_SETMASK, [int(n) for n in request["mask"]])  # type: ignore[attr-defined]
    os.chdir(str(request["cwd"]))
    os.environ.clear()
    os.environ.update(request["env"])  # type: ignore[arg-type]
    with open("/proc/self/comm", "w") as comm:  # the kernel names a script's process after it
        comm.write(os.path.basename(script)[:15])
    arguments = [str(word) for word in request["args"]]  # type: ignore[attr-defined]
    sys.argv = [script, *arguments]
    sys.orig_argv = [sys.executable, script, *arguments]
    _fresh_streams()
    with open(script, "rb") as handle:
        code = compile(handle.read(), script, "exec")
    _run_as_main(code, script, importlib.machinery.SourceFileLoader("__main__", script))


def _fresh_streams() -> None:
    """sys.stdin, sys.stdout and sys.stderr made as the interpreter makes them at start
    (Python/pylifecycle.c, create_stdio), on the descriptors this process was handed, with
    the encoding, errors and buffering this process chose at its own start."""
    buffered = not sys.stdout.write_through  # PYTHONUNBUFFERED (the same here as there)
    made = []
    for descriptor, name, mode in _STREAMS:
        old = (sys.stdin, sys.stdout, sys.stderr)[descriptor]
        buffering = 0 if (mode == "w" and not buffered) else -1
        buffer = open(descriptor, mode + "b", buffering, closefd=False)  # noqa: SIM115 (for good)
        raw = buffer if buffering == 0 else buffer.raw
        raw.name = name
        stream = io.TextIOWrapper(
            buffer,
            encoding=old.encoding,
            errors=old.errors,
            newline="\n",
            line_buffering=buffered and (raw.isatty() or descriptor == 2),
            write_through=not buffered,
        )
        stream.mode = mode
        made.append(stream)
    sys.stdin, sys.stdout, sys.stderr = made
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = made


def _run_as_main(
    code: object, script: str, loader: object, run: object = exec, top: object = builtins
) -> None:
    """Run ``code`` as ``__main__``, in that module's namespace emptied, as the interpreter
    runs a script (nothing here reads a global once it is emptied)."""
    fresh = {
        "__name__": "__main__",
        "__doc__": None,
        "__package__": None,
        "__loader__": loader,
        "__spec__": None,
        "__annotations__": {},
        "__builtins__": top,
        "__file__": script,
        "__cached__": None,
    }
    namespace = sys.modules["__main__"].__dict__
    namespace.clear()
    namespace.update(fresh)
    run(code, namespace)  # type: ignore[operator]


if __name__ == "__main__":
    main()
