"""Live settings: the model target, retry, rate_limit and pricing as settings.yaml spells
them, refused at their place when wrong, and left out of the configuration digest while
unset (so a configuration that does not use them keeps its revision)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from goldgate.gold.errors import SettingsError
from goldgate.gold.settings.load import load_settings, secret_variables

LIVE = """\
workflows:
  chat:
    revision: r1
    live: true
    credentials: [OPENAI_API_KEY]
    target:
      model:
        base_url: https://api.example.invalid/v1
        model: gpt-test
        api_key: OPENAI_API_KEY
        prompt: "Route: {/payload/message}"
    retry: {attempts: 3, backoff: 1, on: [429, 5xx]}
    rate_limit: {requests_per_minute: 500}
    pricing: {input_per_million: 0.15, output_per_million: 0.6}
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config" / "settings.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")
    return path


def test_the_live_settings_load_with_yaml_s_on_as_a_word(tmp_path: Path) -> None:
    loaded = load_settings(write(tmp_path, LIVE))
    workflow = loaded.workflows["chat"]
    assert workflow.target.kind == "model"
    assert workflow.retry is not None
    assert workflow.retry.on == ["429", "5xx"]  # `on:` is no boolean key here
    assert workflow.rate_limit is not None
    assert workflow.rate_limit.requests_per_minute == 500
    assert workflow.pricing is not None
    assert workflow.pricing.currency == "USD"
    assert secret_variables(loaded.workflows.values()) == ["OPENAI_API_KEY"]


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("    credentials: [OPENAI_API_KEY]\n", "",
         "settings.yaml:9:9: the API key's variable OPENAI_API_KEY must be one of the "
         "workflow's credentials, so that a run without it stops before anything runs (at "
         "/workflows/chat/target/model/api_key)"),
        ('"Route: {/payload/message}"', '"Route: {payload}"',
         "the placeholder at character 8 is not a JSON pointer"),
        ("rate_limit: {requests_per_minute: 500}", "rate_limit: {}",
         "a rate limit needs requests_per_minute, tokens_per_minute or both"),
        ("on: [429, 5xx]", "on: [418]",
         'must be one of "429", "5xx", "timeout" or "connect", found 418 (at '
         "/workflows/chat/retry/on/0)"),
        ("attempts: 3", "attempts: 0",
         "must be at least 1, found 0 (at /workflows/chat/retry/attempts)"),
        ("model: gpt-test", "model: gpt-test\n        parameters: {messages: []}",
         'parameters cannot set "messages"'),
        ("https://api.example.invalid/v1", "ftp://x", "is not an http:// or https:// URL"),
    ],
)  # fmt: skip
def test_wrong_live_settings_are_refused_at_their_place(
    tmp_path: Path, old: str, new: str, message: str
) -> None:
    assert old in LIVE
    with pytest.raises(SettingsError) as caught:
        load_settings(write(tmp_path, LIVE.replace(old, new)))
    assert message in str(caught.value)


def test_unset_live_settings_leave_the_digest_as_it_was(tmp_path: Path) -> None:
    plain = "workflows:\n  app:\n    revision: r1\n    target: {python: 'app:handle'}\n"
    # The digest of this configuration before the live settings existed.
    before = (
        "sha256:"
        + __import__("hashlib")
        .sha256(
            b'{"python_path":[],"scorers":{},"workflows":{"app":{"credentials":[],"description":'
            b'null,"flows":{},"live":false,"revision":"r1","target":{"command":null,"http":null,'
            b'"max_result_bytes":16777216,"python":"app:handle"}}}}'
        )
        .hexdigest()
    )
    assert load_settings(write(tmp_path, plain)).configuration_digest == before
    retried = plain + "    retry: {attempts: 2}\n"
    assert load_settings(write(tmp_path, retried)).configuration_digest != before


@pytest.mark.parametrize(
    ("old", "new", "pointer"),
    [
        ("requests_per_minute: 500", "requests_per_minute: .inf",
         "/workflows/chat/rate_limit/requests_per_minute"),
        ("requests_per_minute: 500", "requests_per_minute: 500, tokens_per_minute: .NaN",
         "/workflows/chat/rate_limit/tokens_per_minute"),
        ("input_per_million: 0.15", "input_per_million: .inf",
         "/workflows/chat/pricing/input_per_million"),
        ("output_per_million: 0.6", "output_per_million: .nan",
         "/workflows/chat/pricing/output_per_million"),
        ("output_per_million: 0.6", "output_per_million: -.inf",
         "/workflows/chat/pricing/output_per_million"),
    ],
)  # fmt: skip
def test_infinite_or_nan_prices_and_limits_are_refused_by_validate_and_check(
    gold_project: Any, run_cli: Any, old: str, new: str, pointer: str
) -> None:
    gold_project.settings = LIVE.replace(old, new)
    assert gold_project.settings != LIVE
    gold_project.write()

    for args in (("validate",), ("evaluate", "--check")):
        result = run_cli(*args, cwd=gold_project.root)

        assert result.code == 2, (args, result.output)
        [line] = [line for line in result.output.splitlines() if pointer in line]
        assert line.startswith("config/settings.yaml:")
        assert "must be a finite number, found " in line
        assert "Traceback" not in result.output


def test_the_model_target_s_api_left_as_chat_keeps_the_digest(tmp_path: Path) -> None:
    """``api`` came after model targets had digests: its unset value (chat) is left out, so a
    model workflow's revision, and the replay of its earlier reports, is what it was."""
    model = (
        "workflows:\n  judge:\n    revision: r1\n    live: true\n"
        "    credentials: [OPENAI_API_KEY]\n    target:\n      model:\n"
        "        base_url: https://api.openai.com/v1\n        model: gpt-4o-mini\n"
        "        api_key: OPENAI_API_KEY\n        prompt: '{/payload/answer}'\n"
    )
    unset = load_settings(write(tmp_path, model)).configuration_digest
    # What goldgate gave this configuration before the model target had ``api`` (b6ada9a).
    assert unset == "sha256:29250f104a282f0052a8bb9628c85b6744fb79535a9f37cb36da15f25f2ebcf2"
    chat = model + "        api: chat\n"
    responses = model + "        api: responses\n"
    assert load_settings(write(tmp_path, chat)).configuration_digest == unset
    assert load_settings(write(tmp_path, responses)).configuration_digest != unset
