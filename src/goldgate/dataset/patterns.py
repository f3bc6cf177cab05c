"""Gold regular expressions: compiled once when gold is loaded, searched under a deadline.

Patterns use Python's ``re`` dialect. They are compiled once, by the offline check and by
loading (the same compiled object then serves every attempt), never while scoring. A search
runs under a deadline so that a pattern that backtracks catastrophically fails its check with
a reason instead of hanging the run: in the main thread a real-time timer interrupts ``re``
(which checks for signals while it matches); elsewhere (the Python API driven from a worker
thread) the search runs on the ``regex`` engine, whose ``timeout=`` does the same.
"""

from __future__ import annotations

import _signal  # type: ignore[import-not-found]  # the raw C module: no enum wrapping
import functools
import re
import signal
import threading
from collections.abc import Callable
from typing import Any, Final

__all__ = [
    "PATTERN_DEADLINE",
    "PatternProblem",
    "PatternTimeout",
    "compile_pattern",
    "search_with_deadline",
]

PATTERN_DEADLINE: Final = 0.5
"""Seconds one search of one gold pattern may take before its check fails."""


class PatternProblem(ValueError):
    """A pattern that does not compile; ``str()`` is a safe summary (no pattern text)."""


class PatternTimeout(Exception):
    """A search ran past its deadline."""


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


def _compiler() -> Callable[[str], re.Pattern[str]]:
    """What ``re.compile(pattern)`` does for a new pattern, without ``re``'s own cache.

    Gold holds thousands of distinct patterns (a case's own ticket number, say), so ``re``'s
    512-entry cache misses on almost every one, and each miss paid a third again of the
    compilation: dropping the cache's oldest entry scans past every slot deleted before it,
    and its flag checks go through ``enum``. The compiler it calls is the same in every
    Python that has ``re._compiler`` (3.11 on); elsewhere ``re.compile`` itself is used.
    A small cache of our own still serves a pattern many cases repeat."""
    internal = getattr(re, "_compiler", None)
    compile_new = getattr(internal, "compile", None)
    if not callable(compile_new):  # pragma: no cover - every supported Python has it
        return re.compile

    @functools.lru_cache(maxsize=_CACHED_PATTERNS)
    def compiled(pattern: str) -> re.Pattern[str]:
        result: re.Pattern[str] = compile_new(pattern, 0)
        return result

    return compiled


_CACHED_PATTERNS: Final = 512
_compile: Final = _compiler()


def compile_pattern(pattern: str) -> re.Pattern[str]:
    """``pattern`` compiled, or ``PatternProblem`` with a safe summary of why not. Every way
    the compiler can refuse a pattern (a syntax error, a repeat count or a nesting too large
    for it) is a problem, never an escaping exception."""
    if type(pattern) is not str:
        raise TypeError("a gold pattern is a string")
    try:
        return _compile(pattern)
    except re.error as error:
        raise PatternProblem(error_summary(error)) from None
    except (OverflowError, RecursionError, MemoryError, ValueError) as error:
        raise PatternProblem(
            f"it is too large or nested too deeply ({type(error).__name__})"
        ) from None


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


def search_with_deadline(
    compiled: re.Pattern[str], text: str, seconds: float = PATTERN_DEADLINE
) -> bool:
    """Whether ``compiled`` matches somewhere in ``text``; ``PatternTimeout`` past the deadline."""
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
