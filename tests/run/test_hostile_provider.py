"""A provider cannot stall or crash a run: through the real console script, against a
provider on loopback (tests/helpers/hostile_provider.py) that asks for absurd waits and
answers compression bombs.

What holds: every wait a provider can ask for (``Retry-After`` in seconds or as an HTTP
date, ``retry-after-ms``, ``x-ratelimit-reset-*``, a learned limit of 0.0001 requests a
minute, negative, huge and NaN values) fails the attempt it cannot fit into, at once, and
holds no later attempt past its own deadline: the run ends within the bound ``--help``
states (ceil(N / C) x T per suite, plus starting and writing the report). A few kilobytes
that inflate to 1.5 GiB (gzip, nested gzip, gzip then deflate) fail their attempt with one
sentence in a process whose address space is capped far below that, and a small gzip answer
is still read."""

from __future__ import annotations

import math
import re
import resource
import subprocess
from pathlib import Path
from typing import Any

import pytest
from tests.helpers.hostile_provider import HostileServer, hostile_provider

from .support import GOLDGATE, Project, cli_env, new_project, read_report_json

pytestmark = pytest.mark.slow  # a server and the console script

TIMEOUT = 2.0
CONCURRENCY = 2


def case(n: int, **payload: Any) -> dict[str, Any]:
    message = f"m{n}"
    return {
        "id": f"c{n}",
        "input": {"payload": {"message": message, **payload}, "metadata": {}},
        "expectations": [{"name": "answer", "path": "/payload/answer", "expected": message}],
    }


def workflow(url: str, revision: str) -> dict[str, Any]:
    return {
        "revision": revision,
        "target": {"http": {"url": url}},
        "retry": {"attempts": 3, "backoff": 0.01, "max_backoff": 0.05},
    }


@pytest.fixture
def provider() -> Any:
    with hostile_provider() as server:
        yield server


ABSURD: dict[str, dict[str, Any]] = {
    # A 429 asks every attempt to hold: the later attempts of the workflow fail at once.
    "retry_after_years": {"status": 429, "headers": {"Retry-After": "99999999999"}},
    "retry_after_ms": {"status": 429, "headers": {"retry-after-ms": "1e300"}},
    "retry_after_date": {"status": 503,
                         "headers": {"Retry-After": "Fri, 31 Dec 9999 23:59:59 GMT"}},
    "retry_after_nan": {"status": 429, "headers": {"Retry-After": "nan", "retry-after-ms": "-5"}},
    "retry_after_overflow": {"status": 429, "headers": {"Retry-After": "1" + "0" * 400}},
    "learned_limit": {"headers": {"x-ratelimit-limit-requests": "0.0001"}},
    "reset_requests": {"headers": {"x-ratelimit-remaining-requests": "0",
                                   "x-ratelimit-reset-requests": "6m0s"}},
    "reset_tokens": {"headers": {"x-ratelimit-remaining-tokens": "0",
                                 "x-ratelimit-reset-tokens": "99999h59m1.5s"}},
}  # fmt: skip


def absurd_project(root: Path, url: str) -> Project:
    """One workflow (so one rate limiter) and suite per absurd answer: the absurd case, then
    three ordinary ones (answered in 0.5 s) that its wait must not hold past their deadlines.
    At concurrency 2, case 3 starts once case 0 or 1 is done: after the absurd answer."""
    project = new_project(root)
    project.workflows = {name: workflow(url, f"{name}-1") for name in ABSURD}
    for name, payload in ABSURD.items():
        cases = [case(0, **payload), *(case(n, delay=0.5) for n in (1, 2, 3))]
        project.suite(name, name, cases)
    return project.write()


def test_absurd_waits_fail_their_attempts_at_once_and_the_run_ends_within_its_bound(
    tmp_path: Path, provider: HostileServer
) -> None:
    project = absurd_project(tmp_path / "p", provider.url)
    output = project.output()

    run = project.run(
        "--output", str(output), "--timeout", str(TIMEOUT),
        "--max-concurrency", str(CONCURRENCY), timeout=120,
    )  # fmt: skip

    assert run.code == 4, run.output
    assert "Traceback" not in run.output
    report = read_report_json(output)
    bound = sum(
        math.ceil(len(suite["cases"]) / CONCURRENCY) * TIMEOUT for suite in report["suites"]
    )
    assert report["duration_seconds"] <= bound
    for suite in report["suites"]:
        statuses = [case["attempts"][0]["status"] for case in suite["cases"]]
        assert "timed_out" not in statuses, (suite["name"], statuses)
        assert statuses[0] in ("failed", "completed"), suite["name"]
        for case_record in suite["cases"]:
            attempt = case_record["attempts"][0]
            if attempt["status"] == "failed":
                reason = attempt["reason"]
                assert "\n" not in reason, reason
                assert reason.count(". ") == 0, reason
    by_name = {suite["name"]: suite for suite in report["suites"]}
    for name in ("retry_after_years", "retry_after_ms", "retry_after_overflow"):
        first = by_name[name]["cases"][0]["attempts"][0]
        assert first["reason"] == (
            "http target answered 429 (too many requests); a retry's wait would pass the "
            "attempt's deadline"
        )
    # A 429's hold and a learned limit: an attempt that starts once the answer that asked
    # for the wait is in (case 3 does) fails at once, naming the wait.
    for name in ("retry_after_years", "retry_after_ms", "retry_after_overflow",
                 "learned_limit", "reset_requests", "reset_tokens"):  # fmt: skip
        [*_, last] = by_name[name]["cases"]
        assert re.fullmatch(
            r"the workflow's rate limit holds its next request (for \S+ s|indefinitely), "
            r"past the attempt's deadline",
            last["attempts"][0]["reason"],
        ), name
    # A 503's wait holds no other attempt; an answer that asks for no real wait (NaN, a
    # negative number) is retried on the policy's own backoff.
    date = [c["attempts"][0] for c in by_name["retry_after_date"]["cases"]]
    assert date[0]["reason"] == (
        "http target answered 503; a retry's wait would pass the attempt's deadline"
    )
    assert [a["status"] for a in date[1:]] == ["completed"] * 3
    nan = [c["attempts"][0] for c in by_name["retry_after_nan"]["cases"]]
    assert nan[0]["reason"] == "http target answered 429 (too many requests) (after 2 retries)"
    assert [a["status"] for a in nan[1:]] == ["completed"] * 3


