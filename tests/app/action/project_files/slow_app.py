"""A python target for the container tests: answers at once, or, when the payload asks it to
sleep, first touches ``sleeping`` beside this file (so the test knows the run is under way)
and then sleeps."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any


def handle(request: dict[str, Any]) -> dict[str, Any]:
    seconds = request["envelope"]["payload"]["sleep"]
    if seconds:
        (Path(__file__).parent / "sleeping").touch()
        time.sleep(seconds)
    return {"execution": {"status": "completed"}, "payload": {"done": True}}
