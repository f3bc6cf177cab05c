"""The files a promptfoo configuration names: read inside its folder only, each problem
naming the file and the place (``Place``)."""

from __future__ import annotations

import glob
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from goldgate.base.errors import InvalidInputError
from goldgate.base.files import read_regular_file
from goldgate.base.problems import display_path
from goldgate.base.textsafe import escape_control, quote
from goldgate.gold.settings.yamlfile import load_yaml_file

__all__ = ["FILE", "Place", "Reader", "parse_json", "value_file"]

FILE = "file://"
_FILE = FILE


@dataclass(frozen=True)
class Place:
    """Where something was read: a file and a line (1 when unknown) and what it is there."""

    file: str
    line: int
    what: str

    def problem(self, sentence: str) -> InvalidInputError:
        return InvalidInputError(
            escape_control(f"{self.file}:{self.line}: {self.what}: {sentence}.")
        )


class Reader:
    """Reads one configuration and the files it names, all inside ``folder``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.folder = path.resolve().parent
        self.shown = display_path(path)
        self.document = load_yaml_file(path, self.shown, core_schema=True)

    def place(self, where: Sequence[str | int], what: str) -> Place:
        line, _ = self.document.position([str(part) for part in where])
        return Place(self.shown, line, what)

    def files(self, reference: str, place: Place) -> list[Path]:
        """The files a ``file://`` reference names (a glob: every match, sorted), each inside
        the configuration's folder."""
        text = reference[len(_FILE) :] if reference.startswith(_FILE) else reference
        text = text.split(":")[0] if text.count(":") == 1 and not text.endswith(":") else text
        pattern = text if Path(text).is_absolute() else str(self.folder / text)
        matches = sorted(glob.glob(pattern, recursive=True)) if glob.has_magic(text) else [pattern]
        if not matches:
            raise place.problem(f"{quote(reference)} matches no file")
        found = []
        for match in matches:
            resolved = Path(match).resolve()
            if not resolved.is_relative_to(self.folder):
                raise place.problem(
                    f"{quote(reference)} is outside the configuration's folder; "
                    "goldgate import reads only files inside it"
                )
            found.append(resolved)
        return found

    def text(self, path: Path) -> str:
        shown = display_path(path)
        data = read_regular_file(path, shown)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidInputError(f"{escape_control(shown)}: is not UTF-8 text.") from None

    def yaml(self, path: Path) -> Any:
        """A file's value read as YAML 1.2 (promptfoo reads JSON values with js-yaml too)."""
        return load_yaml_file(path, display_path(path), core_schema=True).value

    def structured(self, path: Path) -> Any:
        """A YAML or JSON file's value (YAML 1.2, as promptfoo reads both)."""
        if path.suffix.lower() in (".yaml", ".yml"):
            return load_yaml_file(path, display_path(path), core_schema=True).value
        return parse_json(display_path(path), self.text(path))


def parse_json(shown: str, text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise InvalidInputError(
            escape_control(f"{shown}:{error.lineno}:{error.colno}: invalid JSON ({error.msg}).")
        ) from None


_SCRIPTS = (".py", ".js", ".cjs", ".mjs", ".ts", ".cts", ".mts", ".rb")


def value_file(reader: Reader, value: Any, place: Place) -> Any:
    """An assertion's ``file://`` value loaded as promptfoo's ``processFileReference`` loads
    it (a list's ``file://`` items too); None for anything else, scripts included."""
    if isinstance(value, list) and any(isinstance(v, str) and v.startswith(FILE) for v in value):
        return [
            value_file(reader, v, place) if isinstance(v, str) and v.startswith(FILE) else v
            for v in value
        ]
    if not isinstance(value, str) or not value.startswith(FILE):
        return None
    name = value[len(FILE) :].split(":", 1)[0]
    if name.endswith(_SCRIPTS):
        return None
    path = reader.files(FILE + name, place)[0]
    suffix = path.suffix.lower()
    if suffix in (".json", ".yaml", ".yml"):
        return reader.structured(path) if suffix != ".json" else reader.yaml(path)
    if suffix == ".txt":
        return reader.text(path).strip()
    raise place.problem(f"{quote(value)}: promptfoo reads .txt, JSON and YAML values only")
