"""The model target against the fake OpenAI-compatible server: the request it builds, the
result document it makes of the answer, its key kept out of everything it says."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from tests.helpers.fake_openai import FakeOpenAI, serving

from goldgate.base.errors import MissingDependencyError
from goldgate.gold.settings.live import ModelSettings
from goldgate.run.errors import TransientFailure
from goldgate.run.targets import TargetFailure, TargetRequest
from goldgate.run.targets.model_target import ModelTarget, result_document

pytestmark = pytest.mark.anyio

KEY = "sk-MODEL-KEY-SECRET-9931"


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOpenAI]:
    with serving(api_key=KEY) as server:
        yield server


def model(url: str, environ: dict[str, str] | None = None, **settings: Any) -> ModelTarget:
    values = {"base_url": f"{url}/v1", "model": "fake-1", "api_key": "GG_KEY", **settings}
    return ModelTarget(
        ModelSettings.model_validate(values),
        100_000,
        {"GG_KEY": KEY} if environ is None else environ,
        timeout=5.0,
    )


def request(message: str = "Where is my invoice?") -> TargetRequest:
    envelope = {"payload": {"message": message, "lang": "en"}, "metadata": {"tier": 2}}
    return TargetRequest("chat", None, None, envelope)


@pytest.mark.slow
async def test_the_answer_becomes_the_documented_result_document(fake: FakeOpenAI) -> None:
    target = model(
        fake.url,
        system="Answer in {/payload/lang} for tier {/metadata/tier}.",
        temperature=0.0,
        max_tokens=50,
        response_format={"type": "text"},
        parameters={"seed": 7},
    )
    target.load()
    answer = await target(request())
    await target.aclose()

    assert answer.document == {
        "execution": {"status": "completed"},
        "payload": {"answer": "echo: Where is my invoice?", "finish_reason": "stop",
                    "model": "fake-1"},
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }  # fmt: skip
    body = fake.state.bodies[-1]
    assert body == {
        "model": "fake-1",
        "messages": [
            {"role": "system", "content": "Answer in en for tier 2."},
            {"role": "user", "content": "Where is my invoice?"},
        ],
        "temperature": 0.0,
        "max_tokens": 50,
        "response_format": {"type": "text"},
        "seed": 7,
    }
    assert fake.state.headers[-1]["Authorization"] == f"Bearer {KEY}"
    assert KEY not in json.dumps(target.describe())
    assert target.describe()["url"] == f"{fake.url}/v1/chat/completions"


@pytest.mark.slow
async def test_the_responses_api_answers_in_the_same_result_document(fake: FakeOpenAI) -> None:
    target = model(
        fake.url,
        api="responses",
        system="Answer in {/payload/lang}.",
        temperature=0.0,
        max_tokens=50,
        response_format={"type": "json_schema", "json_schema": {"name": "a", "schema": {}}},
        parameters={"seed": 7},
    )
    answer = await target(request())
    assert target.estimate_tokens(request()) == len("Answer in en.Where is my invoice?") // 4 + 50
    await target.aclose()

    assert answer.document == {
        "execution": {"status": "completed"},
        "payload": {
            "answer": "echo: Where is my invoice?",
            "finish_reason": "stop",
            "model": "fake-1",
        },
        "usage": {"input_tokens": 7, "output_tokens": 5},
    }
    assert fake.state.bodies[-1] == {
        "model": "fake-1",
        "instructions": "Answer in en.",
        "input": [{"role": "user", "content": "Where is my invoice?"}],
        "temperature": 0.0,
        "max_output_tokens": 50,
        "text": {"format": {"type": "json_schema", "name": "a", "schema": {}}},
        "seed": 7,
    }
    assert fake.state.log[-1][1] == "/v1/responses"
    assert target.describe()["url"] == f"{fake.url}/v1/responses"


def test_a_responses_answer_without_a_message_fails_and_an_incomplete_one_says_why() -> None:
    from goldgate.run.targets.model_target import responses_document

    with pytest.raises(TargetFailure, match="no output message"):
        responses_document({"output": [{"type": "reasoning"}]})
    incomplete = responses_document(
        {
            "status": "incomplete",
            "incomplete_details": {"reason": "max_output_tokens"},
            "output": [{"type": "message", "content": [{"type": "output_text", "text": "Par"}]}],
        }
    )
    assert incomplete["payload"] == {"answer": "Par", "finish_reason": "max_output_tokens"}


@pytest.mark.slow
async def test_failures_name_kinds_never_the_key(fake: FakeOpenAI) -> None:
    wrong = model(fake.url, environ={"GG_KEY": "sk-wrong-" + KEY[::-1]})
    with pytest.raises(TargetFailure) as caught:
        await wrong(request())
    assert caught.value.reason == "model target answered 401"
    assert not isinstance(caught.value, TransientFailure)

    missing = model(fake.url, environ={})
    with pytest.raises(TargetFailure) as caught:
        await missing(request())
    assert caught.value.reason == (
        "model target needs the environment variable GG_KEY, which is not set"
    )
    broken = model(fake.url, environ={"GG_KEY": KEY + "\nX-Evil: 1"})
    with pytest.raises(TargetFailure) as caught:
        await broken(request())
    assert "is not a valid header value" in caught.value.reason
    absent = model(fake.url, prompt="{/payload/question}")
    with pytest.raises(TargetFailure) as caught:
        await absent(request())
    assert caught.value.reason == (
        "model target: the template's /payload/question is absent from the case input"
    )
    for target in (wrong, missing, broken, absent):
        await target.aclose()


@pytest.mark.slow
async def test_azure_style_key_header_and_api_version(fake: FakeOpenAI) -> None:
    with serving() as open_server:  # no key checked: the header is looked at directly
        target = model(open_server.url, auth_header="api-key", api_version="2024-06-01")
        await target(request())
        await target.aclose()
        headers = open_server.state.headers[-1]
        assert headers["api-key"] == KEY
        assert "Authorization" not in headers
        assert open_server.state.log[-1][1] == "/v1/chat/completions?api-version=2024-06-01"


@pytest.mark.slow
async def test_a_rate_limit_and_an_outage_are_transient_with_their_wait() -> None:
    with serving(rpm=1, window=60.0, faults={503: 3}) as limited:
        target = model(limited.url)
        await target(request())
        with pytest.raises(TransientFailure) as caught:
            await target(request())
        assert (caught.value.kind, caught.value.reason) == (
            "429", "model target answered 429 (too many requests)",
        )  # fmt: skip
        assert caught.value.retry_after is not None
        assert 50 < caught.value.retry_after <= 60
        await target.aclose()


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ({"choices": []}, "model target answer has no choices, not a chat completion"),
        ({"choices": [{"text": "x"}]}, "model target answer has no message, not a chat completion"),
        ({"choices": [{"message": {"content": 3}}]},
         "model target answer has a content that is a JSON number, not a chat completion"),
    ],
)  # fmt: skip
def test_answers_that_are_not_chat_completions(answer: dict[str, Any], reason: str) -> None:
    with pytest.raises(TargetFailure) as caught:
        result_document(answer)
    assert caught.value.reason == reason


def test_a_refusal_and_a_null_content_are_kept() -> None:
    document = result_document(
        {"choices": [{"message": {"content": None, "refusal": "no"}, "finish_reason": "stop"}]}
    )
    assert document["payload"] == {"answer": None, "finish_reason": "stop", "refusal": "no"}
    assert "usage" not in document


def test_without_httpx_the_target_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(__import__("sys").modules, "httpx", None)
    with pytest.raises(MissingDependencyError) as caught:
        model("http://127.0.0.1:9").load()
    assert caught.value.exit_code == 3
    assert str(caught.value) == (
        "the model target needs httpx, which is not installed: pip install 'httpx>=0.27'"
    )
