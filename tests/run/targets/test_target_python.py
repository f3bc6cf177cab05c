"""Python targets: sync and async callables, failures with safe reasons, deadlines."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import anyio
import pytest

from goldgate.base.errors import InvalidInputError
from goldgate.run.targets import PythonTarget, Target, TargetFailure, TargetRequest

pytestmark = pytest.mark.anyio

FIXTURES = Path(__file__).parent / "fixtures"
SECRET = "s3cr3t-PAYLOAD-value-7731"  # what conftest.request_ carries


def target(attribute: str, max_result_bytes: int = 1 << 20) -> PythonTarget:
    return PythonTarget(f"gg_pytargets:{attribute}", [FIXTURES], max_result_bytes)


def assert_safe(failure: TargetFailure) -> None:
    import gg_pytargets

    for text in (failure.reason, str(failure), repr(failure)):
        assert SECRET not in text
        assert gg_pytargets.SECRET_IN_ERROR not in text


async def test_sync_callable_gets_a_fresh_plain_copy(request_: TargetRequest, secret: str) -> None:
    assert secret == SECRET
    assert SECRET not in repr(request_)
    echo = target("echo")
    assert isinstance(echo, Target)
    response = await echo(request_)
    assert response.document == {
        "execution": {"status": "completed"},
        "payload": {"text": SECRET, "n": 1},
    }
    assert response.stderr is None
    import gg_pytargets

    assert gg_pytargets.SEEN[-1] == {
        "workflow": "triage",
        "flow": "main",
        "step": None,
        "envelope": {"payload": {"text": SECRET, "n": 1}, "metadata": {"case": "c1"}},
    }
    # The returned document is a copy: changing it does not reach what the callable saw.
    response.document["payload"]["n"] = 2
    assert gg_pytargets.SEEN[-1]["envelope"]["payload"]["n"] == 1


async def test_mutating_the_request_does_not_leak_between_calls(request_: TargetRequest) -> None:
    mutate = target("mutate_then_echo")
    first = await mutate(request_)
    second = await mutate(request_)
    assert first.document["seen"] == second.document["seen"] == {"text": SECRET, "n": 1}
    assert request_.envelope["payload"]["text"] == SECRET


@pytest.mark.parametrize(
    ("attribute", "key", "value"),
    [
        ("async_echo", "workflow", "triage"),
        ("async_instance", "kind", "instance"),
        ("returns_awaitable", "workflow", "triage"),
    ],
)
async def test_async_callables_are_awaited(
    request_: TargetRequest, attribute: str, key: str, value: str
) -> None:
    response = await target(attribute)(request_)
    assert response.document[key] == value


@pytest.mark.parametrize(
    ("attribute", "reason"),
    [
        ("raises", "python target raised ValueError"),
        ("async_raises", "python target raised KeyError"),
        ("returns_list", "python target returned a JSON array, not a JSON object"),
        ("returns_none", "python target returned a JSON null, not a JSON object"),
        ("returns_set", "python target returned a value of type set, not a JSON object"),
        (
            "returns_nan",
            "python target returned a result that is not JSON: "
            "it holds a number that is NaN or infinite at /score/1",
        ),
        (
            "returns_int_key",
            "python target returned a result that is not JSON: it holds an object key of type int"
            " at /payload",
        ),
        (
            "returns_object",
            "python target returned a result that is not JSON: it holds a value of type module"
            " at /when",
        ),
    ],
)
async def test_failures_name_the_kind_only(
    request_: TargetRequest, attribute: str, reason: str
) -> None:
    with pytest.raises(TargetFailure) as caught:
        await target(attribute)(request_)
    assert caught.value.reason == reason
    assert str(caught.value) == reason
    assert caught.value.stderr is None
    assert_safe(caught.value)


async def test_result_over_the_limit(request_: TargetRequest) -> None:
    with pytest.raises(TargetFailure) as caught:
        await target("returns_big", max_result_bytes=1000)(request_)
    assert caught.value.reason.startswith("python target returned a result of ")
    assert caught.value.reason.endswith("bytes, over the 1000 limit")
    response = await target("returns_big", max_result_bytes=2100)(request_)
    assert len(response.document["payload"]["text"]) == 2000


async def test_sync_callable_past_the_deadline_is_abandoned(request_: TargetRequest) -> None:
    sleeper = target("sleeps")
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        with anyio.fail_after(0.3):
            await sleeper(request_)
    assert time.monotonic() - started < 1.0


async def test_async_callable_past_the_deadline_is_cancelled(request_: TargetRequest) -> None:
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        with anyio.fail_after(0.3):
            await target("async_sleeps")(request_)
    assert time.monotonic() - started < 1.0


@pytest.mark.parametrize(
    ("import_path", "message"),
    [
        (
            "gg_no_such_module:run",
            "python target 'gg_no_such_module:run' could not be imported: "
            "module 'gg_no_such_module' was not found.",
        ),
        (
            "gg_broken_import:run",
            "python target 'gg_broken_import:run' could not be imported: "
            "importing 'gg_broken_import' raised RuntimeError.",
        ),
        (
            "gg_pytargets:nothing_here",
            "python target 'gg_pytargets:nothing_here' could not be loaded: "
            "'gg_pytargets' has no attribute 'nothing_here'.",
        ),
        (
            "gg_pytargets:not_callable",
            "python target 'gg_pytargets:not_callable' is not callable (its type is int).",
        ),
        (
            "gg_pytargets",
            "python target 'gg_pytargets' is not of the form 'package.module:attribute'.",
        ),
    ],
)
def test_load_errors_are_invalid_input(import_path: str, message: str) -> None:
    broken = PythonTarget(import_path, [FIXTURES])
    with pytest.raises(InvalidInputError) as caught:
        broken.load()
    assert str(caught.value) == message
    assert "SECRET" not in str(caught.value)


def test_load_puts_search_paths_first_and_describe_names_the_import_path() -> None:
    echo = target("echo")
    echo.load()
    assert str(FIXTURES) in sys.path
    assert echo.describe() == {"kind": "python", "python": "gg_pytargets:echo"}


async def test_dotted_attribute_and_aclose(request_: TargetRequest) -> None:
    bound = target("async_instance.__call__")
    response = await bound(request_)
    assert response.document["kind"] == "instance"
    await bound.aclose()


async def test_the_exception_is_kept_for_the_report(request_: TargetRequest) -> None:
    import gg_pytargets

    with pytest.raises(TargetFailure) as caught:
        await PythonTarget("gg_pytargets:raises", [FIXTURES], 1 << 20, FIXTURES)(request_)
    exception = caught.value.exception
    assert exception is not None
    line = gg_pytargets.raises.__code__.co_firstlineno + 1
    assert exception["type"] == "ValueError"
    assert exception["where"] == {"file": "gg_pytargets.py", "line": line, "function": "raises"}
    assert exception["message"].startswith(gg_pytargets.SECRET_IN_ERROR)  # private: the report's
    assert exception["frames"][-1] == exception["where"]
    assert all("goldgate" not in frame["file"] for frame in exception["frames"])
    assert_safe(caught.value)  # the reason still names the type alone


async def test_the_place_is_the_application_s_line_not_the_library_s(
    request_: TargetRequest,
) -> None:
    import gg_pytargets

    with pytest.raises(TargetFailure) as caught:
        await target("parses")(request_)  # no project folder: files by their name
    exception = caught.value.exception
    assert exception is not None
    assert exception["type"] == "json.decoder.JSONDecodeError"
    line = gg_pytargets.parses.__code__.co_firstlineno + 3
    assert exception["where"] == {"file": "gg_pytargets.py", "line": line, "function": "parses"}
    assert exception["frames"][-1]["file"] == "decoder.py"  # the innermost frame is json's
    assert len(exception["frames"]) <= 5
