"""The variables the step masks from the settings' live workflows
(``isolation.credential_names``): read from the settings where there are some, and none,
without reading or importing anything of the settings, where the file is not there (a
publishing step's, often)."""

from __future__ import annotations

from pathlib import Path

import pytest

from goldgate.app.action import isolation

EXAMPLE = Path(__file__).parents[3] / "examples" / "support_triage" / "config" / "settings.yaml"


def test_the_credentials_of_the_live_workflows_are_named() -> None:
    assert "OPENAI_API_KEY" in isolation.credential_names(EXAMPLE)


def test_without_a_settings_file_none_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from goldgate.gold.settings import load

    def unread(path: Path) -> object:
        raise AssertionError(f"{path} read")

    monkeypatch.setattr(load, "load_settings", unread)
    assert isolation.credential_names(tmp_path / "config" / "settings.yaml") == []
    assert isolation.credential_names(tmp_path) == []  # a folder: no settings either


class _Unenterable(type(Path())):  # type: ignore[misc]
    """A path in a folder this user may not enter (root enters every folder: made so)."""

    def is_file(self) -> bool:
        raise PermissionError(13, "Permission denied", str(self))


def test_settings_behind_a_folder_the_user_may_not_enter_name_none() -> None:
    assert isolation.credential_names(_Unenterable("/locked/config/settings.yaml")) == []
