"""The response cache through the real console script, as a hostile pull request would try
it: answers committed into a cache folder git tracks, unsigned or altered entries where a
cache key is configured, a cache folder that is a symbolic link, and settings that change an
answer (a model's api_version, an http header's literal value) while the cache holds the old
one. None of them answers a run."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from tests.helpers.fake_openai import FakeOpenAI, serving

from .support import Project, echo_cases, new_project

pytestmark = pytest.mark.slow  # a server and the console script

KEY = "sk-fake-CACHE-KEY-9031"
SECRET = "cache-secret-5a1d"
CASES = 3
ENV = {"GG_FAKE_KEY": KEY}


def model_project(root: Path, url: str, **model: Any) -> Project:
    project = new_project(root)
    target = {"base_url": f"{url}/v1", "model": "fake-1", "api_key": "GG_FAKE_KEY", **model}
    project.workflows = {
        "chat": {
            "revision": "chat-1",
            "live": True,
            "credentials": ["GG_FAKE_KEY"],
            "target": {"model": target},
        }
    }
    return _cases(project, "chat")


def http_project(root: Path, url: str, headers: dict[str, Any]) -> Project:
    project = new_project(root)
    project.workflows = {
        "app": {
            "revision": "app-1",
            "live": True,
            "target": {"http": {"url": f"{url}/app", "headers": headers}},
        }
    }
    return _cases(project, "app")


def _cases(project: Project, workflow: str) -> Project:
    return project.suite("s", workflow, echo_cases(CASES)).write()


def _requests(server: FakeOpenAI) -> int:
    requests: int = server.stats()["requests"]
    return requests


def _git(folder: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=folder, check=True, capture_output=True, timeout=30)


def test_a_cache_folder_whose_entries_git_tracks_is_refused(tmp_path: Path) -> None:
    with serving(api_key=KEY) as server:
        project = model_project(tmp_path / "p", server.url)
        cache = project.root / ".goldgate-cache"
        first, _ = project.evaluate("--live", "--cache", str(cache), env=ENV)
        assert first.code == 0, first.output
        _git(project.root, "init", "-q")
        _git(project.root, "add", "-f", ".goldgate-cache")  # a pull request commits answers
        calls = _requests(server)

        run, report = project.evaluate("--live", "--cache", str(cache), env=ENV, name="2.json")

        assert _requests(server) == calls
    assert run.code == 2, run.output
    assert report is None
    assert ".goldgate-cache: git tracks files in this folder" in run.stderr
    assert "Traceback" not in run.stderr


def test_an_untracked_cache_folder_in_a_repository_is_used(tmp_path: Path) -> None:
    with serving(api_key=KEY) as server:
        project = model_project(tmp_path / "p", server.url)
        _git(project.root, "init", "-q")
        cache = project.root / ".goldgate-cache"
        project.evaluate("--live", "--cache", str(cache), env=ENV)
        run, report = project.evaluate("--live", "--cache", str(cache), env=ENV, name="2.json")
        assert _requests(server) == CASES
    assert run.code == 0, run.output
    assert report is not None
    assert report["suites"][0]["live"]["cached"] == CASES


def test_with_a_cache_key_an_unsigned_or_altered_entry_never_answers(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    with serving(api_key=KEY) as server:
        project = model_project(tmp_path / "p", server.url)
        signed = {**ENV, "GOLDGATE_CACHE_KEY": SECRET}
        first, _ = project.evaluate("--live", "--cache", str(cache), env=signed)
        assert first.code == 0, first.output
        entries = sorted(cache.rglob("*.json"))
        assert len(entries) == CASES
        for text in (first.output, *(e.read_text() for e in entries)):
            assert SECRET not in text
        # A planted answer: the entry's answer changed, its HMAC dropped or kept.
        for number, entry in enumerate(entries[:2]):
            stored = json.loads(entry.read_text())
            stored["document"]["payload"]["answer"] = "planted"
            if number == 0:
                del stored["mac"]
            entry.write_text(json.dumps(stored))

        run, report = project.evaluate("--live", "--cache", str(cache), env=signed, name="2.json")

        assert _requests(server) == CASES + 2
    assert run.code == 0, run.output  # the planted answers were never scored
    assert report is not None
    assert report["suites"][0]["live"]["cached"] == CASES - 2
    assert run.stderr.count("is not signed with this job's GOLDGATE_CACHE_KEY") == 2
    assert SECRET not in run.output + json.dumps(report)


def test_a_symlinked_cache_folder_is_a_miss_with_a_warning(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    link = tmp_path / "cache"
    link.symlink_to(elsewhere, target_is_directory=True)
    with serving(api_key=KEY) as server:
        project = model_project(tmp_path / "p", server.url)
        run, report = project.evaluate("--live", "--cache", str(link), env=ENV)
        again, _ = project.evaluate("--live", "--cache", str(link), env=ENV, name="2.json")
        assert _requests(server) == 2 * CASES
    assert (run.code, again.code) == (0, 0), run.output
    assert "is a symbolic link or not a folder; the cache was not used" in run.stderr
    assert list(elsewhere.iterdir()) == []
    assert report is not None
    assert "live" not in report["suites"][0]


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ({"api_version": "2024-06-01"}, {"api_version": "2024-10-21"}),
        ({"parameters": {"seed": 1}}, {"parameters": {"seed": 2}}),
    ],
)
def test_a_changed_model_setting_is_a_miss(
    tmp_path: Path, before: dict[str, Any], after: dict[str, Any]
) -> None:
    cache = tmp_path / "cache"
    with serving(api_key=KEY) as server:
        model_project(tmp_path / "a", server.url, **before).evaluate(
            "--live", "--cache", str(cache), env=ENV
        )
        project = model_project(tmp_path / "b", server.url, **after)
        run, report = project.evaluate("--live", "--cache", str(cache), env=ENV)
        assert _requests(server) == 2 * CASES
    assert run.code == 0, run.output
    assert report is not None
    assert "live" not in report["suites"][0]


def test_a_changed_literal_header_value_is_a_miss_an_env_value_is_not(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    env_header = {"X-Key": {"env": "GG_HEADER"}}
    with serving() as server:
        for number, headers in enumerate(({"X-Tier": "gold"}, {"X-Tier": "silver"})):
            http_project(tmp_path / f"h{number}", server.url, headers).evaluate(
                "--live", "--cache", str(cache)
            )
        assert _requests(server) == 2 * CASES
        for number, value in enumerate(("one", "two")):
            http_project(tmp_path / f"e{number}", server.url, env_header).evaluate(
                "--live", "--cache", str(cache), env={"GG_HEADER": value}
            )
        assert _requests(server) == 3 * CASES  # the second run took every answer cached


BIG = 2**70 + 1
"""An integer past 64 bits in an answer: JSON holds it, and so must the cache, exactly."""


def _big_answer(body: dict[str, Any]) -> dict[str, Any]:
    message = body["envelope"]["payload"]["message"]
    return {"payload": {"answer": f"echo: {message}", "id": BIG}}


def test_an_answer_with_an_integer_past_64_bits_is_cached_and_given_back_exactly(
    tmp_path: Path,
) -> None:
    cache = tmp_path / "cache"
    with serving(app=_big_answer) as server:
        project = http_project(tmp_path / "p", server.url, {})
        first, written = project.evaluate("--live", "--cache", str(cache))
        again, report = project.evaluate("--live", "--cache", str(cache), name="2.json")
        assert _requests(server) == CASES  # the second run took every answer cached
    assert (first.code, again.code) == (0, 0), first.output + again.output
    assert "cache" not in first.stderr
    for run_report in (written, report):
        assert run_report is not None
        for case in run_report["suites"][0]["cases"]:
            assert case["attempts"][0]["result"]["payload"]["id"] == BIG
    assert report is not None
    assert report["suites"][0]["live"]["cached"] == CASES


APP = """
def handle(request):
    return {{"payload": {{"answer": "echo: " + request["envelope"]["payload"]["message"]{tail}}}}}
