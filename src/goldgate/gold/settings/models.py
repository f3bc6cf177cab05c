"""The settings file's models: workflows, their targets, flows and steps, scorers, evaluation.

Unknown keys are refused everywhere, and nothing here imports or calls user code.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import ConfigDict, Field, field_validator, model_validator

from goldgate.base.textsafe import quote
from goldgate.gold.settings.live import (
    ModelSettings,
    PricingSettings,
    RateLimitSettings,
    RetrySettings,
)
from goldgate.gold.settings.strict import IMPORT_PATH as _IMPORT_PATH
from goldgate.gold.settings.strict import NAME as _NAME
from goldgate.gold.settings.strict import Printable, check_env_name, check_http_url
from goldgate.gold.settings.strict import Strict as _Strict

DEFAULT_MAX_RESULT_BYTES = 16 * 1024 * 1024
_SHARED_TARGET_FIELDS = frozenset({"max_result_bytes"})
"""The fields of ``TargetSettings`` that every kind has; all its other fields are kinds."""


def _check_import_path(value: str) -> str:
    if not _IMPORT_PATH.fullmatch(value):
        raise ValueError(
            f"{quote(value)} is not an import path of the form 'package.module:attribute'"
        )
    return value


class EnvHeader(_Strict):
    """A header value read from an environment variable at run time, never stored."""

    env: str = Field(description="Name of the environment variable holding the value.")
    prefix: str = Field("", description="Text put before the value, e.g. 'Bearer '.")

    @field_validator("env")
    @classmethod
    def _env_name(cls, value: str) -> str:
        return check_env_name(value)


class HttpEndpoint(_Strict):
    url: str = Field(description="URL that receives the request as a JSON POST.")
    headers: dict[str, str | EnvHeader] = Field(default_factory=dict)
    proxy: str | None = Field(
        None,
        description="The proxy to send requests through; none unless given (HTTP_PROXY and "
        "the like in the environment are not read).",
    )

    @field_validator("url", "proxy")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        return None if value is None else check_http_url(value)


# Every field of TargetSettings but max_result_bytes is a target kind, its settings as its
# type: a new kind is one more field (`name: NameSettings | None = None`) and its builder in
# goldgate.run.targets.factory.TARGET_KINDS (docs/extending.md). `kind` and the exactly-one
# rule read the fields, so nothing else here names the kinds. (A comment, not the docstring:
# the docstring is the schema's description, committed under schemas/.)
class TargetSettings(_Strict):
    """How goldgate reaches the application: exactly one of python, command, http or model."""

    python: str | None = Field(None, description="An importable callable, 'module:attribute'.")
    command: list[str] | None = Field(
        None, description="argv; the request arrives as JSON on stdin, the result on stdout."
    )
    http: HttpEndpoint | None = None
    model: ModelSettings | None = Field(
        None, description="An OpenAI-compatible chat completions API."
    )
    max_result_bytes: Annotated[int, Field(gt=0)] = Field(
        DEFAULT_MAX_RESULT_BYTES,
        description="A larger result is a runtime failure. An http or model answer is "
        "bounded on the wire and once each Content-Encoding is undone, while it is read.",
    )

    @classmethod
    def kinds(cls) -> tuple[str, ...]:
        """The target kinds, in the order the fields are declared."""
        return tuple(name for name in cls.model_fields if name not in _SHARED_TARGET_FIELDS)

    @field_validator("python")
    @classmethod
    def _python(cls, value: str | None) -> str | None:
        return None if value is None else _check_import_path(value)

    @field_validator("command")
    @classmethod
    def _command(cls, value: list[str] | None) -> list[str] | None:
        if value is not None and (not value or not value[0]):
            raise ValueError("a command target needs a program as its first element")
        return value

    @model_validator(mode="after")
    def _exactly_one(self) -> TargetSettings:
        kinds = self.kinds()
        given = [kind for kind in kinds if getattr(self, kind) is not None]
        if len(given) != 1:
            quoted = [f"'{kind}'" for kind in kinds]
            raise ValueError(
                f"a target needs exactly one of {', '.join(quoted[:-1])} or {quoted[-1]}"
                + (f", found {' and '.join(given)}" if given else "")
            )
        return self

    @property
    def kind(self) -> str:
        """The name of the one kind field that is set (``python``, ``command``, ``http``)."""
        return next(kind for kind in self.kinds() if getattr(self, kind) is not None)

    @property
    def kind_settings(self) -> Any:
        """The settings of the target's kind: the value of its ``kind`` field."""
        return getattr(self, self.kind)


