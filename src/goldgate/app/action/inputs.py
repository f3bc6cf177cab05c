"""What the step was asked: the action's ``INPUT_*`` variables and the ``GOLDGATE_*`` knobs.

``read_inputs`` is pure: names upper-cased, underscores kept, and ``InvalidInputError`` for
the first input that is not what ``action.yml`` allows. The GitHub token and the two time
limits of the GitHub API are read here too, so that every part of the action reads them the
same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar

from goldgate.base.errors import InvalidInputError
from goldgate.render.registry import DETAILS, Details
from goldgate.run.limits import (
    DEFAULT_OPTIONS,
    MAX_CONCURRENCY,
    MAX_REPEAT,
    MAX_TIMEOUT,
    RunOptions,
)

Mode = Literal["check", "evaluate", "evals", "replay", "compare", "report"]
MODES: tuple[str, ...] = ("check", "evaluate", "evals", "replay", "compare", "report")
FailOn = Literal["disagreement", "regression", "never"]
FAIL_ON: tuple[str, ...] = ("disagreement", "regression", "never")
COMMENT_MODES = ("update", "new", "off")
COMMENT_WHEN = ("always", "changes", "failures", "off")
"""``comment_mode``: when to post (``github.comments.WHEN``)."""
_C = TypeVar("_C", bound=str)

REQUEST_TIMEOUT_VARIABLE = "GOLDGATE_GITHUB_TIMEOUT"
"""Seconds to wait for each answer of the GitHub API (default 20)."""
BASELINE_DEADLINE_VARIABLE = "GOLDGATE_BASELINE_DEADLINE"
"""Seconds the baseline download may take in all (default ``download.DOWNLOAD_DEADLINE``)."""


@dataclass(frozen=True)
class ActionInputs:
    mode: str = "evaluate"
    config: Path = Path("config/settings.yaml")
    suites: tuple[str, ...] = ()
    evals: tuple[Path, ...] = ()
    live: bool = False
    options: RunOptions = DEFAULT_OPTIONS
    """The run's max_concurrency, timeout and repeat inputs, as evaluate's options."""
    cache: Path | None = None
    variant: str | None = None
    baseline: str | None = None
    report: Path | None = None
    partial: bool = True
    junit: Path | None = None
    comment: str = "update"
    comment_mode: str = "always"
    comment_id: str = "goldgate"
    comment_author: str | None = None
    details: Details = "safe"
    link_gold: bool = True
    fail_on: str = "disagreement"
    github_token: str = field(default="", repr=False)


def _input(env: Mapping[str, str], name: str) -> str:
    return env.get(f"INPUT_{name.upper()}", "").strip()


def _bool(env: Mapping[str, str], name: str, default: bool) -> bool:
    value = _input(env, name).lower()
    if not value:
        return default
    if value in ("true", "yes", "1", "on"):
        return True
    if value in ("false", "no", "0", "off"):
        return False
    raise InvalidInputError(f"input {name} must be true or false, not {value!r}.")


def _number(
    env: Mapping[str, str], name: str, *, default: float, kind: type, maximum: float
) -> Any:
    value = _input(env, name)
    if not value:
        return default
    try:
        number = kind(value)
    except ValueError:
        raise InvalidInputError(f"input {name} must be a number, not {value!r}.") from None
    if not number > 0:  # NaN too
        raise InvalidInputError(f"input {name} must be more than 0, not {value!r}.")
    if not number <= maximum:
        raise InvalidInputError(f"input {name} must be at most {maximum:g}, not {value!r}.")
    return number


def _choice(env: Mapping[str, str], name: str, choices: tuple[_C, ...], default: _C) -> _C:
    value = _input(env, name).lower() or default
    for choice in choices:
        if value == choice:
            return choice
    raise InvalidInputError(f"input {name} must be one of {', '.join(choices)}, not {value!r}.")


def read_inputs(env: Mapping[str, str]) -> ActionInputs:
    """The action's inputs from ``INPUT_*``; ``InvalidInputError`` names the first bad one."""
    suites = tuple(
        part.strip()
        for line in _input(env, "suites").splitlines()
        for part in line.split(",")
        if part.strip()
    )
    workflow, job = env.get("GITHUB_WORKFLOW", "").strip(), env.get("GITHUB_JOB", "").strip()
    default_id = f"{workflow}/{job}" if workflow or job else "goldgate"
    return ActionInputs(
        mode=_choice(env, "mode", MODES, "evaluate"),
        config=Path(_input(env, "config") or "config/settings.yaml"),
        suites=suites,
        evals=tuple(Path(part) for part in _input(env, "evals").split()),
        live=_bool(env, "live", False),
        options=run_options(env),
        cache=cache_folder(_input(env, "cache"), env),
        variant=_input(env, "variant") or None,
        baseline=_input(env, "baseline") or None,
        report=Path(_input(env, "report")) if _input(env, "report") else None,
        partial=_bool(env, "partial", True),
        junit=Path(_input(env, "junit")) if _input(env, "junit") else None,
        comment=_choice(env, "comment", COMMENT_MODES, "update"),
        comment_mode=_choice(env, "comment_mode", COMMENT_WHEN, "always"),
        comment_id=_input(env, "comment_id") or default_id,
        comment_author=_input(env, "comment_author") or None,
        details=_choice(env, "details", DETAILS, "safe"),
        link_gold=_bool(env, "link_gold", True),
        fail_on=_choice(env, "fail_on", FAIL_ON, "disagreement"),
        github_token=_input(env, "github_token") or env.get("GITHUB_TOKEN", "").strip(),
    )


