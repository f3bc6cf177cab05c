"""The errors of the GitHub edge, each a ``GoldgateError`` with its exit code.

Callers turn every one of them into a warning and a fallback (a comment file, the job summary,
"no baseline"): GitHub is an edge of goldgate, never its judge. ``EventError`` and
``CommentTooLong`` are ``ValueError``s too, as they were before they had a home here.
"""

from __future__ import annotations

import re

from goldgate.base.errors import ExitCode, GoldgateError

__all__ = ["ArchiveRefused", "CommentTooLong", "EventError", "GitHubUnavailable", "one_sentence"]

# Installation tokens (ghs_), personal tokens (ghp_, github_pat_), OAuth and refresh tokens.
_TOKEN_SHAPES = re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{16,})")
_REASON_LIMIT = 300


class EventError(GoldgateError, ValueError):
    """The event payload is missing or unreadable; the message is one sentence."""

    exit_code = ExitCode.INVALID_INPUT


class GitHubUnavailable(GoldgateError):
    """GitHub could not do what was asked; ``reason`` is one sentence, safe to print.

    ``status`` is the HTTP status GitHub answered, or None for a network failure or a
    refusal made here (an empty token, a wait longer than allowed)."""

    def __init__(self, reason: str, *, status: int | None = None) -> None:
        self.reason = one_sentence(reason)
        self.status = status
        super().__init__(self.reason)


class CommentTooLong(GoldgateError, ValueError):
    """The body (with its marker) is over GitHub's limit; the caller must budget it."""


class ArchiveRefused(GoldgateError):
    """The artifact's archive is too large, not a zip, or holds an entry that could write
    outside the destination; the message is one sentence naming the entry."""

    exit_code = ExitCode.INVALID_INPUT


def one_sentence(text: str) -> str:
    """One line, no token, not too long, ending with a full stop."""
    flat = " ".join(_TOKEN_SHAPES.sub("[token]", text).split())
    if len(flat) > _REASON_LIMIT:
        flat = flat[: _REASON_LIMIT - 1].rstrip() + "…"
    flat = flat.rstrip(".") + "." if flat else "GitHub is unavailable."
    return flat
