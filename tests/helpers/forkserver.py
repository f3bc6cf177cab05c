"""goldgate's console script for the tests, without an interpreter's start each time.

A test that runs ``goldgate`` as a real process (``run.support.start_cli``) pays about 0.2 s
of CPU for an interpreter and the libraries every command imports, for a run that often takes
a tenth of that, and the suite starts hundreds. ``Popen``, a ``subprocess.Popen``, asks a fork
server instead (``zygote.py``: one per test process, started on first use), which has
imported those libraries and forks a process that becomes the console script, run with the
call's arguments, environment, working folder and standard streams, this process's umask and
signal mask, in a session of its own where asked. That process is this one's child, as the
one ``exec`` would have made: its pid, exit status, signals to it and to its group, its
children and orphans are those of a real one. goldgate's own modules are imported in the
server too, with the same values and empty caches (zygote.py says how that is held).

A server serves one state of this process and one start-up environment: the variables the
interpreter, the loader and the C library read at start (``PYTHON*``, the locale, ``TZ``,
...) and those the libraries read as the server imported them, the signals ignored, the
resource limits and the CPUs allowed, all of which a process inherits through ``exec``.
Another state or environment gets a server of its own (the least recently used of
``_MAX_SERVERS`` is stopped). The call starts the program as ``subprocess.Popen`` does for:

- another program than the console script, a shell, or options beyond the streams, ``cwd``,
  ``env`` and ``start_new_session`` (``preexec_fn``, ``pass_fds``, a user, a process group,
  ``close_fds=False``), or a terminal among the streams;
- a guard over process starts (``tests/helpers/slow.py`` replaces
  ``subprocess.Popen._execute_child`` in a quick run: it must see this start);
- ``GOLDGATE_TEST_FORKSERVER=0`` in this process's environment (every start is real).

Not given: ``/proc/<pid>/environ`` and ``/proc/<pid>/cmdline`` of the goldgate process show
the server's (its environment holds only the variables above); a test that reads them of the
goldgate process itself (not of one goldgate starts) must not use this.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import json
import os
import re
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

SWITCH = "GOLDGATE_TEST_FORKSERVER"
ZYGOTE = Path(__file__).with_name("zygote.py")
_AT_START = re.compile(
    r"(PYTHON|LC_|LD_|MALLOC_|OPENSSL_|SSL_CERT_).*|LANG|LANGUAGE|TZ|GLIBC_TUNABLES"
)
"""Environment variables the interpreter, the loader or the C library read at start."""
_PR_SET_CHILD_SUBREAPER = 36
_PR_GET_CHILD_SUBREAPER = 37
_MAX_SERVERS = 4
_REPLACED = signal.SIGPIPE, signal.SIGXFSZ  # Popen resets them; the interpreter ignores them


class Popen(subprocess.Popen[Any]):
    """``subprocess.Popen``, forked from a fork server where that gives the same process."""

    def _execute_child(  # type: ignore[override]
        self,
        args: Any,
        executable: Any,
        preexec_fn: Any,
        close_fds: bool,
        pass_fds: Any,
        cwd: Any,
        env: Any,
        startupinfo: Any,
        creationflags: int,
        shell: bool,
        p2cread: int,
        p2cwrite: int,
        c2pread: int,
        c2pwrite: int,
        errread: int,
        errwrite: int,
        restore_signals: bool,
        gid: Any,
        gids: Any,
        uid: Any,
        umask: int,
        start_new_session: bool,
        process_group: int,
    ) -> None:
        streams = [p2cread, c2pwrite, errwrite]
        plain = (
            not shell
            and preexec_fn is None
            and close_fds
            and not pass_fds
            and restore_signals
            and gid is None
            and gids is None
            and uid is None
            and umask < 0
            and process_group < 0
        )
        server = None
        if plain and isinstance(args, list | tuple) and executable in (None, args[0]):
            server = _server_for([str(word) for word in args], env, cwd, streams)
        if server is None:
            super()._execute_child(  # type: ignore[misc]
                args, executable, preexec_fn, close_fds, pass_fds, cwd, env, startupinfo,
                creationflags, shell, p2cread, p2cwrite, c2pread, c2pwrite, errread,
                errwrite, restore_signals, gid, gids, uid, umask, start_new_session,
                process_group,
            )  # fmt: skip
            return
        environment = dict(os.environ if env is None else env)
        sys.audit("subprocess.Popen", args[0], list(args), cwd, environment)
        request = {
            "args": [str(word) for word in args[1:]],
            "cwd": os.fspath(cwd) if cwd is not None else os.getcwd(),
            "env": environment,
            "new_session": bool(start_new_session),
            "umask": _umask(),
            "mask": sorted(int(number) for number in signal.pthread_sigmask(signal.SIG_BLOCK, [])),
        }
        pid = server.start(request, [_or_own(fd, own) for own, fd in enumerate(streams)])
        if pid is None:  # the server broke: this start, and every later one, is real
            super()._execute_child(  # type: ignore[misc]
                args, executable, preexec_fn, close_fds, pass_fds, cwd, env, startupinfo,
                creationflags, shell, p2cread, p2cwrite, c2pread, c2pwrite, errread,
                errwrite, restore_signals, gid, gids, uid, umask, start_new_session,
                process_group,
            )  # fmt: skip
            return
        self.pid = pid
        self._child_created = True
        self._close_pipe_fds(p2cread, p2cwrite, c2pread, c2pwrite, errread, errwrite)  # type: ignore[attr-defined]


def run(
    args: list[str], *, timeout: float | None = None, capture_output: bool = False, **options: Any
) -> subprocess.CompletedProcess[Any]:
    """``subprocess.run`` (without ``input`` or ``check``), started by ``Popen``: forked from a
    fork server where that gives the same process, else a real start."""
    if capture_output:
        options["stdout"] = options["stderr"] = subprocess.PIPE
    with Popen(args, **options) as process:
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except BaseException:  # as subprocess.run: the process does not outlive the call
            process.kill()
            raise
        code = process.wait()
    return subprocess.CompletedProcess(args, code, stdout, stderr)


def _or_own(descriptor: int, own: int) -> int:
    return own if descriptor == -1 else descriptor  # -1: the child inherits this one's


def _umask() -> int:
    """This process's umask, read without setting it (Linux 4.7 and later)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("Umask:"):
            return int(line.split()[1], 8)
    raise OSError("no Umask line in /proc/self/status")


