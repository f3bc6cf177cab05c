"""The ``slow`` mark's machinery (tests/helpers/slow.py): which runs guard against unmarked
process starts, and which helpers mark a test."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from helpers import slow
from run.support import run_cli


@pytest.mark.parametrize(
    ("markexpr", "guarded"),
    [
        ("not slow", True),
        ("not slow and not docker", True),
        ("(not slow)", True),
        ("slow", False),
        ("slow or not slow", False),
        ("docker", False),
        ("", False),
    ],
)
def test_only_a_run_that_leaves_slow_tests_out_is_guarded(markexpr: str, guarded: bool) -> None:
    assert slow.leaves_slow_out(markexpr) is guarded


# Never called: what the marker reads is the names their code loads.
def _starts() -> None:
    subprocess.run(["true"], check=True)


def _runs_the_cli() -> None:
    run_cli("--help", cwd=Path())


def _pure() -> None:
    assert slow.SLOW_FIXTURES


def test_a_test_naming_a_process_helper_is_slow() -> None:
    # This test names none itself (it stays in the quick run); the functions above do.
    starts, runs_the_cli, pure = _starts, _runs_the_cli, _pure

    assert slow._names_slow_helper(starts)
    assert slow._names_slow_helper(runs_the_cli)
    assert not slow._names_slow_helper(pure)
