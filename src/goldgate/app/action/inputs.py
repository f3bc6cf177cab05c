"""What the step was asked: the action's ``INPUT_*`` variables and the ``GOLDGATE_*`` knobs.

``INPUTS`` is the one table of the inputs goldgate reads (name, the default action.yml states,
how it is read, the words it allows); ``read_inputs`` is pure: names upper-cased, underscores
kept, and ``InvalidInputError`` for the first input that is not what ``action.yml`` allows.
The GitHub token and the two time limits of the GitHub API are read here too, so that every
part of the action reads them the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Literal, TypeVar, get_args

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
MODES: tuple[Mode, ...] = get_args(Mode)
FailOn = Literal["disagreement", "regression", "never"]
FAIL_ON: tuple[FailOn, ...] = get_args(FailOn)
CommentStyle = Literal["update", "new", "off"]
"""``comment``: edit the sticky comment, post a new one, or none (``github.comments.Mode``)."""
COMMENT_STYLES: tuple[CommentStyle, ...] = get_args(CommentStyle)
CommentWhen = Literal["always", "changes", "failures", "off"]
"""``comment_mode``: when to post (``github.comments.When``)."""
COMMENT_WHEN: tuple[CommentWhen, ...] = get_args(CommentWhen)
_T = TypeVar("_T")
_C = TypeVar("_C", bound=str)
_N = TypeVar("_N", int, float)

REQUEST_TIMEOUT_VARIABLE = "GOLDGATE_GITHUB_TIMEOUT"
"""Seconds to wait for each answer of the GitHub API (default 20)."""
BASELINE_DEADLINE_VARIABLE = "GOLDGATE_BASELINE_DEADLINE"
"""Seconds the baseline download may take in all (default ``download.DOWNLOAD_DEADLINE``)."""
MAX_ANNOTATIONS_VARIABLE = "GOLDGATE_MAX_ANNOTATIONS"
"""Annotations a check run is sent at most (default ``DEFAULT_MAX_ANNOTATIONS``)."""
DEFAULT_MAX_ANNOTATIONS = 1_000


@dataclass(frozen=True)
class InputSpec(Generic[_T]):
    """One input of the action: its name, the default ``action.yml`` and
    ``docker/action.yml`` state, how its text is read, the words it allows (choices only)
    and the line ``goldgate action --help`` shows."""

    name: str
    default: str
    parse: Callable[[str, str], _T]
    """(name, text) to the value; ``InvalidInputError`` names the input."""
    help: str
    choices: tuple[str, ...] = ()


def _text(name: str, value: str) -> str:
    return value


def _bool(name: str, value: str) -> bool:
    value = value.lower()
    if value in ("true", "yes", "1", "on"):
        return True
    if value in ("false", "no", "0", "off"):
        return False
    raise InvalidInputError(f"input {name} must be true or false, not {value!r}.")


def _number(kind: Callable[[str], _N], maximum: float) -> Callable[[str, str], _N]:
    def parse(name: str, value: str) -> _N:
        try:
            number = kind(value)
        except ValueError:
            raise InvalidInputError(f"input {name} must be a number, not {value!r}.") from None
        if not number > 0:  # NaN too
            raise InvalidInputError(f"input {name} must be more than 0, not {value!r}.")
        if not number <= maximum:
            raise InvalidInputError(f"input {name} must be at most {maximum:g}, not {value!r}.")
        return number

    return parse


def _choice(name: str, words: tuple[_C, ...], default: _C, help: str) -> InputSpec[_C]:
    def parse(name: str, value: str) -> _C:
        value = value.lower()
        for word in words:
            if value == word:
                return word
        raise InvalidInputError(f"input {name} must be one of {', '.join(words)}, not {value!r}.")

    return InputSpec(name, default, parse, help, choices=words)


def _words(name: str, help: str, *, default: str = "") -> InputSpec[str]:
    """An input taken as it is written (a path, names, a token)."""
    return InputSpec(name, default, _text, help)


def _flag(name: str, default: Literal["true", "false"], help: str) -> InputSpec[bool]:
    return InputSpec(name, default, _bool, help)


MODE = _choice("mode", MODES, "evaluate", "what to run")
CONFIG = _words("config", "the settings file", default="config/settings.yaml")
SUITES = _words(
    "suites", "suites to run, comma- or newline-separated (empty: all); datasets in evals mode"
)
EVALS = _words("evals", "eval files and folders to run in evals mode, space- or newline-separated")
LIVE = _flag("live", "false", "true authorizes live workflows")
# The run options' defaults are RunOptions' own, written as action.yml states them.
CONCURRENCY_INPUT = InputSpec(
    "max_concurrency",
    f"{DEFAULT_OPTIONS.max_concurrency}",
    _number(int, MAX_CONCURRENCY),
    "as evaluate's option",
)
TIMEOUT_INPUT = InputSpec(
    "timeout", f"{DEFAULT_OPTIONS.timeout:g}", _number(float, MAX_TIMEOUT), "as evaluate's option"
)
REPEAT_INPUT = InputSpec(
    "repeat", f"{DEFAULT_OPTIONS.repeat}", _number(int, MAX_REPEAT), "as evaluate's option"
)
CACHE = _words(
    "cache",
    "the response cache folder of live workflows, as evaluate's --cache; "
    "a relative name is under RUNNER_TEMP, outside the checkout (empty: off)",
)
VARIANT = _words("variant", "the name of what runs (empty: the settings')")
BASELINE = _words(
    "baseline", "artifact:NAME (the artifact NAME-<merge-base commit>) or a report path"
)
REPORT = _words(
    "report",
    "an existing report: the candidate (compare), the saved run "
    "(replay) or the report to render (report)",
)
PARTIAL = _flag("partial", "true", "true | false: compare what matches when gold changed")
JUNIT = _words("junit", "where to write JUnit XML (empty: none)")
COMMENT = _choice("comment", COMMENT_STYLES, "update", "the sticky pull-request comment")
COMMENT_MODE = _choice(
    "comment_mode", COMMENT_WHEN, "always", "when to post the comment (--comment-mode sets it)"
)
COMMENT_ID = _words(
    "comment_id", "tells this step's sticky comment apart (unset: WORKFLOW/JOB)", default="goldgate"
)
COMMENT_AUTHOR = _words(
    "comment_author", "the login that posts the comment (empty: read from the token)"
)
DETAILS_INPUT = _choice("details", DETAILS, "safe", "what the comment may show of values")
LINK_GOLD = _flag("link_gold", "true", "true links cases to their gold lines")
FAIL_ON_INPUT = _choice("fail_on", FAIL_ON, "disagreement", "what fails the step")
CHECK_RUN = _flag(
    "check_run",
    "false",
    "true creates a check run (checks: write) with every annotation, named after comment_id",
)
GITHUB_TOKEN = _words(
    "github_token",
    "the token that comments and downloads the baseline (unset: GITHUB_TOKEN)",
    default="${{ github.token }}",
)

INPUTS: tuple[InputSpec[Any], ...] = (
    MODE,
    CONFIG,
    SUITES,
    EVALS,
    LIVE,
    CONCURRENCY_INPUT,
    TIMEOUT_INPUT,
    REPEAT_INPUT,
    CACHE,
    VARIANT,
    BASELINE,
    REPORT,
    PARTIAL,
    JUNIT,
    COMMENT,
    COMMENT_MODE,
    COMMENT_ID,
    COMMENT_AUTHOR,
    DETAILS_INPUT,
    LINK_GOLD,
    FAIL_ON_INPUT,
    CHECK_RUN,
    GITHUB_TOKEN,
)
"""Every input goldgate reads, in action.yml's order (``python`` is the composite action's
own): ``read_inputs`` parses from it, ``goldgate action --help`` lists it, and
tests/app/action/test_action_metadata.py checks it against both action.yml files."""


def inputs_help() -> str:
    """The inputs as ``goldgate action --help`` and ``goldgate publish --help`` list them."""
    lines = []
    for spec in INPUTS:
        words = f"{' | '.join(spec.choices)}: " if spec.choices else ""
        default = f" (default {spec.default})" if spec.default and spec is not GITHUB_TOKEN else ""
        lines.append(f"INPUT_{spec.name.upper()}: {words}{spec.help}{default}.")
    head = "Inputs, as the runner passes them (action.yml documents each):"
    return "\n\n".join([head, *lines]) + "\n"  # one paragraph each: typer rewraps lines


@dataclass(frozen=True)
class ActionInputs:
    """The step's inputs, as ``read_inputs`` reads them from ``INPUTS`` (which holds every
    default: none here)."""

    mode: Mode
    config: Path
    suites: tuple[str, ...]
    evals: tuple[Path, ...]
    live: bool
    options: RunOptions
    """The run's max_concurrency, timeout and repeat inputs, as evaluate's options."""
    cache: Path | None
    variant: str | None
    baseline: str | None
    report: Path | None
    partial: bool
    junit: Path | None
    comment: CommentStyle
    comment_mode: CommentWhen
    comment_id: str
    comment_author: str | None
    details: Details
    link_gold: bool
    fail_on: FailOn
    check_run: bool
    github_token: str = field(repr=False)


def _input(env: Mapping[str, str], name: str) -> str:
    return env.get(f"INPUT_{name.upper()}", "").strip()


def _read(env: Mapping[str, str], spec: InputSpec[_T]) -> _T:
    """``spec``'s value: its ``INPUT_*`` variable, else the default action.yml states."""
    return spec.parse(spec.name, _input(env, spec.name) or spec.default)


