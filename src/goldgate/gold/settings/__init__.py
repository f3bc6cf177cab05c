"""Settings: workflows, their targets, flows and steps, scorers, and where gold lives."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from goldgate.base.lazy import load_export

_EXPORTS = {
    "SettingsError": "goldgate.gold.errors",
    "load_settings": "goldgate.gold.settings.load",
    "WorkflowSettings": "goldgate.gold.settings.models",
}

__all__ = [
    "SettingsError",
    "WorkflowSettings",
    "load_settings",
]

if TYPE_CHECKING:
    from goldgate.gold.errors import SettingsError
    from goldgate.gold.settings.load import load_settings
    from goldgate.gold.settings.models import WorkflowSettings


def __getattr__(name: str) -> Any:
    return load_export(__name__, _EXPORTS, name)
