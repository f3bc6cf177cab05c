"""The fake GitHub answers in GitHub's own shapes: every response of an endpoint described
in tests/oracles/github_api is validated against that description's schema (OpenAPI's
``nullable`` turned into JSON Schema). Compare and repos/{owner}/{repo} have no extract
there; PyGithub reading them in the other tests is their check."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

import jsonschema
import pytest

from helpers.fake_github import TOKEN, FakeGitHub, iter_links

Oracle = Callable[[str], Any]


def openapi_to_json_schema(schema: Any) -> Any:
    """OpenAPI 3.0 ``nullable: true`` means "or null"; JSON Schema says it with anyOf."""
    if isinstance(schema, list):
        return [openapi_to_json_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    converted = {key: openapi_to_json_schema(value) for key, value in schema.items()}
    if converted.pop("nullable", False):
        return {"anyOf": [converted, {"type": "null"}]}
    return converted


def response_schema(oracle: Oracle, operation: str, status: str) -> Any:
    described = oracle(f"github_api/{operation.replace('/', '__')}.json")
    content = described["responses"][status]["content"]["application/json"]
    return openapi_to_json_schema(content["schema"])


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def call(
    fake: FakeGitHub, method: str, path: str, body: Any = None, *, timeout: float = 5
) -> tuple[int, dict[str, str], Any]:
    data = None if body is None else json.dumps(body).encode("utf-8")
    request = urllib.request.Request(
        fake.base_url + path,
        data=data,
        method=method,
        headers={"Authorization": f"token {TOKEN}", "Content-Type": "application/json"},
    )
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        with opener.open(request, timeout=timeout) as response:
            status, headers, raw = response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        status, headers, raw = error.code, dict(error.headers), error.read()
    return status, headers, json.loads(raw) if raw else None


@pytest.fixture
def served(fake: FakeGitHub) -> FakeGitHub:
    fake.add_comments(5, 3)
    fake.add_artifact("goldgate-baseline", head_sha="a" * 40, zip_bytes=b"PK\x05\x06" + b"\0" * 18)
    fake.add_artifact("goldgate-baseline", head_sha="b" * 40, expired=True, from_fork=True)
    return fake


REPO = "/repos/octo-org/octo-repo"


@pytest.mark.parametrize(
    ("operation", "method", "path", "body", "status"),
    [
        ("issues/list-comments", "GET", f"{REPO}/issues/5/comments", None, "200"),
        ("issues/create-comment", "POST", f"{REPO}/issues/5/comments", {"body": "hi"}, "201"),
        ("issues/get-comment", "GET", f"{REPO}/issues/comments/1001", None, "200"),
        ("issues/update-comment", "PATCH", f"{REPO}/issues/comments/1001", {"body": "x"}, "200"),
        ("issues/create-comment", "POST", f"{REPO}/issues/5/comments", {}, "422"),
        ("issues/update-comment", "PATCH", f"{REPO}/issues/comments/1001", {"b": 1}, "422"),
        ("actions/list-artifacts-for-repo", "GET", f"{REPO}/actions/artifacts", None, "200"),
        ("actions/get-artifact", "GET", f"{REPO}/actions/artifacts/1004", None, "200"),
        ("actions/download-artifact", "GET", f"{REPO}/actions/artifacts/1006/zip", None, "410"),
        ("actions/list-workflow-runs-for-repo", "GET", f"{REPO}/actions/runs", None, "200"),
        (
            "actions/list-workflow-run-artifacts",
            "GET",
            f"{REPO}/actions/runs/1005/artifacts?name=goldgate-baseline",
            None,
            "200",
        ),
    ],
)
def test_answers_match_githubs_description(
    oracle: Oracle,
    served: FakeGitHub,
    operation: str,
    method: str,
    path: str,
    body: Any,
    status: str,
) -> None:
    schema = response_schema(oracle, operation, status)

    got_status, _, data = call(served, method, path, body)

    assert got_status == int(status)
    jsonschema.validate(data, schema)


def test_every_endpoint_of_the_index_is_served_with_a_documented_status(
    oracle: Oracle, served: FakeGitHub
) -> None:
    index = oracle("github_api/INDEX.json")
    concrete = {
        "{owner}/{repo}": "octo-org/octo-repo",
        "{issue_number}": "5",
        "{comment_id}": "1001",
        "{artifact_id}": "1004",
        "{archive_format}": "zip",
        "{run_id}": "1005",
    }
    bodies = {"POST": {"body": "hi"}, "PATCH": {"body": "edited"}}

    for endpoint, described in index.items():
        method, path = endpoint.split(" ", 1)
        for placeholder, value in concrete.items():
            path = path.replace(placeholder, value)
        status, _, _ = call(served, method, path, bodies.get(method))

        assert str(status) in described["responses"], endpoint


def test_download_is_a_302_to_a_signed_address(oracle: Oracle, served: FakeGitHub) -> None:
    described = oracle("github_api/actions__download-artifact.json")
    assert "Location" in described["responses"]["302"]["headers"]

    status, headers, body = call(served, "GET", f"{REPO}/actions/artifacts/1004/zip")

    assert status == 302
    assert body is None
    assert headers["Location"].startswith(served.root + "/_blob/1004.zip?sig=")


def test_comments_page_with_a_link_header(served: FakeGitHub) -> None:
    served.add_comments(9, 250)

    status, headers, first = call(served, "GET", f"{REPO}/issues/9/comments?per_page=100")
    links = dict(iter_links(headers["Link"]))
    _, last_headers, last = call(served, "GET", links["last"].removeprefix(served.base_url))

    assert status == 200
    assert len(first) == 100
    assert set(links) == {"next", "last"}
    assert "page=2" in links["next"]
    assert "page=3" in links["last"]
    assert len(last) == 50
    assert set(dict(iter_links(last_headers["Link"]))) == {"prev", "first"}


def test_default_page_is_30_and_at_most_100(served: FakeGitHub) -> None:
    served.add_comments(9, 250)

    _, _, default = call(served, "GET", f"{REPO}/issues/9/comments")
    _, _, capped = call(served, "GET", f"{REPO}/issues/9/comments?per_page=500")

    assert (len(default), len(capped)) == (30, 100)


def test_artifacts_are_listed_newest_first_and_filtered_by_name(served: FakeGitHub) -> None:
    from datetime import timedelta

    served.add_artifact("other", head_sha="c" * 40)
    newer = served.add_artifact("goldgate-baseline", head_sha="d" * 40, age=timedelta(0))

    _, _, data = call(served, "GET", f"{REPO}/actions/artifacts?name=goldgate-baseline")

    assert data["total_count"] == 3
    assert data["artifacts"][0]["id"] == newer
    assert {a["name"] for a in data["artifacts"]} == {"goldgate-baseline"}


def test_requests_without_the_token_are_refused(served: FakeGitHub) -> None:
    request = urllib.request.Request(served.base_url + f"{REPO}/issues/5/comments")
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=5)

    assert refused.value.code == 401


def test_get_user_answers_as_to_an_installation_token(served: FakeGitHub) -> None:
    status, _, data = call(served, "GET", "/user")

    assert status == 403
    assert data["message"] == "Resource not accessible by integration"


def test_a_comment_s_length_is_counted_in_utf16_units(served: FakeGitHub) -> None:
    path = f"{REPO}/issues/5/comments"

    assert call(served, "POST", path, {"body": "😀" * (65_536 // 2)})[0] == 201
    status, _, data = call(served, "POST", path, {"body": "😀" * (65_536 // 2 + 1)})

    assert status == 422  # 32,769 characters, 65,538 UTF-16 code units
    assert "Body is too long" in data["errors"][0]["message"]


def _blob_address(served: FakeGitHub) -> str:
    status, headers, _ = call(served, "GET", f"{REPO}/actions/artifacts/1004/zip")
    assert status == 302
    return headers["Location"]


def test_a_trickling_storage_host_sends_a_byte_at_a_time(served: FakeGitHub) -> None:
    served.trickle_seconds = 0.1
    started = time.monotonic()

    with urllib.request.urlopen(_blob_address(served), timeout=5) as answer:
        first = answer.read(1)
        second = answer.read(1)
    took = time.monotonic() - started

    assert first + second == b"PK"
    assert 0.08 < took < 2  # the second byte came a tenth of a second after the first


def test_a_held_request_is_seen_then_answered_when_released(served: FakeGitHub) -> None:
    served.delay("POST", r"/issues/\d+/comments$", after=True)  # stored, answer held
    answers: list[int] = []
    thread = threading.Thread(
        target=lambda: answers.append(
            call(served, "POST", f"{REPO}/issues/5/comments", {"body": "held"}, timeout=30)[0]
        )
    )
    thread.start()

    seen = served.wait_for("POST", r"/issues/5/comments$", timeout=5)
    time.sleep(0.3)
    assert seen.body == '{"body": "held"}'
    assert answers == []  # still held...
    assert [body for _, _, body in served.comments(5)][-1] == "held"  # ...but stored
    served.release()
    thread.join(5)
    assert answers == [201]
    # only once: the next request is answered at once
    assert call(served, "POST", f"{REPO}/issues/5/comments", {"body": "x"})[0] == 201


def test_a_request_held_before_it_is_carried_out_stores_nothing_yet(served: FakeGitHub) -> None:
    served.delay("POST", r"/issues/\d+/comments$", 0.5)

    started = time.monotonic()
    status = call(served, "POST", f"{REPO}/issues/5/comments", {"body": "late"})[0]

    assert status == 201
    assert time.monotonic() - started >= 0.45
    with pytest.raises(AssertionError, match="saw no GET"):
        served.wait_for("GET", r"/nothing-like-this", timeout=0.1)


def test_a_trickling_api_sends_its_answers_a_byte_at_a_time(served: FakeGitHub) -> None:
    served.trickle_api_seconds = 0.002
    started = time.monotonic()

    status, _, data = call(served, "GET", f"{REPO}/issues/comments/1001", timeout=30)

    assert status == 200
    assert data["id"] == 1001
    assert time.monotonic() - started > 0.002 * 500  # over 1,000 bytes, each 2 ms apart
