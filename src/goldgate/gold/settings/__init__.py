"""Settings: workflows, their targets, flows and steps, scorers, and where gold lives."""

from __future__ import annotations

from typing import TYPE_CHECKING

from goldgate.base.lazy import lazy_exports

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


__getattr__ = lazy_exports(__name__, _EXPORTS)
