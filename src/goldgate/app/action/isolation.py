"""Keeping user code (targets, scorers, evals) away from the step's secrets and commands.

Every credential a live workflow names, and the GitHub token, is masked in the log before
anything runs (``mask_secrets``). The GitHub and Actions tokens never sit in an environment
block user code could read (``hold_tokens_apart``); user code runs as a program of its own
whose environment never held them (``run_user_code``, ``target_environ``), and while it runs
the runner obeys no workflow command (``commands_paused``).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from goldgate.base.errors import GoldgateError, InvalidInputError
from goldgate.base.textsafe import TOKEN_VARIABLES

if TYPE_CHECKING:
    from goldgate.app.action.inputs import ActionInputs
    from goldgate.app.action.step import StepRun

HIDDEN_FROM_TARGETS = TOKEN_VARIABLES
"""Tokens the runner or the workflow hands the action that a target must never see."""


def target_environ(env: Mapping[str, str]) -> dict[str, str]:
    """The environment targets see: the action's own, without any GitHub or Actions token."""
    return {key: value for key, value in env.items() if key not in HIDDEN_FROM_TARGETS}


def user_code_environ(env: Mapping[str, str]) -> dict[str, str]:
    """The environment of the program that runs user code: ``target_environ`` without the
    paths of the runner's files either (``seal.RUNNER_FILES``), which only goldgate writes."""
    from goldgate.app.action.seal import RUNNER_FILES

    hidden = {TOKENS_FD, *RUNNER_FILES}
    return {key: value for key, value in target_environ(env).items() if key not in hidden}


TOKENS_FD = "GOLDGATE_ACTION_TOKENS_FD"
"""Names the descriptor the tokens wait in after ``hold_tokens_apart`` re-executed goldgate."""
_MAX_TOKEN_BYTES = 60_000  # below a pipe's buffer: written before anyone reads it


def hold_tokens_apart(arguments: Sequence[str] = ("action",)) -> dict[str, str]:
    """The GitHub and Actions tokens, kept out of this process's environment block.

    ``/proc/<pid>/environ`` shows the environment a process was started with, to any process
    of the same user: the targets' included. So when a token is in the environment, it is
    written into a pipe and goldgate starts again (exec, same process, the same command:
    ``arguments``) with an environment without it, and the new program reads the tokens back
    from the pipe: neither its
    environment block nor that of anything it starts ever held them."""
    descriptor = os.environ.pop(TOKENS_FD, None)
    if descriptor is not None:
        return _read_tokens(int(descriptor))
    held = {name: os.environ[name] for name in HIDDEN_FROM_TARGETS if name in os.environ}
    if not held:
        return {}
    data = json.dumps(held).encode("utf-8")
    if len(data) > _MAX_TOKEN_BYTES:
        raise InvalidInputError("the GitHub and Actions tokens in the environment are too long.")
    read_end, write_end = os.pipe()
    os.write(write_end, data)
    os.close(write_end)
    os.set_inheritable(read_end, True)
    env = target_environ(os.environ)
    env[TOKENS_FD] = str(read_end)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, [sys.executable, *_own_flags(), "-m", "goldgate", *arguments], env)


def start_again_first(arguments: Sequence[str]) -> None:
    """``hold_tokens_apart`` as the first thing ``python -m goldgate action`` does, before the
    command line (typer and the commands' modules) is imported: the program that replaces
    this one imports it anyway, and the action's run step reads no bytecode when its seal
    trusted none, so each import here would be a compile paid twice. ``arguments``: the
    command line as given, which the new
    program parses. Tokens too long to hand over are left for the command to refuse."""
    from goldgate.base.stdio import streams_inheritable

    if TOKENS_FD not in os.environ and streams_inheritable():
        with contextlib.suppress(InvalidInputError):
            hold_tokens_apart(arguments)