def _given(env: Mapping[str, str], spec: InputSpec[str]) -> str | None:
    return _read(env, spec) or None


def read_inputs(env: Mapping[str, str]) -> ActionInputs:
    """The action's inputs from ``INPUT_*``, each read as ``INPUTS`` says;
    ``InvalidInputError`` names the first bad one and the values it allows."""
    suites = tuple(
        part.strip()
        for line in _read(env, SUITES).splitlines()
        for part in line.split(",")
        if part.strip()
    )
    junit, report = _given(env, JUNIT), _given(env, REPORT)
    return ActionInputs(
        mode=_read(env, MODE),
        config=Path(_read(env, CONFIG)),
        suites=suites,
        evals=tuple(Path(part) for part in _read(env, EVALS).split()),
        live=_read(env, LIVE),
        options=run_options(env),
        cache=cache_folder(_read(env, CACHE), env),
        variant=_given(env, VARIANT),
        baseline=_given(env, BASELINE),
        report=Path(report) if report else None,
        partial=_read(env, PARTIAL),
        junit=Path(junit) if junit else None,
        comment=_read(env, COMMENT),
        comment_mode=_read(env, COMMENT_MODE),
        comment_id=_input(env, COMMENT_ID.name) or _default_comment_id(env),
        comment_author=_given(env, COMMENT_AUTHOR),
        details=_read(env, DETAILS_INPUT),
        link_gold=_read(env, LINK_GOLD),
        fail_on=_read(env, FAIL_ON_INPUT),
        check_run=_read(env, CHECK_RUN),
        github_token=github_token(env),
    )


