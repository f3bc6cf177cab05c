"""Progress on stderr: a redrawn bar on a terminal, a few plain lines in a CI log."""

from __future__ import annotations

import io
from typing import Any

from goldgate.app.progress import Progress


class _Suite:
    def __init__(self, name: str, cases: int) -> None:
        self.name = name
        self.cases = [object()] * cases


def _run(interactive: bool, cases: int, repeat: int = 1) -> str:
    stream = io.StringIO()
    update = Progress(stream, interactive=interactive).suite(_Suite("triage", cases), repeat)  # type: ignore[arg-type]
    for done in range(1, cases * repeat + 1):
        update(done)
    return stream.getvalue()


def test_a_terminal_gets_one_redrawn_bar_ending_in_a_newline() -> None:
    output = _run(interactive=True, cases=4)

    frames = output.split("\r")[1:]
    assert len(frames) == 4
    assert frames[0] == "triage: [" + "#" * 6 + "-" * 18 + "] 1/4"
    assert frames[-1] == "triage: [" + "#" * 24 + "] 4/4\n"


def test_a_log_gets_a_start_line_and_one_line_per_quarter() -> None:
    output = _run(interactive=False, cases=100, repeat=2)

    assert output.splitlines() == [
        "triage: running 200 attempts",
        "triage: 50/200 attempts done",
        "triage: 100/200 attempts done",
        "triage: 150/200 attempts done",
        "triage: 200/200 attempts done",
    ]
    assert "\r" not in output


def test_progress_shows_names_and_counts_only(capsys: Any) -> None:
    Progress(interactive=False).suite(_Suite("s", 1), 1)(1)

    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == "s: running 1 attempt\ns: 1/1 attempt done\n"  # English counts


def test_no_progress_line_is_a_workflow_command() -> None:
    import re

    from goldgate.base.textsafe import starts_command

    for interactive in (True, False):
        for name in ("::error::x", "a\n::add-mask::b", "a\r::stop-commands::t", "x ##[error]y"):
            stream = io.StringIO()
            update = Progress(stream, interactive=interactive).suite(_Suite(name, 2), 1)  # type: ignore[arg-type]
            update(1)
            update(2)
            lines = re.split(r"\r\n|\r|\n", stream.getvalue())
            assert not [line for line in lines if starts_command(line) or "##[" in line], lines