"""


def test_a_python_target_whose_code_changed_is_never_answered_by_the_old_code(
    tmp_path: Path,
) -> None:
    """A python (or command) target's answers come from the code in the checkout: they are
    kept per commit, so a pull request that breaks the code fails, however the cache was
    filled by the code before it."""
    project = new_project(tmp_path / "p")
    project.workflows = {
        "app": {"revision": "app-1", "live": True, "target": {"python": "cached_app:handle"}}
    }
    _cases(project, "app")
    app = project.root / "cached_app.py"
    cache = tmp_path / "cache"
    _git(project.root, "init", "-q")
    runs = []
    for number, tail in enumerate(("", ' + " (broken)"')):
        app.write_text(APP.format(tail=tail), "utf-8")
        _git(project.root, "add", "-A")
        _git(project.root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c")
        for again in ("a", "b"):  # the same commit twice: answered from the cache
            runs.append(project.evaluate("--live", "--cache", str(cache), name=f"{number}{again}"))
    codes = [run.code for run, _ in runs]
    cached = [report["suites"][0].get("live", {}).get("cached") for _, report in runs if report]
    assert (codes, cached) == ([0, 0, 1, 1], [None, CASES, None, CASES]), runs[2][0].output


def test_a_relative_cache_folder_through_a_symlinked_folder_is_not_used(tmp_path: Path) -> None:
    """The command line makes ``--cache`` absolute before user code runs: a link among its
    folders inside the checkout (one a pull request could commit) is still never followed."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    with serving(api_key=KEY) as server:
        project = model_project(tmp_path / "p", server.url)
        (project.root / "committed").symlink_to(elsewhere, target_is_directory=True)
        run, report = project.evaluate("--live", "--cache", "committed/cache", env=ENV)
    assert run.code == 0, run.output
    assert "is a symbolic link or not a folder; the cache was not used" in run.stderr
    assert list(elsewhere.iterdir()) == []
    assert report is not None
