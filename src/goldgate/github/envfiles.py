"""The runner's environment files: the step's outputs (``GITHUB_OUTPUT``) and its job summary
(``GITHUB_STEP_SUMMARY``), appended to so that no value can forge another."""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping
from pathlib import Path

# The job summary of one step may be at most 1 MiB; over it, the runner drops it whole.
SUMMARY_LIMIT = 1024 * 1024


_OUTPUT_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


def write_outputs(path: Path | str, outputs: Mapping[str, str]) -> None:
    """Append ``outputs`` to the ``GITHUB_OUTPUT`` file, each as ``name<<DELIMITER``, the
    value, then the delimiter: a fresh random delimiter per value, never one the value
    contains, so no value can end early and set an output of its own."""
    entries: list[str] = []
    for name, value in outputs.items():
        if not _OUTPUT_NAME.fullmatch(name):
            raise ValueError(
                f"output name {name!r} must be letters, digits, '_' or '-', "
                "starting with a letter or '_'."
            )
        delimiter = _delimiter_for(value)
        entries.append(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")
    with open(path, "a", encoding="utf-8", newline="") as file:
        file.write("".join(entries))


def append_summary(
    path: Path | str,
    markdown: str,
    limit: int = SUMMARY_LIMIT,
    *,
    rest_in: str = "the report",
) -> bool:
    """Append ``markdown`` to the job summary file ``GITHUB_STEP_SUMMARY``.

    The runner refuses a step's summary over ``limit`` bytes (1 MiB) and shows nothing, so
    what would pass it is cut at a line boundary and ends with a note saying so and where the
    rest is (``rest_in``). Returns whether everything fit."""
    target = Path(path)
    used = target.stat().st_size if target.exists() else 0
    text = markdown if markdown.endswith("\n") or not markdown else markdown + "\n"
    room = limit - used
    complete = len(text.encode("utf-8")) <= room
    if not complete:
        note = (
            "\n> The job summary was cut here: GitHub shows at most 1 MiB of it per step; "
            f"the rest is in {rest_in}.\n"
        )
        text = _cut_to_bytes(text, room - len(note.encode("utf-8"))) + note
        if len(text.encode("utf-8")) > room:
            return False  # not even the note fits: leave the summary as it is
    with open(target, "a", encoding="utf-8", newline="") as file:
        file.write(text)
    return complete


def _delimiter_for(value: str) -> str:
    for _ in range(100):
        delimiter = f"ghadelimiter_{uuid.uuid4()}"
        if delimiter not in value:
            return delimiter
    raise ValueError("could not find a heredoc delimiter that the output value does not contain.")


def _cut_to_bytes(text: str, budget: int) -> str:
    """The longest prefix of ``text`` that ends at a line break and fits ``budget`` bytes."""
    if budget <= 0:
        return ""
    prefix = text.encode("utf-8")[:budget].decode("utf-8", errors="ignore")
    end = prefix.rfind("\n")
    return prefix[: end + 1] if end >= 0 else ""