# --- the servers ---------------------------------------------------------------------------------


class _Server:
    """One fork server, the state of this process it was started in, and how to reach it."""

    def __init__(self, script: str, interpreter: str, startup: dict[str, str]) -> None:
        self.script = script
        self.startup = startup
        self.facts = _facts()
        self.read: frozenset[str] = frozenset()
        self.broken = False
        self._lock = threading.Lock()
        self._socket, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 (read when it breaks, closed with it)
        with theirs:
            self._process = subprocess.Popen(
                [interpreter, str(ZYGOTE), script, str(theirs.fileno())],
                pass_fds=[theirs.fileno()], env=startup, stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=self._log,
            )  # fmt: skip
        self._socket.settimeout(120)
        try:
            ready = json.loads(self._socket.recv(1 << 20) or b"null")
        except (OSError, ValueError):
            ready = None
        if not isinstance(ready, dict):
            self._break("did not start")
            return
        self.read = frozenset(ready["read"])
        self._socket.settimeout(None)

    def serves(self, env: dict[str, str]) -> bool:
        """Whether a process this server forks would start as one started from scratch with
        ``env`` in this process now."""
        if self.broken or _facts() != self.facts:
            return False
        names = self.read.union(self.startup, (name for name in env if _AT_START.fullmatch(name)))
        if "*" in names:  # the imports listed the environment: it must be the same
            return env == self.startup
        return all(env.get(name) == self.startup.get(name) for name in names)

    def start(self, request: dict[str, Any], streams: list[int]) -> int | None:
        """The pid of the process forked for ``request``, once it is this process's child."""
        with self._lock:
            previous = ctypes.c_int(0)
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.prctl(_PR_GET_CHILD_SUBREAPER, ctypes.byref(previous), 0, 0, 0) != 0:
                self._break("cannot be a subreaper")
                return None
            libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
            try:
                socket.send_fds(self._socket, [json.dumps(request).encode()], streams)
                answer = json.loads(self._socket.recv(4096) or b"null")
            except (OSError, ValueError):
                answer = None
            finally:
                libc.prctl(_PR_SET_CHILD_SUBREAPER, previous.value, 0, 0, 0)
        if not isinstance(answer, dict):
            self._break("stopped answering")
            return None
        return int(answer["pid"])

    def _break(self, what: str) -> None:
        self.broken = True
        self._log.flush()
        self._log.seek(0)
        said = self._log.read().decode(errors="replace").strip()
        warnings.warn(f"the goldgate fork server {what}: {said}", RuntimeWarning, stacklevel=3)
        self.close()

    def close(self) -> None:
        if self._log.closed:
            return
        with contextlib.suppress(OSError):
            self._socket.close()
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            self._process.wait(5)
        if self._process.poll() is None:
            self._process.kill()
            self._process.wait()
        self._log.close()


