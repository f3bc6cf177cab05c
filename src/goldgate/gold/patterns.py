"""Gold regular expressions: compiled once when gold is loaded, searched under a deadline.

Patterns use Python's ``re`` dialect. They are compiled once, by the offline check and by
loading (the same compiled object then serves every attempt), never while scoring. A search
runs under a deadline so that a pattern that backtracks catastrophically fails its check with
a reason instead of hanging the run: in the main thread a real-time timer interrupts ``re``
(which checks for signals while it matches); elsewhere (the Python API driven from a worker
thread) the search runs on the ``regex`` engine, whose ``timeout=`` does the same.

Compiling is accelerated (``base.accelerators``): flat patterns get a program built by hand
(``gold/_flatpatterns``, private to this stage), the rest go through ``re``'s compiler step
by step with a cache of our own, and a checking helper records the programs it compiles for
the process that forked it. With ``GOLDGATE_ACCELERATORS=0``, ``re.compile`` compiles every
pattern.
"""

# Annotations are objects here, not strings (no `from __future__ import annotations`): a
# named tuple's string annotations are each compiled as a forward reference when the class is
# made, at some 60 us a field.
import _signal  # type: ignore[import-not-found]  # the raw C module: no enum wrapping
import _sre  # type: ignore[import-not-found]  # builds a pattern from its compiled program
import functools
import re
import signal
import threading
from array import array
from collections.abc import Callable
from typing import Any, Final, NamedTuple

from goldgate.base import accelerators
from goldgate.gold._flatpatterns import flat_program
from goldgate.gold.errors import PatternProblem, PatternTimeout

__all__ = [
    "PATTERN_DEADLINE",
    "PatternCode",
    "compile_pattern",
    "rebuild_pattern",
    "record_patterns",
    "search_with_deadline",
    "take_recorded",
]

PATTERN_DEADLINE: Final = 0.5
"""Seconds one search of one gold pattern may take before its check fails."""


# The messages of Python's regular expression parser, some of which quote a piece of the
# pattern: only these fixed prefixes are repeated in a reason.
_REGEX_MESSAGES: Final = (
    "bad escape (end of pattern)",
    "bad escape",
    "incomplete escape",
    "undefined character name",
    "octal escape value",
    "invalid group reference",
    "cannot refer to an open group",
    "cannot refer to group defined in the same lookbehind subpattern",
    "unknown extension",
    "bad character in group name",
    "bad character range",
    "redefinition of group name",
    "unknown group name",
    "unterminated character set",
    "nothing to repeat",
    "multiple repeat",
    "unbalanced parenthesis",
    "unexpected end of pattern",
    "min repeat greater than max repeat",
    "look-behind requires fixed-width pattern",
    "looks too much behind",
    "global flags not at the start of the expression",
    "bad inline flags",
    "unknown flag",
    "bad group number",
    "too many groups",
    "conditional backref with more than two branches",
)


def error_summary(error: re.error) -> str:
    """A safe one-phrase summary of a compile error: a fixed message and a position."""
    message = error.msg
    if message.startswith("missing "):  # "missing " + a fixed delimiter or word, never quoted
        return message if error.pos is None else f"{message} at position {error.pos}"
    known = [prefix for prefix in _REGEX_MESSAGES if message.startswith(prefix)]
    summary = max(known, key=len) if known else "invalid syntax"
    return summary if error.pos is None else f"{summary} at position {error.pos}"


class PatternCode(NamedTuple):
    """A compiled pattern as ``re``'s compiler leaves it, before it becomes a pattern object:
    what rebuilds the very same pattern in another process of this Python (a checking helper
    forked from this one, ``gold._stream.parallel``) in a microsecond instead of compiling it again
    (``rebuild_pattern``). ``code`` is the compiled program as native unsigned ints."""

    pattern: str
    flags: int
    code: bytes
    groups: int
    groupindex: dict[str, int]
    indexgroup: tuple[str | None, ...]


