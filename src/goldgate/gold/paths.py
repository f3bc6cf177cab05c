"""The public result paths gold may point at, checked against the declared workflow.

Known roots: ``/execution``, ``/payload``, the attempt's own figures ``/attempt/latency_ms``
and ``/attempt/cost`` (``gold.maxima``), ``/flows/{flow}/result``,
``/flows/{flow}/partial_result``, ``/flows/{flow}/steps/{step}/{result|partial_result|
selection|usage}`` and collection children under ``.../result/items/{i}/steps/{step}/...``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from goldgate.base.errors import PointerSyntaxError
from goldgate.base.pointers import parse_pointer
from goldgate.base.textsafe import quote
from goldgate.gold.maxima import ATTEMPT_FIGURES, ATTEMPT_ROOT

if TYPE_CHECKING:  # annotations only: the report builder imports this without the settings
    from goldgate.gold.settings.models import FlowSettings, WorkflowSettings

_STEP_PARTS = ("result", "partial_result", "selection", "usage")
_FLOW_PARTS = ("result", "partial_result", "steps")
_FLOW_CHOICES = ", ".join(_FLOW_PARTS)
_STEP_CHOICES = ", ".join(_STEP_PARTS)
_INDEX = re.compile(r"0|[1-9][0-9]*")


def result_path_problem(pointer: str, workflow: WorkflowSettings | None) -> str | None:
    """Why ``pointer`` is not a public result path of ``workflow``, or None when it is.

    With ``workflow`` None (an undeclared workflow, reported elsewhere) only the shape of
    the path is checked.
    """
    try:
        tokens = parse_pointer(pointer)
    except PointerSyntaxError as error:
        return str(error)
    if not tokens:
        return "the whole result document is not a gold path; point at a known root"
    root = tokens[0]
    if root in ("execution", "payload"):
        return None
    if root == ATTEMPT_ROOT:
        if len(tokens) == 2 and tokens[1] in ATTEMPT_FIGURES:
            return None
        figures = " or ".join(f"/{ATTEMPT_ROOT}/{figure}" for figure in ATTEMPT_FIGURES)
        return f"an attempt's figure is {figures}"
    if root == "steps":
        return "'/steps/...' is a flow-local authoring path; use '/flows/{flow}/steps/{step}/...'"
    if root != "flows":
        return (
            f"unknown result root '/{root}'; gold paths start with /execution, /payload, "
            "/attempt or /flows/{flow}"
        )
    if len(tokens) < 3:
        return "a flow path continues with /result, /partial_result or /steps/{step}/..."
    flow_name, part = tokens[1], tokens[2]
    flow = None
    if workflow is not None:
        flow = workflow.flows.get(flow_name)
        if flow is None:
            return f"flow {quote(flow_name)} is not declared in workflow settings"
    if part not in _FLOW_PARTS:
        return f"'/flows/{flow_name}/{part}' is not a flow path; use one of {_FLOW_CHOICES}"
    if part != "steps":
        return None
    return _step_path_problem(tokens[3:], flow, f"/flows/{flow_name}/steps")


def _step_path_problem(
    tokens: tuple[str, ...],
    flow: FlowSettings | None,
    where: str,
    children: list[str] | None = None,
) -> str | None:
    if len(tokens) < 2:
        return f"a step path continues with /{{step}}/{'|'.join(_STEP_PARTS)}"
    step_name, part = tokens[0], tokens[1]
    collection: list[str] | None = None
    if children is not None:
        if step_name not in children:
            return f"step {quote(step_name)} is not a child step of this collection"
    elif flow is not None:
        step = flow.steps.get(step_name)
        if step is None:
            return f"step {quote(step_name)} is not declared in this flow"
        collection = step.collection
    if part not in _STEP_PARTS:
        return f"'{where}/{step_name}/{part}' is not a step path; use one of {_STEP_CHOICES}"
    rest = tokens[2:]
    if part in ("result", "partial_result") and rest[:1] == ("items",) and children is None:
        if flow is not None and collection is None:
            # An ordinary object that resembles a ledger is business data, not a collection.
            return None
        if len(rest) == 1:
            return None  # the whole ordered ledger
        if not _INDEX.fullmatch(rest[1]):
            return "a collection item index is a nonnegative integer without leading zeros"
        if len(rest) == 2 or rest[2] != "steps" or flow is None or collection is None:
            return None
        return _step_path_problem(
            rest[3:], flow, f"{where}/{step_name}/{part}/items/{rest[1]}/steps", collection
        )
    return None
