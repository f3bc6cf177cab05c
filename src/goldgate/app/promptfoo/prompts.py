"""A promptfoo configuration's prompts, read and labelled as promptfoo 0.123's
``processPrompt`` reads them: inline text (JSON chat messages too), objects with ``id``,
``label`` and ``raw``, and ``file://`` text, Markdown, Jinja, JSON, JSONL and YAML files."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from goldgate.app.promptfoo.files import FILE, Place, Reader
from goldgate.base.errors import InvalidInputError
from goldgate.base.textsafe import quote

__all__ = ["Prompt", "read_prompts"]

_FILE = FILE


@dataclass(frozen=True)
class Prompt:
    raw: str
    label: str
    id: str
    chat: bool
    """The prompt is a JSON array of chat messages (a ``.json`` file or JSON text)."""


def read_prompts(reader: Reader, raw: Any) -> tuple[Prompt, ...]:
    items: list[tuple[Any, str | None, list[str | int]]] = []
    if isinstance(raw, str):
        items = [(raw, None, ["prompts"])]
    elif isinstance(raw, list):
        items = [(item, None, ["prompts", index]) for index, item in enumerate(raw)]
    elif isinstance(raw, dict):  # {file://path: label}
        items = [(key, label, ["prompts", key]) for key, label in raw.items()]
    elif raw is not None:
        raise reader.place(["prompts"], "prompts").problem("must be a string, list or mapping")
    prompts: list[Prompt] = []
    for item, given, where in items:
        place = reader.place(where, "prompt")
        label = given
        if isinstance(item, dict):
            raw_text = item.get("raw", item.get("id"))
            label = None if item.get("label") is None else str(item["label"])
            if not isinstance(raw_text, str):
                raise place.problem("a prompt object needs 'raw' or 'id'")
            identity = str(item["id"]) if isinstance(item.get("id"), str) else None
        elif isinstance(item, str):
            raw_text, identity = item, None
        else:
            raise place.problem("must be a string or an object")
        for text, chat, name in _prompt_texts(reader, raw_text, place, label):
            prompts.append(Prompt(text, name, identity or name, chat))
    if not prompts:
        raise reader.place(["prompts"], "prompts").problem("the configuration has no prompts")
    return tuple(prompts)


def _is_chat(text: str) -> bool:
    stripped = text.strip()
    if not stripped.startswith("["):
        return False
    try:
        value = json.loads(stripped)
    except ValueError:
        return False
    return isinstance(value, list) and all(isinstance(item, dict) for item in value)


def _txt_parts(text: str) -> list[str]:
    """A text file's prompts as promptfoo's ``processTxtFile`` splits them: on lines that are
    ``---`` once trimmed, each part trimmed, empty parts dropped."""
    parts: list[str] = []
    buffer: list[str] = []
    for line in [*text.replace("\r\n", "\n").split("\n"), "---"]:
        if line.strip() == "---":
            part = "\n".join(buffer).strip()
            if part:
                parts.append(part)
            buffer = []
        else:
            buffer.append(line)
    return parts


def _prompt_texts(
    reader: Reader, item: str, place: Place, label: str | None
) -> list[tuple[str, bool, str]]:
    """(raw, chat, label) of each prompt ``item`` holds, read and labelled as promptfoo 0.123
    reads them (``processPrompt``): a file's label is ``[label: ]PATH: raw`` for text files,
    the given label or ``PATH: ...`` for the others."""
    if not item.startswith(_FILE):
        return [(item, _is_chat(item), item if label is None else label)]
    found: list[tuple[str, bool, str]] = []
    for path in reader.files(item, place):
        suffix = path.suffix.lower()
        if suffix not in (".txt", ".md", ".j2", ".json", ".jsonl", ".yaml", ".yml"):
            raise place.problem(
                f"{quote(item)} is not a text, Markdown, Jinja, JSON or YAML prompt file; "
                "goldgate import translates no prompt function or script"
            )
        text = reader.text(path)
        if suffix == ".txt":
            for part in _txt_parts(text):
                named = f"{path}: {part}" if label is None else f"{label}: {path}: {part}"
                found.append((part, _is_chat(part), named))
        elif suffix == ".jsonl":
            lines = [line for line in text.replace("\r\n", "\n").split("\n") if line]
            for line in lines:
                named = (label or str(path)) if len(lines) == 1 else f"{label or path}: {line}"
                found.append((line, _is_chat(line), named))
        elif suffix in (".json", ".yaml", ".yml"):
            compact = text
            try:
                value = reader.structured(path)
            except InvalidInputError:
                value = None
            else:
                compact = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
            shown = compact if suffix == ".json" else compact[:80]
            found.append((compact, _is_chat(compact), label or f"{path}: {shown}"))
        else:
            found.append((text, _is_chat(text), label or f"{path}: {text[:50]}..."))
    return found