def _compiler() -> Callable[[str], re.Pattern[str]]:
    """What ``re.compile(pattern)`` does for a new pattern, without ``re``'s own cache.

    Gold holds thousands of distinct patterns (a case's own ticket number, say), so ``re``'s
    512-entry cache misses on almost every one, and each miss paid a third again of the
    compilation: dropping the cache's oldest entry scans past every slot deleted before it,
    and its flag checks go through ``enum``. The steps are those of ``re._compiler.compile``
    (parse, generate the program, build the pattern object), taken one by one so that the
    program can be recorded for ``PatternCode``, and a flat pattern is compiled in one pass
    (``flatpatterns``); where this Python's ``re`` is not built that
    way (the steps are missing, or do not rebuild an equal pattern) ``re._compiler.compile``,
    or else ``re.compile``, is used and nothing is recorded. A small cache of our own still
    serves a pattern many cases repeat."""
    internal = getattr(re, "_compiler", None)
    compile_new = getattr(internal, "compile", None)
    if not callable(compile_new):  # pragma: no cover - every supported Python has it
        return re.compile
    compile_whole: Callable[[str, int], re.Pattern[str]] = compile_new
    by_steps = _steps_compiler(compile_whole)

    @functools.lru_cache(maxsize=_CACHED_PATTERNS)
    def compiled(pattern: str) -> re.Pattern[str]:
        if by_steps is None:  # pragma: no cover - every supported Python has the steps
            return compile_whole(pattern, 0)
        parts = by_steps(pattern)
        if _RECORDER.on:
            _RECORDER.programs.append(_code_of(parts))
        built: re.Pattern[str] = _sre.compile(*parts)
        return built

    return compiled


_Parts = tuple[str, int, list[int], int, dict[str, int], tuple[str | None, ...]]
"""``_sre.compile``'s arguments: ``PatternCode`` with the program as a list."""


def _steps_compiler(
    compile_whole: Callable[[str, int], re.Pattern[str]],
) -> Callable[[str], _Parts] | None:
    """``re._compiler.compile`` (``compile_whole``) step by step, up to the arguments of the
    pattern object; None where this Python's ``re`` differs from what the steps assume."""
    parse = getattr(getattr(re, "_parser", None), "parse", None)
    generate = getattr(getattr(re, "_compiler", None), "_code", None)
    if not (callable(parse) and callable(generate) and _CODE.itemsize == _sre.CODESIZE):
        return None  # pragma: no cover - every supported Python has them

    def made_by_steps(pattern: str) -> _Parts:
        parsed = parse(pattern, 0)
        state = parsed.state
        groupindex = state.groupdict
        indexgroup: list[str | None] = [None] * state.groups
        for name, index in groupindex.items():
            indexgroup[index] = name
        code = generate(parsed, 0)
        return pattern, state.flags, code, state.groups - 1, groupindex, tuple(indexgroup)

    def made(pattern: str) -> _Parts:
        flat = flat_program(pattern)
        if flat is not None:
            accelerators.note("flat patterns")
            return pattern, flat.flags, flat.code, 0, {}, (None,)
        return made_by_steps(pattern)

    # The steps, and a program carried as bytes, must rebuild what re compiles. (The flat
    # path probes itself when a first pattern needs it: a run without patterns pays nothing.)
    try:
        probe = r"(?P<a>x)[^\d]+\b(?i:é)|(?<=y)z*?$"
        if rebuild_pattern(_code_of(made_by_steps(probe))) == compile_whole(probe, 0):
            return made
    except Exception:  # pragma: no cover - every supported Python rebuilds it
        pass
    return None  # pragma: no cover


_CODE: Final = array("I")
"""The item type of a compiled program (``_sre.CODESIZE`` bytes, 4 on every build)."""


def _code_of(parts: _Parts) -> PatternCode:
    pattern, flags, code, groups, groupindex, indexgroup = parts
    program = array(_CODE.typecode, code).tobytes()
    return PatternCode(pattern, flags, program, groups, groupindex, indexgroup)


def rebuild_pattern(made: PatternCode) -> re.Pattern[str]:
    """The pattern that ``made`` was recorded from, built again without compiling it: only
    for a ``PatternCode`` recorded by this Python (this process or one forked from it)."""
    code = array(_CODE.typecode)
    code.frombytes(made.code)
    pattern: re.Pattern[str] = _sre.compile(
        made.pattern, made.flags, code.tolist(), made.groups, made.groupindex, made.indexgroup
    )
    return pattern


