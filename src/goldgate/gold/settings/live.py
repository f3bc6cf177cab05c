"""Settings of live workflows: the ``model`` target, retries, rate limits and pricing.

Nothing here calls out: these models only say what a run of a live workflow may do (see
docs/live.md); ``goldgate.run.live`` does it.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, field_validator, model_validator

from goldgate.base.errors import TemplateError
from goldgate.base.template import parse_template
from goldgate.base.textsafe import quote
from goldgate.gold.settings.strict import Printable, Strict, check_env_name, check_http_url

RetryOn = Literal["429", "5xx", "timeout", "connect"]
RETRY_ON: tuple[RetryOn, ...] = ("429", "5xx", "timeout", "connect")

DEFAULT_PROMPT = "{/payload/message}"
_HEADER_NAME = r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+"


class RetrySettings(Strict):
    """Retries of one attempt's call, all inside the attempt's --timeout."""

    attempts: Annotated[int, Field(ge=1, le=20)] = Field(
        4, description="Calls in all, the first one included (1: no retry)."
    )
    backoff: Annotated[float, Field(ge=0, le=600)] = Field(
        0.5,
        description="Seconds before the first retry; doubled for each next one, with full "
        "jitter. A Retry-After the server sends is waited instead, when longer.",
    )
    max_backoff: Annotated[float, Field(ge=0, le=3600)] = Field(
        30.0, description="The longest wait between two calls, Retry-After included."
    )
    on: list[RetryOn] = Field(
        default_factory=lambda: list(RETRY_ON),
        description="What is retried: 429 (too many requests), 5xx (a server error), timeout "
        "(no answer in time), connect (no connection). A python target's TransientFailure "
        "is always retried.",
    )

    @field_validator("on", mode="before")
    @classmethod
    def _status_as_text(cls, value: Any) -> Any:
        # YAML reads `on: [429]` as a number: the same thing as "429".
        if isinstance(value, list):
            return ["429" if item == 429 and item is not True else item for item in value]
        return value


class RateLimitSettings(Strict):
    """The account's limits: one bucket for every concurrent attempt of the workflow."""

    requests_per_minute: Annotated[float, Field(gt=0)] | None = Field(
        None, description="Requests sent in any 60 seconds, retries included."
    )
    tokens_per_minute: Annotated[float, Field(gt=0)] | None = Field(
        None, description="Input and output tokens (the answers' /usage) in any 60 seconds."
    )

    @model_validator(mode="after")
    def _one_limit(self) -> RateLimitSettings:
        if self.requests_per_minute is None and self.tokens_per_minute is None:
            raise ValueError("a rate limit needs requests_per_minute, tokens_per_minute or both")
        return self


class PricingSettings(Strict):
    """What the workflow's tokens cost: an attempt's cost comes from its /usage."""

    input_per_million: Annotated[float, Field(ge=0)] = Field(
        description="Price of a million input (prompt) tokens."
    )
    output_per_million: Annotated[float, Field(ge=0)] = Field(
        description="Price of a million output (completion) tokens."
    )
    currency: Printable = Field("USD", description="The prices' currency, as reports show it.")


class ModelSettings(Strict):
    """An OpenAI-compatible chat completions API (OpenAI, Azure OpenAI, vLLM, Ollama,
    LiteLLM): POST {base_url}/chat/completions; or OpenAI's Responses API (api: responses):
    POST {base_url}/responses."""

    base_url: str = Field(description="The API's base URL, e.g. https://api.openai.com/v1.")
    model: Printable = Field(description="The model (an Azure deployment's model name).")
    api: Literal["chat", "responses"] = Field(
        "chat",
        description="chat: the chat completions API; responses: OpenAI's Responses API "
        "(system as instructions, prompt as the input, max_tokens as max_output_tokens, "
        "response_format as text.format).",
    )
    api_key: str | None = Field(
        None,
        description="The environment variable holding the API key; it must be one of the "
        "workflow's credentials. None: no key is sent (a local server).",
    )
    auth_header: str = Field(
        "Authorization",
        description="The header the key travels in: Authorization (as 'Bearer KEY') or, "
        "for Azure OpenAI, api-key (the key alone).",
    )
    api_version: str | None = Field(None, description="Azure OpenAI: the api-version query.")
    system: str | None = Field(
        None, description="The system message: a template, {/pointer} into the case input."
    )
    prompt: str = Field(
        DEFAULT_PROMPT, description="The user message: a template, {/pointer} into the case input."
    )
    temperature: Annotated[float, Field(ge=0, le=2)] | None = None
    max_tokens: Annotated[int, Field(gt=0)] | None = None
    response_format: dict[str, Any] | None = Field(
        None, description="Sent as it is, e.g. {type: json_object}."
    )
    parameters: dict[str, Any] = Field(
        default_factory=dict,
        description="Further fields of the request body (top_p, seed, stop, ...).",
    )

    @field_validator("base_url")
    @classmethod
    def _url(cls, value: str) -> str:
        return check_http_url(value)

    @field_validator("api_key")
    @classmethod
    def _env(cls, value: str | None) -> str | None:
        return None if value is None else check_env_name(value)

    @field_validator("auth_header")
    @classmethod
    def _header(cls, value: str) -> str:
        import re

        if not re.fullmatch(_HEADER_NAME, value):
            raise ValueError(f"{quote(value)} is not a valid header name")
        return value

    @field_validator("system", "prompt")
    @classmethod
    def _template(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                parse_template(value)
            except TemplateError as error:
                raise ValueError(str(error)) from None
        return value

    @field_validator("parameters")
    @classmethod
    def _not_the_basics(cls, value: dict[str, Any]) -> dict[str, Any]:
        taken = sorted(set(value) & {"model", "messages", "input", "instructions", "stream", "n"})
        if taken:
            raise ValueError(
                f"parameters cannot set {quote(taken[0])}: goldgate sets the model and the "
                "messages (input and instructions), and reads one answer, not a stream"
            )
        return value
