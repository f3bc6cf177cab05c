"""Event payloads: the real webhook examples in tests/oracles/github_events, and the edge
cases they do not show (forks, deleted forks, branch pushes, bad files)."""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from goldgate.github.errors import EventError
from goldgate.github.event import GitHubEvent, parse_event, read_event

Oracle = Callable[[str], Any]


def test_pull_request_opened(oracle: Oracle) -> None:
    payload = oracle("github_events/pull_request_opened.payload.json")

    event = parse_event("pull_request", payload)

    assert event == GitHubEvent(
        name="pull_request",
        repository="Codertocat/Hello-World",
        default_branch="master",
        pr_number=2,
        base_sha="f95f852bd8fca8fcc58a9a2d6c842781e32a215e",
        base_ref="master",
        head_sha="ec26c3e57ca3a959ca5aad62de7213c562f8c821",
        head_ref="changes",
        from_fork=False,
    )
    assert event.is_pull_request


def test_pull_request_synchronize(oracle: Oracle) -> None:
    payload = oracle("github_events/pull_request_synchronize.payload.json")

    event = parse_event("pull_request", payload)

    assert event.pr_number == 2
    assert event.head_sha == payload["after"]
    assert event.base_sha == "f95f852bd8fca8fcc58a9a2d6c842781e32a215e"
    assert not event.from_fork


def test_pull_request_from_a_fork(oracle: Oracle) -> None:
    payload = copy.deepcopy(oracle("github_events/pull_request_opened.payload.json"))
    head_repo = payload["pull_request"]["head"]["repo"]
    head_repo.update(full_name="someone/Hello-World", fork=True, id=1)

    assert parse_event("pull_request", payload).from_fork
    assert parse_event("pull_request_target", payload).from_fork


def test_pull_request_whose_fork_was_deleted_is_from_a_fork(oracle: Oracle) -> None:
    payload = copy.deepcopy(oracle("github_events/pull_request_opened.payload.json"))
    payload["pull_request"]["head"]["repo"] = None

    assert parse_event("pull_request", payload).from_fork


def test_pull_request_inside_a_repository_that_is_itself_a_fork(oracle: Oracle) -> None:
    payload = copy.deepcopy(oracle("github_events/pull_request_opened.payload.json"))
    payload["pull_request"]["head"]["repo"]["fork"] = True
    payload["pull_request"]["base"]["repo"]["fork"] = True

    assert not parse_event("pull_request", payload).from_fork


def test_push_of_a_deleted_tag(oracle: Oracle) -> None:
    payload = oracle("github_events/push_payload.json")

    event = parse_event("push", payload)

    assert event == GitHubEvent(
        name="push",
        repository="Codertocat/Hello-World",
        default_branch="master",
        base_sha="6113728f27ae82c7b1a177c8d03f9e96e0adf246",
        head_sha=None,  # all zeros: the tag was deleted
        head_ref="refs/tags/simple-tag",
    )
    assert not event.is_pull_request


def test_push_to_the_default_branch(oracle: Oracle) -> None:
    payload = copy.deepcopy(oracle("github_events/push_payload.json"))
    payload.update(ref="refs/heads/master", after="0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c")

    event = parse_event("push", payload)

    assert event.head_ref == "master"
    assert event.head_sha == "0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c"
    assert event.default_branch == event.head_ref


def test_workflow_run_without_pull_requests(oracle: Oracle) -> None:
    payload = oracle("github_events/workflow_run_completed.payload.json")

    event = parse_event("workflow_run", payload)

    assert event == GitHubEvent(
        name="workflow_run",
        repository="octo-org/octo-repo",
        default_branch="master",
        head_sha="3484a3fb816e0859fd6e1cea078d76385ff50625",
        head_ref="master",
        run_id=289782451,
    )


def test_workflow_run_with_a_pull_request(oracle: Oracle) -> None:
    payload = oracle("github_events/workflow_run_completed.with-pull-requests.payload.json")

    event = parse_event("workflow_run", payload)

    assert event.pr_number == 2
    assert event.base_sha == "f95f852bd8fca8fcc58a9a2d6c842781e32a215e"
    assert event.base_ref == "master"
    assert event.head_sha == "3484a3fb816e0859fd6e1cea078d76385ff50625"  # the run's own head
    assert event.run_id == 289782451
    assert not event.from_fork


def test_workflow_run_of_a_fork_is_from_a_fork(oracle: Oracle) -> None:
    payload = copy.deepcopy(oracle("github_events/workflow_run_completed.payload.json"))
    payload["workflow_run"]["head_repository"]["full_name"] = "someone/octo-repo"

    event = parse_event("workflow_run", payload)

    assert event.from_fork
    assert event.pr_number is None  # GitHub lists no pull request of a fork here


def test_other_events_keep_the_repository() -> None:
    payload = {"repository": {"full_name": "o/r", "default_branch": "main"}}

    assert parse_event("schedule", payload) == GitHubEvent("schedule", "o/r", "main")


def test_a_pull_request_payload_without_a_number_is_refused() -> None:
    with pytest.raises(EventError, match="no pull request number"):
        parse_event("pull_request", {"pull_request": {}})


# --- reading from the environment -------------------------------------------------------


def test_read_event_from_the_runner_environment(oracle: Oracle, tmp_path: Path) -> None:
    payload = oracle("github_events/pull_request_opened.payload.json")
    path = tmp_path / "event.json"
    path.write_text(json.dumps(payload), encoding="utf-8")

    event = read_event({"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": str(path)})

    assert event.pr_number == 2


def test_read_event_falls_back_to_github_repository(tmp_path: Path) -> None:
    path = tmp_path / "event.json"
    path.write_text("{}", encoding="utf-8")
    env = {"GITHUB_EVENT_NAME": "workflow_dispatch", "GITHUB_EVENT_PATH": str(path)}

    event = read_event({**env, "GITHUB_REPOSITORY": "o/r"})

    assert event.repository == "o/r"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot be read"),
        (b"{not json", r"not valid JSON \(line 1, column 2: "),
        (b'{"a": 1,\n "b": }', r"not valid JSON \(line 2, column 7: "),
        (b"\xff\xfe", "not valid JSON"),
        (b"[1, 2]", "not a JSON object"),
        ("folder", "not a regular file"),
    ],
)
def test_unreadable_payloads_are_one_sentence(
    tmp_path: Path, content: bytes | str | None, message: str
) -> None:
    path = tmp_path / "event.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content == "folder":
        path.mkdir()

    with pytest.raises(EventError, match=message) as raised:
        read_event({"GITHUB_EVENT_NAME": "push", "GITHUB_EVENT_PATH": str(path)})

    assert "\n" not in str(raised.value)


def test_outside_actions_there_is_no_event() -> None:
    with pytest.raises(EventError, match="not a GitHub Actions run"):
        read_event({})


def test_read_event_uses_the_process_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = tmp_path / "event.json"
    path.write_text('{"repository": {"full_name": "o/r"}}', encoding="utf-8")
    monkeypatch.setitem(os.environ, "GITHUB_EVENT_NAME", "push")
    monkeypatch.setitem(os.environ, "GITHUB_EVENT_PATH", str(path))

    assert read_event().repository == "o/r"
