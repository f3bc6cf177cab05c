"""Settings: workflows, their targets, flows and steps, scorers, and where gold lives."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from goldgate.lazy import load_export

_EXPORTS = {
    "DEFAULT_SETTINGS": "goldgate.settings.load",
    "LoadedSettings": "goldgate.settings.load",
    "SettingsError": "goldgate.settings.load",
    "load_settings": "goldgate.settings.load",
    "FlowSettings": "goldgate.settings.models",
    "ScorerSettings": "goldgate.settings.models",
    "Settings": "goldgate.settings.models",
    "StepSettings": "goldgate.settings.models",
    "TargetSettings": "goldgate.settings.models",
    "WorkflowSettings": "goldgate.settings.models",
}

__all__ = [
    "DEFAULT_SETTINGS",
    "FlowSettings",
    "LoadedSettings",
    "ScorerSettings",
    "Settings",
    "SettingsError",
    "StepSettings",
    "TargetSettings",
    "WorkflowSettings",
    "load_settings",
]

if TYPE_CHECKING:
    from goldgate.settings.load import (
        DEFAULT_SETTINGS,
        LoadedSettings,
        SettingsError,
        load_settings,
    )
    from goldgate.settings.models import (
        FlowSettings,
        ScorerSettings,
        Settings,
        StepSettings,
        TargetSettings,
        WorkflowSettings,
    )


def __getattr__(name: str) -> Any:
    return load_export(__name__, _EXPORTS, name)
