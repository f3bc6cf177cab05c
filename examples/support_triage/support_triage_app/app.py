"""The python target: ``handle(request) -> result document``.

The request is ``{"workflow", "flow", "step", "envelope": {"payload", "metadata"}}``. A
step-scoped request gets only that step of the flow back, as a real application would run
only that step.
"""

from __future__ import annotations

from typing import Any

from support_triage_app.triage import triage


def handle(request: dict[str, Any]) -> dict[str, Any]:
    envelope = request["envelope"]
    document = triage(envelope.get("payload", {}), envelope.get("metadata", {}))
    flow, step = request.get("flow"), request.get("step")
    if flow is not None and step is not None:
        steps = document["flows"][flow]["steps"]
        document["flows"] = {flow: {"steps": {step: steps[step]}}}
    return document
