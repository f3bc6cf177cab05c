"""benchmarks/run.py imported as a module (benchmarks/ is no package), for tests that make
the benchmarks' workloads or start goldgate as the benchmarks do. Each call imports it anew:
a test may set its ``WORK`` folder without reaching another test's copy."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks" / "run.py"


def load_benchmarks() -> ModuleType:
    spec = importlib.util.spec_from_file_location("goldgate_benchmarks", BENCHMARKS)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