def _default_comment_id(env: Mapping[str, str]) -> str:
    """Outside the runner (which passes action.yml's ``goldgate``): ``WORKFLOW/JOB``."""
    workflow, job = env.get("GITHUB_WORKFLOW", "").strip(), env.get("GITHUB_JOB", "").strip()
    return f"{workflow}/{job}" if workflow or job else COMMENT_ID.default


def run_options(env: Mapping[str, str]) -> RunOptions:
    """The ``max_concurrency``, ``timeout`` and ``repeat`` inputs; the defaults action.yml
    states are ``DEFAULT_OPTIONS``'s (tests/run/test_run_options.py)."""
    return RunOptions(
        max_concurrency=_read(env, CONCURRENCY_INPUT),
        timeout=_read(env, TIMEOUT_INPUT),
        repeat=_read(env, REPEAT_INPUT),
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
    return _input(env, GITHUB_TOKEN.name) or env.get("GITHUB_TOKEN", "").strip()


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


def max_annotations(env: Mapping[str, str]) -> int:
    """Annotations a check run is sent at most: ``GOLDGATE_MAX_ANNOTATIONS`` (a whole number
    from 0 to 100,000), else 1,000; the rest is one notice that counts them."""
    value = env.get(MAX_ANNOTATIONS_VARIABLE, "").strip()
    if value.isdigit() and int(value) <= 100_000:
        return int(value)
    return DEFAULT_MAX_ANNOTATIONS
