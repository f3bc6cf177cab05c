"""A model target: an OpenAI-compatible chat completions API (OpenAI, Azure OpenAI, vLLM,
Ollama, LiteLLM proxies and the like), or OpenAI's Responses API (``api: responses``), reached
over httpx (``_exchange``), without an SDK.

With ``api: responses`` each attempt POSTs ``{base_url}/responses`` with the system template
as ``instructions``, the prompt as the user's ``input``, ``max_tokens`` as
``max_output_tokens`` and ``response_format`` as ``text.format``; the answer is the text of
its output messages, ``finish_reason`` its status (``stop`` when completed, else the reason it
is incomplete), and the result document has the same shape as below.

Each attempt POSTs ``{base_url}/chat/completions`` with the model, the messages its
templates build from the case envelope (``system``, then ``prompt`` as the user's message;
``{/pointer}`` placeholders, ``goldgate.base.template``), and the configured parameters. The
answer becomes a result document of this shape (docs/live.md, "The model target")::

    {"execution": {"status": "completed"},
     "payload": {"answer": "<choices[0].message.content>", "finish_reason": "stop",
                 "model": "<the model that answered>"},
     "usage": {"input_tokens": 12, "output_tokens": 34}}

The API key is read from its environment variable (one of the workflow's credentials) at
each call and never appears in a reason, ``describe()`` or the report.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import orjson

from goldgate.base.errors import TemplateError
from goldgate.base.jsonvalue import json_type_name
from goldgate.base.template import Template, parse_template
from goldgate.base.textsafe import redact_url
from goldgate.gold.settings.live import ModelSettings
from goldgate.gold.settings.models import DEFAULT_MAX_RESULT_BYTES
from goldgate.run.errors import TargetFailure
from goldgate.run.limits import DEFAULT_TIMEOUT
from goldgate.run.targets._documents import document_from_bytes
from goldgate.run.targets._exchange import Exchange, import_httpx
from goldgate.run.targets.base import TargetContext, TargetRequest, TargetResponse

DEFAULT_MODEL_TIMEOUT = DEFAULT_TIMEOUT
_WHO = "model target"


class ModelTarget:
    """Asks a chat completions API for one answer per attempt (see the module docstring)."""

    def __init__(
        self,
        settings: ModelSettings,
        max_result_bytes: int = DEFAULT_MAX_RESULT_BYTES,
        environ: Mapping[str, str] = os.environ,
        *,
        timeout: float = DEFAULT_MODEL_TIMEOUT,
    ) -> None:
        self.settings = settings
        self.environ = environ
        query = f"?api-version={settings.api_version}" if settings.api_version else ""
        path = "/responses" if settings.api == "responses" else "/chat/completions"
        self.url = settings.base_url.rstrip("/") + path + query
        self._system: Template | None = (
            None if settings.system is None else parse_template(settings.system)
        )
        self._prompt = parse_template(settings.prompt)
        responses = settings.api == "responses"
        self._parameters: dict[str, Any] = {
            key: value
            for key, value in (
                ("temperature", settings.temperature),
                ("max_output_tokens" if responses else "max_tokens", settings.max_tokens),
                (
                    "text" if responses else "response_format",
                    _text_format(settings.response_format)
                    if responses
                    else settings.response_format,
                ),
            )
            if value is not None
        }
        self._parameters.update(settings.parameters)
        self._exchange = Exchange(_WHO, timeout=timeout, max_bytes=max_result_bytes, proxy=None)

    def load(self) -> None:
        """httpx imported now: exit 3 naming the install command when it is missing."""
        import_httpx(_WHO)

    def describe(self) -> dict[str, Any]:
        """What identifies the model's answers: the endpoint (without user information or
        query values), the model, the templates and the parameters; never the key."""
        return {
            "kind": "model",
            "url": redact_url(self.url),
            "model": self.settings.model,
            "system": self.settings.system,
            "prompt": self.settings.prompt,
            "parameters": self._parameters,
        }

    def cache_identity(self) -> dict[str, Any]:
        """What decides an answer, for the response cache's key (only hashed, never stored
        or shown): the URL as POSTed (``api_version`` included) and every setting
        (the model, templates, parameters, the names of the key's variable and header; never
        the key)."""
        return {"kind": "model", "url": self.url, "settings": self.settings.model_dump(mode="json")}

    async def aclose(self) -> None:
        await self._exchange.aclose()

    def estimate_tokens(self, request: TargetRequest) -> int:
        """Tokens a call is expected to use, which the rate limiter pays for before sending
        it: the messages at about four characters a token, plus ``max_tokens`` (else as many
        again); the answer's usage settles the difference."""
        body = self.body(request)
        texts = [body.get("instructions") or ""]
        texts += [message["content"] for message in body.get("messages", body.get("input", []))]
        prompt = sum(len(text) for text in texts) // 4
        return prompt + (self.settings.max_tokens or prompt)

    def body(self, request: TargetRequest) -> dict[str, Any]:
        """The chat completions (or Responses API) request for one attempt."""
        envelope = request.envelope
        messages = []
        try:
            system = None if self._system is None else self._system.fill(envelope)
            user = {"role": "user", "content": self._prompt.fill(envelope)}
        except TemplateError as error:
            reason = f"{_WHO}: {error}"
        else:
            if self.settings.api == "responses":
                instructions = {} if system is None else {"instructions": system}
                return {
                    "model": self.settings.model,
                    **instructions,
                    "input": [user],
                    **self._parameters,
                }
            if system is not None:
                messages.append({"role": "system", "content": system})
            messages.append(user)
            return {"model": self.settings.model, "messages": messages, **self._parameters}
        raise TargetFailure(reason)

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        variable = self.settings.api_key
        if variable is None:
            return headers
        key = self.environ.get(variable)
        if not key:
            raise TargetFailure(
                f"{_WHO} needs the environment variable {variable}, which is not set"
            )
        if any(ord(char) < 0x20 or ord(char) == 0x7F for char in key) or not key.isascii():
            raise TargetFailure(
                f"{_WHO}'s API key in the environment variable {variable} is not a valid "
                "header value"
            )
        bearer = self.settings.auth_header.lower() == "authorization"
        headers[self.settings.auth_header] = f"Bearer {key}" if bearer else key
        return headers

    async def __call__(self, request: TargetRequest) -> TargetResponse:
        headers = self._headers()
        body = orjson.dumps(self.body(request))
        data, rates = await self._exchange.post(self.url, body, headers)
        answer = document_from_bytes(data, origin=f"{_WHO} answer")
        if self.settings.api == "responses":
            return TargetResponse(responses_document(answer), headers=rates or None)
        return TargetResponse(result_document(answer), headers=rates or None)