def run_options(env: Mapping[str, str]) -> RunOptions:
    """The ``max_concurrency``, ``timeout`` and ``repeat`` inputs, each defaulting to
    ``DEFAULT_OPTIONS``'s."""
    return RunOptions(
        max_concurrency=_number(
            env,
            "max_concurrency",
            default=DEFAULT_OPTIONS.max_concurrency,
            kind=int,
            maximum=MAX_CONCURRENCY,
        ),
        timeout=_number(
            env, "timeout", default=DEFAULT_OPTIONS.timeout, kind=float, maximum=MAX_TIMEOUT
        ),
        repeat=_number(env, "repeat", default=DEFAULT_OPTIONS.repeat, kind=int, maximum=MAX_REPEAT),
    )


def cache_folder(given: str, env: Mapping[str, str]) -> Path | None:
    """Where the action keeps the response cache (the ``cache`` input; empty: none). A
    relative name is under ``RUNNER_TEMP`` (the system's temporary folder outside a runner),
    outside the checkout, so nothing a pull request commits is read as a stored answer; an
    absolute path is used as it is (``goldgate evaluate`` refuses one whose files git
    tracks)."""
    if not given:
        return None
    path = Path(given)
    if path.is_absolute():
        return path
    import tempfile

    return Path(env.get("RUNNER_TEMP", "").strip() or tempfile.gettempdir()) / path


def github_token(env: Mapping[str, str]) -> str:
    """The token the action talks to GitHub with: the input, else ``GITHUB_TOKEN``."""
    return _input(env, "github_token") or env.get("GITHUB_TOKEN", "").strip()


def request_timeout(env: Mapping[str, str]) -> int:
    """Seconds to wait for each answer of the GitHub API: ``GOLDGATE_GITHUB_TIMEOUT``
    (a whole number from 1 to 300), else 20."""
    value = env.get(REQUEST_TIMEOUT_VARIABLE, "").strip()
    return int(value) if value.isdigit() and 1 <= int(value) <= 300 else 20


def baseline_deadline(env: Mapping[str, str]) -> float:
    """Seconds the whole baseline download may take: ``GOLDGATE_BASELINE_DEADLINE``, else
    ``DOWNLOAD_DEADLINE`` (a value that is not a positive number counts as unset)."""
    from goldgate.github.download import DOWNLOAD_DEADLINE

    try:
        seconds = float(env.get(BASELINE_DEADLINE_VARIABLE, "").strip() or DOWNLOAD_DEADLINE)
    except ValueError:
        return DOWNLOAD_DEADLINE
    return seconds if 0 < seconds < float("inf") else DOWNLOAD_DEADLINE
