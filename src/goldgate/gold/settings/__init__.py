"""Settings: workflows, their targets, flows and steps, scorers, and where gold lives."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from goldgate.base.lazy import load_export

_EXPORTS = {
    "DEFAULT_SETTINGS": "goldgate.gold.settings.load",
    "LoadedSettings": "goldgate.gold.settings.load",
    "SettingsError": "goldgate.gold.settings.load",
    "load_settings": "goldgate.gold.settings.load",
    "FlowSettings": "goldgate.gold.settings.models",
    "ScorerSettings": "goldgate.gold.settings.models",
    "Settings": "goldgate.gold.settings.models",
    "StepSettings": "goldgate.gold.settings.models",
    "TargetSettings": "goldgate.gold.settings.models",
    "WorkflowSettings": "goldgate.gold.settings.models",
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
    from goldgate.gold.settings.load import (
        DEFAULT_SETTINGS,
        LoadedSettings,
        SettingsError,
        load_settings,
    )
    from goldgate.gold.settings.models import (
        FlowSettings,
        ScorerSettings,
        Settings,
        StepSettings,
        TargetSettings,
        WorkflowSettings,
    )


def __getattr__(name: str) -> Any:
    return load_export(__name__, _EXPORTS, name)