def result_document(answer: Mapping[str, Any]) -> dict[str, Any]:
    """The result document of a chat completion (see the module docstring); a
    ``TargetFailure`` naming what is missing when the answer has no message."""
    choices = answer.get("choices")
    first = choices[0] if isinstance(choices, list) and choices else None
    message = first.get("message") if isinstance(first, dict) else None
    content = message.get("content", None) if isinstance(message, dict) else None
    if not isinstance(message, dict) or not (content is None or isinstance(content, str)):
        found = "no choices" if first is None else "no message"
        if isinstance(message, dict):
            found = f"a content that is a JSON {json_type_name(content)}"
        raise TargetFailure(f"{_WHO} answer has {found}, not a chat completion")
    payload: dict[str, Any] = {"answer": content}
    if isinstance(first, dict) and isinstance(first.get("finish_reason"), str):
        payload["finish_reason"] = first["finish_reason"]
    if isinstance(message.get("refusal"), str):
        payload["refusal"] = message["refusal"]
    if isinstance(answer.get("model"), str):
        payload["model"] = answer["model"]
    document: dict[str, Any] = {"execution": {"status": "completed"}, "payload": payload}
    usage = _usage(answer.get("usage"))
    if usage is not None:
        document["usage"] = usage
    return document


def _text_format(response_format: dict[str, Any] | None) -> dict[str, Any] | None:
    """A chat completions ``response_format`` as the Responses API's ``text`` parameter
    (``json_schema``'s name, schema and strictness moved up, as the API takes them)."""
    if response_format is None:
        return None
    if response_format.get("type") == "json_schema" and isinstance(
        response_format.get("json_schema"), dict
    ):
        return {"format": {"type": "json_schema", **response_format["json_schema"]}}
    return {"format": response_format}


def responses_document(answer: Mapping[str, Any]) -> dict[str, Any]:
    """The result document of a Responses API answer (see the module docstring); a
    ``TargetFailure`` when it holds no output message."""
    output = answer.get("output")
    messages = (
        [item for item in output if isinstance(item, dict) and item.get("type") == "message"]
        if isinstance(output, list)
        else []
    )
    if not messages:
        raise TargetFailure(f"{_WHO} answer has no output message, not a Responses API answer")
    texts: list[str] = []
    refusal = None
    for message in messages:
        for part in message.get("content") or []:
            if isinstance(part, dict) and part.get("type") == "output_text":
                text = part.get("text")
                texts.append(text if isinstance(text, str) else "")
            elif isinstance(part, dict) and isinstance(part.get("refusal"), str):
                refusal = part["refusal"]
    payload: dict[str, Any] = {"answer": "".join(texts) if texts else None}
    status = answer.get("status")
    details = answer.get("incomplete_details")
    if status == "completed":
        payload["finish_reason"] = "stop"
    elif isinstance(details, dict) and isinstance(details.get("reason"), str):
        payload["finish_reason"] = details["reason"]
    if refusal is not None:
        payload["refusal"] = refusal
    if isinstance(answer.get("model"), str):
        payload["model"] = answer["model"]
    document: dict[str, Any] = {"execution": {"status": "completed"}, "payload": payload}
    usage = _usage(answer.get("usage"), ("input_tokens", "output_tokens"))
    if usage is not None:
        document["usage"] = usage
    return document


def _usage(
    usage: Any, keys: tuple[str, str] = ("prompt_tokens", "completion_tokens")
) -> dict[str, Any] | None:
    if not isinstance(usage, dict):
        return None
    # Every figure the provider gave, counts or not: pricing refuses one that is not a count
    # (``live.cost``) rather than price the attempt as if it had not been given.
    found = {
        name: usage[key]
        for name, key in zip(("input_tokens", "output_tokens"), keys, strict=True)
        if usage.get(key) is not None
    }
    return found or None


def build(settings: ModelSettings, context: TargetContext) -> ModelTarget:
    """The model target of ``model: {base_url, model, ...}`` (``factory.TARGET_KINDS``)."""
    timeout = DEFAULT_MODEL_TIMEOUT if context.http_timeout is None else context.http_timeout
    return ModelTarget(settings, context.max_result_bytes, context.environ, timeout=timeout)
