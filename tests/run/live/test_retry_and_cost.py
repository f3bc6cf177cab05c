"""Retry policies (what is retried, how long to wait) and pricing, pure."""

from __future__ import annotations

import pytest

from goldgate.gold.settings.live import PricingSettings, RetrySettings
from goldgate.run.errors import TransientFailure
from goldgate.run.live.cost import priced, tokens
from goldgate.run.live.retry import MODEL_ATTEMPTS, RetryPolicy


def test_defaults_retry_a_model_target_and_nothing_else_unasked() -> None:
    assert RetryPolicy.of(None, "model").attempts == MODEL_ATTEMPTS
    assert RetryPolicy.of(None, "http").attempts == 1
    assert RetryPolicy.of(None, "python").attempts == 1
    configured = RetryPolicy.of(RetrySettings(attempts=3, on=["429"]), "http")
    assert (configured.attempts, configured.on) == (3, frozenset({"429"}))


def test_what_is_retried() -> None:
    policy = RetryPolicy(attempts=3, on=frozenset({"429", "timeout"}))
    assert policy.retries(TransientFailure("x", kind="429"))
    assert policy.retries(TransientFailure("x", kind="timeout"))
    assert not policy.retries(TransientFailure("x", kind="5xx"))
    assert policy.retries(TransientFailure("a python target's"))  # kind transient: always


def test_backoff_doubles_with_jitter_under_its_cap_and_retry_after_wins_when_longer() -> None:
    policy = RetryPolicy(attempts=10, backoff=1.0, max_backoff=8.0)
    plain = TransientFailure("x", kind="5xx")
    assert [policy.wait(n, plain, 0.0) for n in (1, 2, 3, 4, 5)] == [0.5, 1.0, 2.0, 4.0, 4.0]
    assert [policy.wait(n, plain, 0.999) for n in (1, 2, 5)] == pytest.approx(
        [0.9995, 1.999, 7.996]
    )
    told = TransientFailure("x", kind="429", retry_after=20.0)
    assert policy.wait(1, told, 0.5) == 20.0  # honoured, past max_backoff too
    assert policy.wait(4, TransientFailure("x", kind="429", retry_after=0.1), 0.0) == 4.0


def test_the_yaml_spelling_of_429_is_the_same_as_the_text() -> None:
    assert RetrySettings.model_validate({"on": [429, "5xx"]}).on == ["429", "5xx"]


@pytest.mark.parametrize(
    ("usage", "expected"),
    [
        ({"input_tokens": 1_000, "output_tokens": 500}, (1_000, 500)),
        ({"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}, (7, 3)),
        ({"input_tokens": 4}, (4, 0)),
        ({"input_tokens": True}, None),
        ({"tokens": 9}, None),
        ("12", None),
        (None, None),
    ],
)
def test_token_counts_in_either_spelling(usage: object, expected: object) -> None:
    assert tokens(usage) == expected


def test_cost_per_million_tokens() -> None:
    pricing = PricingSettings(input_per_million=0.15, output_per_million=0.6)
    assert priced({"input_tokens": 2_000, "output_tokens": 1_000}, pricing) == pytest.approx(0.0009)
    assert priced({"other": 1}, pricing) is None
