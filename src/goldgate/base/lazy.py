"""Package namespaces that load their modules on first use (PEP 562).

A package such as ``goldgate.gold`` names what its modules offer, but importing one of
them (``goldgate.gold.shapes``, say) must not load the others: the settings, YAML and a
hundred pydantic models would be built for a command that needs none of them.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def load_export(package: str, exports: Mapping[str, str], name: str) -> Any:
    """``package``'s attribute ``name``, imported from the module ``exports`` names and kept
    in the package's namespace, so that the next lookup does not come here."""
    module = exports.get(name)
    if module is None:
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    value = getattr(import_module(module), name)
    setattr(sys.modules[package], name, value)
    return value


def lazy_exports(package: str, exports: Mapping[str, str]) -> Callable[[str], Any]:
    """The module ``__getattr__`` (PEP 562) of ``package``: each name of ``exports`` loaded
    from its module on first use (``load_export``)."""

    def __getattr__(name: str) -> Any:
        return load_export(package, exports, name)

    return __getattr__