class _Recorder:
    """Whether this process records the programs it compiles, and those not yet taken."""

    def __init__(self) -> None:
        self.on = False
        self.programs: list[PatternCode] = []


_RECORDER: Final = _Recorder()


def record_patterns() -> None:
    """From now on, remember the program of every pattern this process compiles, for
    ``take_recorded`` (a checking helper sends them to the process that forked it)."""
    _RECORDER.on = True


def take_recorded() -> tuple[PatternCode, ...]:
    """The programs recorded since the last call (none unless ``record_patterns``)."""
    taken = tuple(_RECORDER.programs)
    _RECORDER.programs.clear()
    return taken


_CACHED_PATTERNS: Final = 512
_compile: Final = _compiler()


def compile_pattern(pattern: str) -> re.Pattern[str]:
    """``pattern`` compiled, or ``PatternProblem`` with a safe summary of why not. Every way
    the compiler can refuse a pattern (a syntax error, a repeat count or a nesting too large
    for it) is a problem, never an escaping exception."""
    if type(pattern) is not str:
        raise TypeError("a gold pattern is a string")
    try:
        return _compile(pattern) if accelerators.enabled() else re.compile(pattern)
    except re.error as error:
        raise PatternProblem(error_summary(error)) from None
    except (OverflowError, RecursionError, MemoryError, ValueError) as error:
        raise PatternProblem(
            f"it is too large or nested too deeply ({type(error).__name__})"
        ) from None


# Private control flow that never leaves this module: outside GoldgateError on purpose
# (tests/test_layout.py lists it).
class _Expired(BaseException):
    """Raised by the timer's signal handler inside ``re``; turned into ``PatternTimeout``."""


def _expire(signum: int, frame: Any) -> None:
    # A timer can only fire late, after its search returned and the timer was cleared, when
    # the signal was already pending: then there is nothing to interrupt.
    if frame is not None and frame.f_code is _SEARCH_CODE:
        raise _Expired


def _timed_search(compiled: re.Pattern[str], text: str, seconds: float) -> bool:
    # The handler stays installed between searches: installing it costs more than a search.
    # _signal.getsignal is the raw lookup (signal.getsignal wraps it in enum conversions).
    if _signal.getsignal(signal.SIGALRM) is not _expire:
        signal.signal(signal.SIGALRM, _expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return compiled.search(text) is not None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


_SEARCH_CODE = _timed_search.__code__


UNTIMED_WORK: Final = 1 << 20
"""Character steps a search of a pattern without repeats may take untimed: a few
milliseconds, a hundredth of the deadline even on a slow machine."""
_MAY_BACKTRACK: Final = re.compile(r"[*+?{(|\[]")
"""What a repeat, group, lookaround, set or alternation needs (escaped or not: a cheap,
conservative test). Without them each item matches one character or none."""


def search_with_deadline(
    compiled: re.Pattern[str], text: str, seconds: float = PATTERN_DEADLINE
) -> bool:
    """Whether ``compiled`` matches somewhere in ``text``; ``PatternTimeout`` past the deadline."""
    source = compiled.pattern
    if (len(text) + 1) * len(source) <= UNTIMED_WORK and _MAY_BACKTRACK.search(source) is None:
        # Each of the len(text) + 1 starts tries at most one item per pattern character, so
        # the search is over long before any deadline: no timer (two system calls), no thread.
        return compiled.search(text) is not None
    if threading.current_thread() is threading.main_thread():
        try:
            return _timed_search(compiled, text, seconds)
        except _Expired:
            raise PatternTimeout from None
    return _search_elsewhere(compiled, text, seconds)


def _search_elsewhere(compiled: re.Pattern[str], text: str, seconds: float) -> bool:
    """Off the main thread no timer can interrupt ``re``: the same pattern runs on ``regex``,
    whose matcher honours a timeout (compiled on first use, cached by ``regex`` itself)."""
    import regex

    try:
        return (
            regex.search(compiled.pattern, text, flags=compiled.flags, timeout=seconds) is not None
        )
    except TimeoutError:
        raise PatternTimeout from None
