"""Settings: workflows, their targets, flows and steps, scorers, and where gold lives."""

from goldgate.settings.load import DEFAULT_SETTINGS, LoadedSettings, SettingsError, load_settings
from goldgate.settings.models import (
    FlowSettings,
    ScorerSettings,
    Settings,
    StepSettings,
    TargetSettings,
    WorkflowSettings,
)

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