def _facts() -> dict[str, Any]:
    """What a process inherits through ``exec`` that a test may change in this one."""
    return {
        "ignored": [
            int(number)
            for number in signal.valid_signals()
            if number not in _REPLACED and _getsignal(number) is signal.SIG_IGN
        ],
        "limits": [
            resource.getrlimit(getattr(resource, name))
            for name in sorted(dir(resource))
            if name.startswith("RLIMIT_")
        ],
        "cpus": sorted(os.sched_getaffinity(0)),
    }


def _getsignal(number: int) -> Any:
    try:
        return signal.getsignal(number)
    except (OSError, ValueError):
        return None


_SERVERS: list[_Server] = []  # the most recently used last
_SERVERS_LOCK = threading.Lock()
_READ_AS_IMPORTED = {"HOME"}  # sysconfig's user base, which zoneinfo's import asks for


def _server_for(args: list[str], env: Any, cwd: Any, streams: list[int]) -> _Server | None:
    """The server that can start ``args`` as asked, started if need be (one per state of
    this process and start-up environment, the least recently used closed beyond
    ``_MAX_SERVERS``); None where the start must be a real one."""
    if os.environ.get(SWITCH, "").strip() == "0" or not sys.platform.startswith("linux"):
        return None
    if getattr(subprocess.Popen._execute_child, "__module__", None) != "subprocess":  # type: ignore[attr-defined]
        return None  # someone watches process starts: this one must pass them
    environment = dict(os.environ if env is None else env)
    if not all(
        isinstance(key, str) and isinstance(value, str) for key, value in environment.items()
    ):
        return None
    if cwd is not None and not os.path.isdir(cwd):
        return None  # the real start says why
    if any(fd != -1 and os.isatty(fd) for fd in streams):
        return None  # the interpreter sets a terminal's streams up otherwise
    interpreter = _console_script(args[0])
    if interpreter is None:
        return None
    with _SERVERS_LOCK:
        for server in _SERVERS:
            if server.script == args[0] and server.serves(environment):
                _SERVERS.remove(server)
                _SERVERS.append(server)
                return server
        server = _start_server(args[0], interpreter, environment)
        if server is None:
            return None
        while len(_SERVERS) >= _MAX_SERVERS:
            _SERVERS.pop(0).close()
        _SERVERS.append(server)
        return server


def _start_server(script: str, interpreter: str, environment: dict[str, str]) -> _Server | None:
    """A server for ``environment``: started with the variables read at start and those its
    imports read (learnt from the servers before; once more if they read another)."""
    for _ in range(2):
        startup = {
            key: value
            for key, value in environment.items()
            if _AT_START.fullmatch(key) or key in _READ_AS_IMPORTED
        }
        server = _Server(script, interpreter, startup)
        _READ_AS_IMPORTED.update(server.read)
        if server.serves(environment):
            return server
        server.close()
        if server.broken:
            return None
    return None


@contextlib.contextmanager
def private_servers() -> Iterator[list[_Server]]:
    """Servers of the body's own (for a test of the servers: none started before is used,
    every one it starts is stopped after it)."""
    with _SERVERS_LOCK:
        saved = _SERVERS[:]
        _SERVERS.clear()
    try:
        yield _SERVERS
    finally:
        with _SERVERS_LOCK:
            for server in _SERVERS:
                server.close()
            _SERVERS[:] = saved


def _console_script(path: str) -> str | None:
    """The interpreter of ``path`` when it is goldgate's console script (a Python script that
    runs ``goldgate.cli.main``), else None."""
    script = Path(path)
    if not script.is_absolute() or not os.access(script, os.X_OK) or script.name != "goldgate":
        return None
    try:
        head = script.read_bytes()[:4096].decode()
    except (OSError, UnicodeDecodeError):
        return None
    first, _, rest = head.partition("\n")
    interpreter = first.removeprefix("#!").strip()
    if (
        not first.startswith("#!")
        or " " in interpreter
        or "from goldgate.cli import main" not in rest
    ):
        return None
    return interpreter if os.access(interpreter, os.X_OK) else None


@atexit.register
def _stop_servers() -> None:
    for server in _SERVERS:
        server.close()
