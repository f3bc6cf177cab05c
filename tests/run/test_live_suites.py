"""A live suite against the fake OpenAI-compatible server (tests/helpers/fake_openai.py),
through the real console script: a requests-per-window limit answering 429 with
Retry-After, injected 500s and 503s, a latency of its own. Scaled to seconds: the server's
window is one second and the workflow's limit per minute is 60 times its count (the full
1,000-attempt figures are benchmarks/live.py's).

What holds: every attempt completes (no runtime failure), the server never accepts more than
its limit in any window, the run takes at most 1.15 times what the limit imposes; the same
run again with the cache makes no request and takes a fraction of the first's time; an
interrupted retry's 60 s wait stops far sooner and keeps the report; the API key reaches
neither the report nor the output."""

from __future__ import annotations

import json
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.helpers.fake_openai import FakeOpenAI, serving

from .support import Project, echo_cases, new_project, read_report_json, start_cli

pytestmark = pytest.mark.slow  # a server and the console script

KEY = "sk-fake-LIVE-KEY-4417"
RATE = 25  # requests a second, the server's and the workflow's
CASES = 100


def live_project(root: Path, url: str, **workflow: Any) -> Project:
    project = new_project(root)
    project.workflows = {
        "chat": {
            "revision": "chat-1",
            "live": True,
            "credentials": ["GG_FAKE_KEY"],
            "target": {
                "model": {
                    "base_url": f"{url}/v1",
                    "model": "fake-1",
                    "api_key": "GG_FAKE_KEY",
                    "system": "You echo what you are told.",
                    "max_tokens": 16,
                }
            },
            **workflow,
        }
    }
    return project.suite("chat", "chat", echo_cases(CASES, "c{:03d}")).write()


LIMITED = {
    "retry": {"attempts": 6, "backoff": 0.05, "max_backoff": 1.0},
    "rate_limit": {"requests_per_minute": RATE * 60},
    "pricing": {"input_per_million": 0.5, "output_per_million": 1.5},
}


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with serving(rpm=RATE, window=1.0, latency=0.02, faults={500: 23, 503: 31}, api_key=KEY,
                 rate_headers=True) as server:  # fmt: skip
        yield server


def test_a_limited_flaky_provider_completes_every_attempt_within_the_limit_and_then_for_free(
    tmp_path: Path, fake: FakeOpenAI
) -> None:
    project = live_project(tmp_path / "p", fake.url, **LIMITED)
    env = {"GG_FAKE_KEY": KEY}
    args = ("--live", "--max-concurrency", "64", "--cache", str(tmp_path / "cache"))

    run, report = project.evaluate(*args, env=env)

    assert run.code == 0, run.output
    [suite] = report["suites"] if report else []
    assert suite["counts"]["attempts"]["completed"] == CASES
    stats = fake.stats()
    assert stats["max_in_window"] <= RATE  # accepted requests in any one-second window
    accepted = stats["requests"] - stats["by_status"].get("429", 0)
    imposed = (accepted - 1) / RATE
    assert report is not None
    # The requests' own span, and the run's whole duration with a second for its start (the
    # scaled window makes that second count; in benchmarks/live.py's minutes it does not).
    assert stats["last"] - stats["first"] <= 1.15 * imposed
    assert report["duration_seconds"] <= 1.15 * imposed + 1.0
    retries = sum(case["attempts"][0].get("retries", 0) for case in suite["cases"])
    assert retries == stats["requests"] - CASES  # every call after an attempt's first
    assert suite["live"]["retries"] == retries
    assert suite["live"]["cost"] == pytest.approx(suite["live"]["spent"])
    assert "retries" in run.stdout
    assert "cost" in run.stdout

    before = stats["requests"]
    again, second = project.evaluate(*args, env=env, name="again.json")

    assert again.code == 0, again.output
    assert fake.stats()["requests"] == before  # nothing sent
    assert second is not None
    # Quick: no call waits for the limit (the first run could not go faster than it imposed);
    # a share of the first run's own time, not a wall-clock bound a loaded machine breaks.
    assert second["duration_seconds"] < 0.5 * report["duration_seconds"]
    [cached] = second["suites"]
    assert cached["live"]["cached"] == CASES
    assert cached["live"]["spent"] == 0
    assert f"{CASES} cached" in again.stdout
    for text in (json.dumps(report), json.dumps(second), run.output, again.output):
        assert KEY not in text