def bomb_project(root: Path, url: str) -> Project:
    project = new_project(root)
    project.workflows = {"bombs": workflow(url, "bombs-1")}
    cases = [
        case(0, bomb="gzip, gzip"),  # 4 KB on the wire
        case(1, bomb="gzip"),  # 1.6 MB on the wire
        case(2, bomb="gzip, deflate"),
        case(3, bomb="gzip, gzip, gzip"),
        case(4, encoding="gzip, gzip"),  # a small answer, encoded twice: read
        case(5, encoding="br"),  # a coding goldgate does not undo: refused
        case(6),
    ]
    return project.suite("bombs", "bombs", cases).write()


ADDRESS_SPACE = 768 << 20
"""What the goldgate process may map: far less than the 1.5 GiB a bomb inflates to."""


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def test_compression_bombs_fail_their_attempts_in_bounded_memory(
    tmp_path: Path, provider: HostileServer
) -> None:
    project = bomb_project(tmp_path / "p", provider.url)
    output = project.output()

    # A real start (not the fork server), so that the limit is this process's alone.
    done = subprocess.run(
        [*GOLDGATE, "evaluate", "--config", str(project.settings_path), "--output", str(output),
         "--timeout", "60", "--max-concurrency", "2"],
        cwd=project.root, env=cli_env(), capture_output=True, text=True, timeout=120,
        preexec_fn=_limited, check=False,
    )  # fmt: skip

    assert done.returncode == 4, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert "MemoryError" not in done.stderr
    report = read_report_json(output)
    attempts = [case["attempts"][0] for case in report["suites"][0]["cases"]]
    assert [a["status"] for a in attempts] == ["failed"] * 4 + ["completed", "failed", "completed"]
    for attempt in attempts[:4]:
        assert attempt["reason"] == (
            "http target answer exceeded 16777216 bytes once its gzip encoding was undone"
        )
    assert attempts[5]["reason"] == (
        "http target answer has a content encoding goldgate does not undo (br); it asks for "
        "gzip, deflate only"
    )
    assert set(provider.accept_encoding) == {"gzip, deflate"}


def test_a_usage_whose_cost_is_no_finite_number_fails_that_attempt(
    tmp_path: Path, provider: HostileServer
) -> None:
    project = new_project(tmp_path / "p")
    project.workflows = {
        "priced": {
            **workflow(provider.url, "priced-1"),
            "pricing": {"input_per_million": 2.5, "output_per_million": 10},
        }
    }
    # Figures that are not counts: dropped, they would price the attempt below its cost.
    odd = [-5, 7.5, "7", True, float("1e308")]
    cases = [
        case(0, tokens="1" + "0" * 400), case(1, tokens="1" + "0" * 300), case(2, tokens="7"),
        *(case(3 + n, usage={"input_tokens": 7, "output_tokens": v}) for n, v in enumerate(odd)),
        case(8, usage={"prompt_tokens": 7.0, "completion_tokens": 7, "input_tokens": None}),
    ]  # fmt: skip
    project.suite("priced", "priced", cases).write()

    run, report = project.evaluate()

    assert run.code == 4, run.output
    assert "Traceback" not in run.output
    assert report is not None
    [suite] = report["suites"]
    attempts = [case["attempts"][0] for case in suite["cases"]]
    assert [a["status"] for a in attempts] == (
        ["failed", "failed", "completed"] + ["failed"] * 5 + ["completed"]
    )
    cannot = "at the workflow's pricing (its token counts cannot be right)"
    for attempt, cost in zip(
        attempts[:2] + attempts[7:8],
        ("infinite or not a number", "over 1e+15", "infinite or not a number"),
        strict=True,
    ):
        assert attempt["reason"] == f"the answer's usage makes its cost {cost} {cannot}"
    for attempt in attempts[3:7]:
        assert attempt["reason"] == (
            "the answer's usage output_tokens is not a count of tokens, so its cost at the "
            "workflow's pricing is unknown"
        )
    assert suite["live"]["cost"] == pytest.approx(2 * 7 * 12.5 / 1e6)
