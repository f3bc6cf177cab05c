"""Progress on stderr: a bar that redraws itself on a terminal, plain lines in CI logs.

Only suite names and counts are shown; stdout stays reserved for the safe summary.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TextIO

from goldgate.dataset.gold import GoldSuite

_BAR_WIDTH = 24


class Progress:
    def __init__(self, stream: TextIO | None = None, *, interactive: bool | None = None) -> None:
        self.stream = stream or sys.stderr
        self.interactive = self.stream.isatty() if interactive is None else interactive

    def suite(self, suite: GoldSuite, repeat: int) -> Callable[[int], None]:
        total = len(suite.cases) * repeat
        # In a log, a line per quarter is enough to show the run is alive.
        marks = {max(1, round(total * share)) for share in (0.25, 0.5, 0.75, 1.0)}
        if not self.interactive:
            self.stream.write(f"{suite.name}: running {total} attempts\n")
            self.stream.flush()

        def update(done: int) -> None:
            if self.interactive:
                filled = _BAR_WIDTH * done // total if total else _BAR_WIDTH
                bar = "#" * filled + "-" * (_BAR_WIDTH - filled)
                end = "\n" if done >= total else ""
                self.stream.write(f"\r{suite.name}: [{bar}] {done}/{total}{end}")
            elif done in marks:
                self.stream.write(f"{suite.name}: {done}/{total} attempts done\n")
            self.stream.flush()

        return update