def test_a_corrupt_cache_entry_is_called_again_with_a_warning(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    args = ("--live", "--suite", "chat", "--cache", str(cache))
    # A provider without limits or faults: what is tested is the cache, not the retries.
    with serving(api_key=KEY) as plain:
        project = live_project(tmp_path / "p", plain.url)
        first, _ = project.evaluate(*args, env={"GG_FAKE_KEY": KEY})
        assert first.code == 0, first.output
        assert plain.stats()["requests"] == CASES
        entry = next(cache.rglob("*.json"))
        entry.write_text("{not json")

        again, report = project.evaluate(*args, env={"GG_FAKE_KEY": KEY}, name="again.json")

        assert again.code == 0, again.output
        assert plain.stats()["requests"] == CASES + 1
    assert "was ignored: it is not JSON; the target was called instead" in again.stderr
    assert report is not None
    assert report["suites"][0]["live"]["cached"] == CASES - 1


def test_an_interrupt_during_a_retry_s_wait_stops_at_once_and_keeps_the_report(
    tmp_path: Path,
) -> None:
    with serving(faults={503: 1}, api_key=KEY) as down:  # every answer a 503
        project = live_project(
            tmp_path / "p", down.url, retry={"attempts": 5, "backoff": 60.0, "max_backoff": 60.0}
        )
        output = project.output()
        process = start_cli(
            "evaluate", "--config", str(project.settings_path), "--live", "--output",
            str(output), cwd=project.root, env={"GG_FAKE_KEY": KEY},
        )  # fmt: skip
        deadline = time.monotonic() + 30
        while down.stats()["requests"] == 0 and time.monotonic() < deadline:
            time.sleep(0.02)  # polling the server for the first call, not synchronising
        assert down.stats()["requests"] == 1
        sent = time.monotonic()
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=10)
        stopped = time.monotonic() - sent

    assert process.returncode == 130, stderr
    # At once: the retry's wait is 60 s; the process ended far sooner, so the signal cut it
    # (a generous bound: a loaded machine delays the process's exit, not the cut).
    assert stopped < 20.0
    report = read_report_json(output)
    assert report["complete"] is False
    first = report["suites"][0]["cases"][0]["attempts"][0]
    assert first["status"] == "cancelled", first
    assert KEY not in stdout + stderr + json.dumps(report)


def test_a_missing_api_key_stops_before_anything_runs(tmp_path: Path, fake: FakeOpenAI) -> None:
    project = live_project(tmp_path / "p", fake.url)
    run, report = project.evaluate("--live")
    assert run.code == 2
    assert "needs the environment variable GG_FAKE_KEY, which is not set" in run.stderr
    assert report is None
    assert fake.stats()["requests"] == 0


def test_a_large_run_s_live_figures_cross_to_the_report_process(tmp_path: Path) -> None:
    # 1,100 attempts: past REPORT_PROCESS_FROM, so a machine with a CPU to spare scores and
    # writes them in the report process; the figures must be the same either way.
    project = new_project(tmp_path / "p")
    (project.root / "shaky_app.py").write_text(
        "import goldgate\nSEEN = set()\n"
        "def handle(request):\n"
        "    message = request['envelope']['payload']['message']\n"
        "    if message not in SEEN:\n"
        "        SEEN.add(message)\n"
        "        raise goldgate.TransientFailure('busy', retry_after=0)\n"
        "    return {'payload': {'answer': message},\n"
        "            'usage': {'input_tokens': 10, 'output_tokens': 5}}\n"
    )
    project.workflows = {
        "w": {
            "revision": "w1",
            "target": {"python": "shaky_app:handle"},
            "retry": {"attempts": 2, "backoff": 0},
            "pricing": {"input_per_million": 1, "output_per_million": 2},
        }
    }
    cases = [
        {"id": f"c{n}", "input": {"payload": {"message": f"m{n}"}, "metadata": {}},
         "expectations": [{"name": "a", "path": "/payload/answer", "expected": f"m{n}"}]}
        for n in range(1_100)
    ]  # fmt: skip
    project.suite("s", "w", cases, thresholds={"cost.total": 0.05}).write()

    run, report = project.evaluate("--max-concurrency", "8")

    assert run.code == 0, run.output
    assert report is not None
    [suite] = report["suites"]
    assert suite["live"] == {"retries": 1_100, "cached": 0, "cost": 0.022, "spent": 0.022,
                             "currency": "USD"}  # fmt: skip
    assert report["live"] == suite["live"]
    [threshold] = suite["thresholds"]
    assert threshold == {"key": "cost.total", "minimum": None, "actual": 0.022, "held": True,
                         "maximum": 0.05}  # fmt: skip
    assert all(case["attempts"][0]["retries"] == 1 for case in suite["cases"])
