"""promptfoo providers as goldgate workflows: OpenAI and OpenAI-compatible ones become live
workflows with the ``model`` target (chat completions, or the Responses API where promptfoo
calls it), ``echo`` a model-free python target; others are listed as not translated.

A literal ``apiKey`` is refused: goldgate writes no secret, the team names a variable."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from goldgate.app.promptfoo.source import Provider
from goldgate.base.textsafe import quote

__all__ = ["Workflow", "workflow_of"]

_OPENAI = "https://api.openai.com/v1"
_PARAMETERS = (
    "seed",
    "top_p",
    "stop",
    "frequency_penalty",
    "presence_penalty",
    "logit_bias",
    "user",
    "reasoning_effort",
    "tools",
    "tool_choice",
)
_HANDLED = frozenset(
    {
        "apiBaseUrl",
        "apiHost",
        "apiKeyEnvar",
        "temperature",
        "max_tokens",
        "max_output_tokens",
        "response_format",
        "cost",
        "inputCost",
        "outputCost",
        "apiVersion",
        "deployment_id",
        *_PARAMETERS,
    }
)
_RESPONSES_ONLY = re.compile(
    r"(o1-pro|o3-pro|gpt-5(\.\d+)?-pro|gpt-5\.3-codex|gpt-5-codex-mini)(-|$)"
)
"""Models promptfoo 0.123 knows only as Responses API models (its chat list lacks them)."""
_GPT_VERSION = re.compile(r"gpt-(\d+)(?:\.(\d+))?(?:-|$)")


def _responses_model(model: str) -> bool:
    """Whether promptfoo 0.123 sends ``openai:MODEL`` to the Responses API: GPT 5.6 and
    later (its ``shouldDefaultToOpenAiResponses``), and the models it lists only there."""
    version = _GPT_VERSION.match(model)
    if version is not None and not model.startswith("gpt-35"):
        major, minor = int(version.group(1)), int(version.group(2) or 0)
        if major > 5 or (major == 5 and minor >= 6):
            return True
    return _RESPONSES_ONLY.match(model) is not None


@dataclass(frozen=True)
class Workflow:
    """A provider's workflow settings (the model target's without its templates), or why it
    has none."""

    settings: Mapping[str, Any] | None
    api: str
    lines: tuple[str, ...] = ()
    missing: tuple[str, ...] = field(default=())


def _base_url(config: Mapping[str, Any]) -> str:
    """The API's base URL as promptfoo picks it: ``apiHost`` first, then ``apiBaseUrl``."""
    if isinstance(config.get("apiHost"), str):
        return f"https://{config['apiHost']}/v1"
    if isinstance(config.get("apiBaseUrl"), str):
        return str(config["apiBaseUrl"]).rstrip("/")
    return _OPENAI


def _pricing(config: Mapping[str, Any]) -> dict[str, Any] | None:
    cost = config.get("cost")
    given = config.get("inputCost", cost), config.get("outputCost", cost)
    if not all(isinstance(item, int | float) for item in given):
        return None
    return {"input_per_million": given[0] * 1_000_000, "output_per_million": given[1] * 1_000_000}


def workflow_of(provider: Provider, revision: str) -> Workflow:
    """The workflow ``provider`` becomes (see the module docstring)."""
    config = provider.config
    if "apiKey" in config:
        raise provider.place.problem(
            "holds a literal apiKey; goldgate writes no secret into a project: delete it and "
            "name an environment variable instead (apiKeyEnvar: OPENAI_API_KEY)"
        )
    identity = provider.id
    if identity == "echo":
        target = {"python": "promptfoo_checks:echo"}
        return Workflow(
            {"revision": revision, "target": target},
            "echo",
            ("echo → model-free python target promptfoo_checks:echo",),
        )
    parts = identity.split(":")
    kind = parts[0]
    if kind == "openai" and len(parts) >= 2:
        api = "chat"
        if parts[1] in ("chat", "responses") and len(parts) >= 3:
            api, model = parts[1], ":".join(parts[2:])
        elif parts[1] in (
            "completion",
            "embedding",
            "embeddings",
            "image",
            "realtime",
            "assistant",
            "transcription",
        ):
            return _untranslated(provider, f"{parts[1]} models are not chat models")
        else:
            model = ":".join(parts[1:])
            if _responses_model(model):
                api = "responses"
        base_url = _base_url(config)
        if "@" in base_url.split("//", 1)[-1].split("/", 1)[0]:
            raise provider.place.problem(
                "has a user or password in its apiBaseUrl; goldgate writes no secret into a "
                "project: name an environment variable instead (apiKeyEnvar)"
            )
        credential = str(config.get("apiKeyEnvar") or "OPENAI_API_KEY")
        model_settings: dict[str, Any] = {
            "base_url": base_url,
            "model": model,
            "api_key": credential,
        }
    elif kind == "azure" and len(parts) >= 3 and parts[1] in ("chat", "openai", "responses"):
        host = config.get("apiHost")
        if not isinstance(host, str):
            return _untranslated(provider, "an Azure provider needs config.apiHost")
        deployment = ":".join(parts[2:])
        api = "responses" if parts[1] == "responses" else "chat"
        credential = str(config.get("apiKeyEnvar") or "AZURE_API_KEY")
        model_settings = {
            "base_url": f"https://{host}/openai/deployments/{deployment}",
            "model": deployment,
            "api_key": credential,
            "auth_header": "api-key",
            "api_version": str(config.get("apiVersion") or "2024-10-21"),
        }
    else:
        return _untranslated(provider, f"{quote(kind)} providers have no goldgate target")
    if api == "responses":
        model_settings["api"] = "responses"
    lines = [
        f"{identity} → live workflow, model target "
        f"({'Responses API' if api == 'responses' else 'chat completions'}) at "
        f"{model_settings['base_url']}, key from {credential}"
    ]
    for key in ("temperature", "max_tokens", "response_format"):
        if key in config:
            model_settings[key] = config[key]
    if "max_output_tokens" in config:
        model_settings["max_tokens"] = config["max_output_tokens"]
    parameters = {key: config[key] for key in _PARAMETERS if key in config}
    if parameters:
        model_settings["parameters"] = parameters
    ignored = sorted(key for key in config if key not in _HANDLED)
    missing = [f"config.{key} of {identity} is not translated" for key in ignored]
    workflow: dict[str, Any] = {
        "revision": revision,
        "description": f"promptfoo provider {identity}",
        "live": True,
        "credentials": [credential],
        "target": {"model": model_settings},
    }
    pricing = _pricing(config)
    if pricing is not None:
        workflow["pricing"] = pricing
    return Workflow(workflow, api, tuple(lines), tuple(missing))


_TARGETS = (
    (("python:", "file://"), "a python target (python: module:function) that calls it"),
    (("exec:",), "a command target (command: [program, ...]) that runs it"),
    (("http:", "https:", "http://", "https://"), "an http target (http: {url, headers})"),
)


def _untranslated(provider: Provider, why: str) -> Workflow:
    """A provider goldgate has no target for, and the settings the team writes instead."""
    target = next(
        (words for prefixes, words in _TARGETS if provider.id.startswith(prefixes)),
        "a model target if it speaks OpenAI's API, else a python target that calls its SDK",
    )
    return Workflow(
        None,
        "none",
        missing=(
            f"provider {provider.id} is not translated ({why}): write its workflow in "
            f"config/settings.yaml with {target}, answering "
            "{execution: {status: completed}, payload: {answer}}, and a suite per prompt "
            "naming it (copy one of evaluation/dataset.json's suites)",
        ),
    )