class StepSettings(_Strict):
    collection: list[Printable] | None = Field(
        None, description="Child steps run per item when this step is a flow collection."
    )


class FlowSettings(_Strict):
    steps: dict[Printable, StepSettings] = Field(default_factory=dict)


class WorkflowSettings(_Strict):
    revision: Printable = Field(description="Changes whenever the workflow's behaviour changes.")
    target: TargetSettings
    live: bool = Field(False, description="Makes external calls: runs only with --live.")
    credentials: list[str] = Field(
        default_factory=list, description="Environment variables a live run needs."
    )
    flows: dict[Printable, FlowSettings] = Field(default_factory=dict)
    description: str | None = None
    retry: RetrySettings | None = Field(
        None,
        description="Retries of transient failures (429, 5xx, timeouts, connections). "
        "Unset: a model target retries with the defaults, other targets do not retry.",
    )
    rate_limit: RateLimitSettings | None = Field(
        None, description="The account's limits, kept across every concurrent attempt."
    )
    pricing: PricingSettings | None = Field(
        None, description="Prices per million tokens: each attempt's cost from its /usage."
    )

    @field_validator("credentials")
    @classmethod
    def _credential_names(cls, value: list[str]) -> list[str]:
        for name in value:
            check_env_name(name)
        return value


class ScorerSettings(_Strict):
    import_path: str = Field(alias="import", description="'module:attribute' of the scorer.")
    revision: Printable

    model_config = ConfigDict(populate_by_name=False)

    @field_validator("import_path")
    @classmethod
    def _import(cls, value: str) -> str:
        return _check_import_path(value)


class EvaluationSettings(_Strict):
    dataset: str | None = Field(
        None, description="Literal path relative to this file; never environment-expanded."
    )


class CalibrationSettings(_Strict):
    """The bar a judge must clear before its verdicts decide checks (docs/judges.md)."""

    min_verdicts: Annotated[int, Field(ge=1)] = Field(
        30, description="Human verdicts the calibration record must hold at least."
    )
    min_kappa: Annotated[float, Field(ge=-1, le=1)] = Field(
        0.6,
        description="The least lower bound of the 95% interval of Cohen's kappa between the "
        "judge and the team's recorded verdicts.",
    )


class JudgeSettings(_Strict):
    """A named, versioned reviewer of prose: a model asked through one of these settings'
    workflows whether an answer does what the rubric says (docs/judges.md)."""

    revision: Printable = Field(
        description="Changes whenever the judge's rubric, model or prompt changes; a "
        "calibration record of another revision is stale."
    )
    workflow: Printable = Field(
        description="The workflow that runs the judge (normally a live one with the model "
        "target): it gets the envelope {payload: {rubric, note, input, answer}, metadata: "
        "{judge, revision}} and answers with /payload/answer starting PASS or FAIL."
    )
    rubric: str = Field(description="What a passing answer does.")
    calibration: CalibrationSettings = Field(default_factory=CalibrationSettings)


class Settings(_Strict):
    schema_: str | None = Field(None, alias="$schema")
    workflows: dict[str, WorkflowSettings | str] = Field(
        description="Each workflow inline, or the path (relative to this file) of a YAML file "
        "holding it."
    )
    scorers: dict[str, ScorerSettings] = Field(default_factory=dict)
    python_path: list[str] = Field(
        default_factory=list,
        description="Folders, relative to this file, put on sys.path for python targets.",
    )
    evaluation: EvaluationSettings = Field(default_factory=EvaluationSettings)
    judges: dict[str, JudgeSettings] = Field(
        default_factory=dict,
        description="Judges of prose: a text expectation names one with 'judge'.",
    )

    model_config = ConfigDict(populate_by_name=False)

    @field_validator("workflows", "scorers", "judges")
    @classmethod
    def _names(cls, value: dict[str, Any]) -> dict[str, Any]:
        for name in value:
            if not _NAME.fullmatch(name):
                raise ValueError(
                    f"{quote(name)} is not a valid name (letters, digits, '_', '.', '-')"
                )
        return value