def _read_tokens(descriptor: int) -> dict[str, str]:
    chunks = []
    try:
        while chunk := os.read(descriptor, 65536):
            chunks.append(chunk)
    finally:
        os.close(descriptor)
    value = json.loads(b"".join(chunks) or b"{}")
    return {str(key): str(item) for key, item in value.items() if key in HIDDEN_FROM_TARGETS}


def _own_flags() -> list[str]:
    """The flags this goldgate started with that keep what user code could plant out of it,
    for the same goldgate started again: ``-I`` (else ``-P``), ``-B`` (the action's run step
    writes no bytecode into the folders its seal listed) and its ``pycache_prefix`` (the
    run step reads no ``__pycache__`` when its seal trusted none)."""
    flags = ["-I"] if sys.flags.isolated else ["-P"]
    if sys.flags.dont_write_bytecode:
        flags.append("-B")
    return [*flags, "-X", f"pycache_prefix={sys.pycache_prefix}"] if sys.pycache_prefix else flags


def goldgate_command() -> list[str]:
    """This goldgate as a new program. ``-P``: the working folder (a pull request's checkout)
    does not go first on ``sys.path``, so a ``goldgate`` folder there is not imported."""
    return [sys.executable, "-P", "-m", "goldgate"]


def run_user_code(run: StepRun, arguments: list[str]) -> int:
    """A goldgate command that runs user code (targets, scorers, evals), as a program of its
    own started with an environment that never held a token (``user_code_environ``): user
    code in it cannot read one from its memory, its environment or its parent's. That program
    supervises its own run (``goldgate.app.supervisor``); its exit code is the run's. Once it
    has ended, every process it left is killed, whatever session it moved to, and the
    runner's files hold again what they held before it started (``seal``)."""
    from goldgate.app.action.seal import run_sealed
    from goldgate.app.supervisor import run_child
    from goldgate.base.errors import ExitCode

    command = [*goldgate_command(), *arguments]
    code, unrestored = run_sealed(run.env, lambda: run_child(command, user_code_environ(run.env)))
    if unrestored is not None:
        run.failure = unrestored
        run.warning(f"{unrestored}.")
        return int(ExitCode.RUNTIME_FAILURE)
    return code


@contextlib.contextmanager
def commands_paused(run: StepRun) -> Iterator[None]:
    """The runner obeys no workflow command while the body runs user code (targets, scorers,
    evals): what they print, an answer a model was talked into say, can neither forge an
    annotation nor silence goldgate's own commands with ``::stop-commands::`` (while
    commands are stopped, that one is ignored too). The token that resumes them is random
    and printed only here; goldgate prints none of its commands inside. The pause goes to
    stderr, where user code's output goes (file descriptor 1 is stderr while it runs), so
    that nothing it prints comes first; the resume goes to stdout, before goldgate's own."""
    from goldgate.base.stdio import write_stderr_command
    from goldgate.render.workflow_commands import stop_commands

    token = secrets.token_hex(16)
    write_stderr_command(stop_commands(token))
    try:
        yield
    finally:
        run.commands.resume(token)


def credential_names(config: Path) -> list[str]:
    """The environment variables every live workflow of the settings names as credentials
    (none when the settings cannot be read: the run will say why)."""
    try:
        if not config.is_file():  # nothing to read (a publishing step's, often): no models
            return []
    except OSError:  # a folder on the way this user may not enter: unreadable, as below
        return []
    from goldgate.gold.settings.load import load_settings

    try:
        loaded = load_settings(config)
    except (GoldgateError, OSError, ValueError):
        return []
    names: list[str] = []
    for workflow in loaded.workflows.values():
        if workflow.live:
            names += [name for name in workflow.credentials if name not in names]
    return names


def mask_secrets(run: StepRun, inputs: ActionInputs) -> None:
    from goldgate.base.textsafe import note_secret_values

    values = [inputs.github_token] + [
        run.env.get(name, "") for name in credential_names(inputs.config)
    ]
    # What the log masks, every rendering redacts: comment, summary, annotations, JUnit.
    note_secret_values(values)
    for value in values:
        run.commands.mask(value)
