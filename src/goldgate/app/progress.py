"""Progress on stderr: a bar that redraws itself on a terminal, plain lines in CI logs.

Only suite names and counts are shown; stdout stays reserved for the safe summary. Progress
is best effort: a closed, full or dead stderr (no reader) stops it, never the run.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TextIO

from goldgate.base.english import count
from goldgate.base.textsafe import escape_control, printable
from goldgate.gold.suites import GoldSuite

_BAR_WIDTH = 24


def _is_terminal(stream: TextIO | None) -> bool:
    try:
        return stream is not None and stream.isatty()
    except ValueError:  # a closed file object
        return False


class Progress:
    def __init__(self, stream: TextIO | None = None, *, interactive: bool | None = None) -> None:
        # None when the process started without stderr (outside the console script).
        self.stream: TextIO | None = stream or sys.stderr
        self.interactive = _is_terminal(self.stream) if interactive is None else interactive

    def _show(self, text: str) -> None:
        """Write and flush ``text`` (no line of it a workflow command); after the first
        refusal, nothing more is tried."""
        if self.stream is None:
            return
        try:
            self.stream.write(printable(text))
            self.stream.flush()
        except (OSError, ValueError):
            self.stream = None

    def suite(self, suite: GoldSuite, repeat: int) -> Callable[[int], None]:
        total = len(suite.cases) * repeat
        name = escape_control(suite.name)  # data: a line break in it would end the bar's line
        # In a log, a line per quarter is enough to show the run is alive.
        marks = {max(1, round(total * share)) for share in (0.25, 0.5, 0.75, 1.0)}
        if not self.interactive:
            self._show(f"{name}: running {count(total, 'attempt')}\n")

        def update(done: int) -> None:
            if self.interactive:
                filled = _BAR_WIDTH * done // total if total else _BAR_WIDTH
                bar = "#" * filled + "-" * (_BAR_WIDTH - filled)
                end = "\n" if done >= total else ""
                self._show(f"\r{name}: [{bar}] {done}/{total}{end}")
            elif done in marks:
                self._show(f"{name}: {done}/{count(total, 'attempt')} done\n")

        return update
