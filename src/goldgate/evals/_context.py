"""What an eval works with, as EZVals (0.2.0) has it: ``EvalContext`` (the mutable builder of
a result), ``EvalResult`` (a result: what an eval may return and what evaluators read) and
``TraceData`` (debug data, a dict with attribute access).

``ctx.store(...)`` sets every argument that is not ``None``: ``metadata`` and ``trace_data``
merge, ``messages`` and ``trace_url`` go into ``trace_data``, and a score whose key is already
there replaces it. ``build()`` turns the context into an ``EvalResult``; a context that holds
no score and no error gets the passing score of its default key then. Scores follow
``goldgate.evals._scores``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict

from goldgate.evals._scores import DEFAULT_KEY, normalize_scores

__all__ = ["EvalCase", "EvalContext", "EvalResult", "TraceData"]


class EvalCase(TypedDict, total=False):
    """An item of ``@eval(cases=[...])`` (or of what an ``input_loader`` returns), for type
    checking: its fields override the eval's for that case. goldgate adds seed 004's
    ``expect``."""

    id: str | int
    input: Any
    reference: Any
    metadata: dict[str, Any] | None
    dataset: str
    labels: list[str] | None
    default_score_key: str | None
    timeout: float | None
    target: Callable[..., Any] | None
    evaluators: list[Callable[..., Any]] | None
    trials: int | None
    expect: Any


class TraceData(dict[str, Any]):
    """Trace and debug data: a dict whose keys also read and write as attributes;
    ``messages`` (a list, ``[]`` until set) and ``trace_url`` are always readable."""

    def __getattr__(self, key: str) -> Any:
        if key == "messages":
            return self.setdefault("messages", [])
        if key == "trace_url":
            return self.get("trace_url")
        try:
            return self[key]
        except KeyError:
            raise AttributeError(key) from None

    def __setattr__(self, key: str, value: Any) -> None:
        self[key] = list(value) if key == "messages" else value

    def add_messages(self, messages: list[Any]) -> TraceData:
        """Replace the messages (it does not append)."""
        self["messages"] = list(messages)
        return self


@dataclass
class EvalResult:
    """One result: what an eval returns (alone or in a list) and what an evaluator reads.
    ``scores`` may be given in any form ``store`` takes; scores without a key get ``pass``."""

    input: Any
    output: Any
    reference: Any = None
    scores: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    latency: float | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    trace_data: TraceData = field(default_factory=TraceData)

    def __post_init__(self) -> None:
        self.scores = normalize_scores(self.scores, DEFAULT_KEY)
        self.metadata = self.metadata or {}
        self.trace_data = TraceData(self.trace_data or {})


def _run_field(name: str) -> Any:
    """A property of ``EvalContext`` reading EZVals' run field ``name``: ``None`` in
    goldgate's runs, which have no sessions and are named by their report files."""
    return property(lambda self: self._run.get(name), doc=f"EZVals' {name}, or None.")


class EvalContext:
    """The mutable builder of one result, given to the parameter of an eval annotated
    ``EvalContext``: its ``input``, ``reference`` and ``metadata`` come from the eval and its
    case; set ``output`` (or ``store(output=...)``) and add scores with ``store(scores=...)``.
    A failing ``assert`` stores a failing score of the default key with the assertion's
    message as notes. Usable as a context manager (``with EvalContext(...) as ctx``)."""

    def __init__(
        self,
        input: Any = None,
        output: Any = None,
        reference: Any = None,
        default_score_key: str | None = DEFAULT_KEY,
        metadata: dict[str, Any] | None = None,
        trace_data: dict[str, Any] | None = None,
        latency: float | None = None,
        function_name: str | None = None,
        dataset: str | None = None,
        labels: list[str] | None = None,
        **run_info: Any,
    ) -> None:
        self.input = input
        self.output = output
        self.reference = reference
        self.default_score_key = default_score_key
        self.metadata: dict[str, Any] = dict(metadata or {})
        self.trace_data = TraceData(trace_data or {})
        self.latency = latency
        self.scores: list[dict[str, Any]] = []
        self.error: str | None = None
        self.function_name = function_name
        self.dataset = dataset
        self.labels = labels
        self._run = run_info

    def store(
        self,
        input: Any = None,
        output: Any = None,
        reference: Any = None,
        latency: float | None = None,
        scores: Any = None,
        messages: list[Any] | None = None,
        trace_url: str | None = None,
        metadata: dict[str, Any] | None = None,
        trace_data: dict[str, Any] | None = None,
    ) -> EvalContext:
        """Set every field given (not ``None``). Scores with a key already stored replace
        it; ``metadata`` and ``trace_data`` merge."""
        if input is not None:
            self.input = input
        if output is not None:
            self.output = output
        if reference is not None:
            self.reference = reference
        if latency is not None:
            self.latency = latency
        if trace_data is not None:
            self.trace_data.update(trace_data)
        if messages is not None:
            self.trace_data.messages = messages
        if trace_url is not None:
            self.trace_data.trace_url = trace_url
        if metadata is not None:
            self.metadata.update(metadata)
        for score in normalize_scores(scores, self.default_score_key):
            stored = self.scores
            for position, existing in enumerate(stored):
                if existing["key"] == score["key"]:
                    stored[position] = score
                    break
            else:
                stored.append(score)
        return self

    def build(self) -> EvalResult:
        """The result: what was stored, or the passing score of the default key when no
        score and no error was."""
        scores = self.scores or (
            [] if self.error else [{"key": self.default_score_key or DEFAULT_KEY, "passed": True}]
        )
        # Built without __post_init__: what store() kept is normalized already, and this
        # runs once per attempt. The result shares the context's trace data.
        result = object.__new__(EvalResult)
        vars(result).update(
            input=self.input,
            output=self.output,
            reference=self.reference,
            scores=list(scores),
            error=self.error,
            latency=self.latency,
            metadata=self.metadata or {},
            trace_data=self.trace_data,
        )
        return result

    def build_with_error(self, error: str) -> EvalResult:
        self.error = error
        return self.build()

    def __enter__(self) -> EvalContext:
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        return False

    run_id = _run_field("run_id")
    session_name = _run_field("session_name")
    run_name = _run_field("run_name")
    eval_path = _run_field("eval_path")

    @property
    def config(self) -> dict[str, Any]:
        """EZVals' run config (``--config``); ``{}`` in goldgate, which has none."""
        config: dict[str, Any] = self._run.get("config") or {}
        return config

    def __repr__(self) -> str:
        return f"EvalContext(function_name={self.function_name!r}, scores={len(self.scores)})"
