"""Targets: how goldgate reaches the application for one workflow.

Each kind is a module here (``python_target``, ``command_target``, ``http_target``,
``model_target``) with a
``build(kind_settings, context)`` function that ``factory.TARGET_KINDS`` names by import
path: ``build_target`` imports only the module of the kind a workflow uses. A new kind is its
module, one line in ``TARGET_KINDS`` and its settings field in ``gold.settings.models``
(docs/extending.md).

The request contract is the same for all kinds. A target receives one JSON object::

    {
      "workflow": "<workflow name>",
      "flow": "<flow name>" | null,
      "step": "<step name>" | null,
      "envelope": {"payload": {...}, "metadata": {...}}
    }

and returns the result document, a JSON object such as::

    {"execution": {"status": "completed"}, "payload": {...}, "flows": {...}}

- ``python: package.module:attribute`` — the callable gets the request as a plain ``dict``
  (a fresh copy on every call) and returns the result document as a ``dict`` with string
  keys and JSON values (no NaN or infinity). Sync callables run in a daemon thread; coroutine
  functions, and callables returning an awaitable, are awaited.
- ``command: [argv...]`` — run in the project folder, in a process group of its own, with
  the request as UTF-8 JSON on stdin (then closed). It prints the result document as strict
  JSON on stdout and exits 0; logs belong on stderr (the tail is kept). At the deadline the
  whole process group is killed.
- ``http: {url, headers, proxy}`` — ``POST url`` with ``Content-Type: application/json`` and
  the request as the body (httpx, pooled); a 2xx answer's body is the result document.
  Header values may name an environment variable (``{env: NAME, prefix: "Bearer "}``), read
  at each call and never stored. Redirects are not followed; no proxy unless configured.
- ``model: {base_url, model, api_key, ...}`` — an OpenAI-compatible chat completions API:
  messages from the envelope by templates, the answer at ``/payload/answer``, its tokens at
  ``/usage`` (``model_target``).

A 429, 5xx, timeout or failed connection is a ``TransientFailure`` (a ``TargetFailure``),
which a workflow's ``retry`` settings retry (``goldgate.run.live``); a python target may
raise it too.

Every kind fails the attempt with a ``TargetFailure`` (exit 4 for the run) when the target
raises, exits non-zero, answers a non-2xx status, answers something that is not strict JSON
or not an object, or returns more than ``max_result_bytes``. Its ``reason`` is one sentence,
safe for stdout: it never holds the request, the response, header values or secrets.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from goldgate.base.lazy import lazy_exports

_EXPORTS = {
    "Target": "goldgate.run.targets.base",
    "TargetContext": "goldgate.run.targets.base",
    "TargetFailure": "goldgate.run.errors",
    "TargetRequest": "goldgate.run.targets.base",
    "TargetResponse": "goldgate.run.targets.base",
    "CommandTarget": "goldgate.run.targets.command_target",
    "TARGET_KINDS": "goldgate.run.targets.factory",
    "build_target": "goldgate.run.targets.factory",
    "HttpTarget": "goldgate.run.targets.http_target",
    "ModelTarget": "goldgate.run.targets.model_target",
    "TransientFailure": "goldgate.run.errors",
    "PythonTarget": "goldgate.run.targets.python_target",
}

__all__ = [
    "TARGET_KINDS",
    "CommandTarget",
    "HttpTarget",
    "ModelTarget",
    "PythonTarget",
    "Target",
    "TargetContext",
    "TargetFailure",
    "TargetRequest",
    "TargetResponse",
    "TransientFailure",
    "build_target",
]

if TYPE_CHECKING:
    from goldgate.run.errors import TargetFailure, TransientFailure
    from goldgate.run.targets.base import Target, TargetContext, TargetRequest, TargetResponse
    from goldgate.run.targets.command_target import CommandTarget
    from goldgate.run.targets.factory import TARGET_KINDS, build_target
    from goldgate.run.targets.http_target import HttpTarget
    from goldgate.run.targets.model_target import ModelTarget
    from goldgate.run.targets.python_target import PythonTarget


__getattr__ = lazy_exports(__name__, _EXPORTS)
