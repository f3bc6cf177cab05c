"""The registry of target kinds: a kind added as docs/extending.md says (its settings as one
field of TargetSettings, its builder as one line of TARGET_KINDS) validates, builds and
answers; a kind the settings know and the registry does not is refused by name."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, ValidationError

from goldgate.gold.settings.models import TargetSettings
from goldgate.run.targets import (
    TARGET_KINDS,
    Target,
    TargetContext,
    TargetRequest,
    TargetResponse,
    build_target,
)

pytestmark = pytest.mark.anyio


class EchoSettings(BaseModel):
    """The toy kind's settings: the one document it answers every request with."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    document: dict[str, Any]


class EchoTargetSettings(TargetSettings):
    """TargetSettings with the toy kind as one more field, as a new kind would add it."""

    echo: EchoSettings | None = None


class EchoTarget:
    """The toy target: answers a fixed document, naming the workflow it was asked for."""

    def __init__(self, document: dict[str, Any], max_result_bytes: int) -> None:
        self.document = document
        self.max_result_bytes = max_result_bytes
        self.loaded = False

    def load(self) -> None:
        self.loaded = True

    async def __call__(self, request: TargetRequest) -> TargetResponse:
        return TargetResponse({**self.document, "asked": request.workflow})

    async def aclose(self) -> None:
        return None

    def describe(self) -> dict[str, Any]:
        return {"kind": "echo"}


def build(settings: EchoSettings, context: TargetContext) -> EchoTarget:
    return EchoTarget(dict(settings.document), context.max_result_bytes)


DOCUMENT = {"execution": {"status": "completed"}, "payload": {"label": "a"}}


@pytest.fixture
def echo_kind(monkeypatch: pytest.MonkeyPatch) -> None:
    """The toy's registry line (restored after the test)."""
    monkeypatch.setitem(TARGET_KINDS, "echo", f"{__name__}:build")


def test_the_new_field_is_a_kind_of_its_own() -> None:
    settings = EchoTargetSettings.model_validate({"echo": {"document": DOCUMENT}})

    assert EchoTargetSettings.kinds() == ("python", "command", "http", "model", "echo")
    assert settings.kind == "echo"
    assert settings.kind_settings == EchoSettings(document=DOCUMENT)


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({}, "exactly one of 'python', 'command', 'http', 'model' or 'echo'"),
        ({"python": "a:b", "echo": {"document": {}}}, "found python and echo"),
        ({"echo": {"document": {}, "extra": 1}}, "Extra inputs are not permitted"),
    ],
)
def test_the_new_kind_is_validated_with_the_others(values: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        EchoTargetSettings.model_validate(values)


@pytest.mark.usefixtures("echo_kind")
async def test_a_registered_kind_builds_and_answers(tmp_path: Any, request_: TargetRequest) -> None:
    settings = EchoTargetSettings.model_validate(
        {"echo": {"document": DOCUMENT}, "max_result_bytes": 4096}
    )

    target = build_target(settings, project_root=tmp_path)

    assert isinstance(target, EchoTarget)
    assert isinstance(target, Target)
    assert target.max_result_bytes == 4096
    target.load()
    assert (await target(request_)).document == {**DOCUMENT, "asked": "triage"}
    await target.aclose()


def test_a_kind_missing_from_the_registry_is_named(tmp_path: Any) -> None:
    settings = EchoTargetSettings.model_validate({"echo": {"document": DOCUMENT}})

    with pytest.raises(LookupError, match="no target kind 'echo' is registered"):
        build_target(settings, project_root=tmp_path)


def test_the_registry_and_the_settings_name_the_same_kinds() -> None:
    assert list(TARGET_KINDS) == list(TargetSettings.kinds())
