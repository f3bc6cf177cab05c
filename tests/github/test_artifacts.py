"""The baseline artifact against the fake GitHub: which one is chosen, how it is downloaded
(the token never reaches the storage host), and what an expired one does."""

from __future__ import annotations

import io
import time
import zipfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from goldgate.github.archive import extract_zip_safely
from goldgate.github.artifacts import ArtifactChoice, find_baseline_artifact, merge_base
from goldgate.github.comments import StickyComment, upsert_comment
from goldgate.github.download import download_artifact
from goldgate.github.errors import ArchiveRefused, GitHubUnavailable
from helpers.fake_github import TOKEN, FakeGitHub

if TYPE_CHECKING:
    from github import Github
    from github.Repository import Repository

NAME = "goldgate-baseline"
BASE, HEAD, MERGE_BASE = "b" * 40, "c" * 40, "a" * 40
OTHER = "d" * 40


def zip_of(files: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return buffer.getvalue()


# --- merge base ---------------------------------------------------------------------------


def test_merge_base_comes_from_the_compare_api(repo: Repository, fake: FakeGitHub) -> None:
    fake.set_merge_base(BASE, HEAD, MERGE_BASE)

    assert merge_base(repo, BASE, HEAD) == MERGE_BASE
    [request] = fake.work
    assert request.path == f"/repos/octo-org/octo-repo/compare/{BASE}...{HEAD}"


def test_unknown_commits_have_no_merge_base(repo: Repository) -> None:
    with pytest.raises(GitHubUnavailable, match=r"could not compare bbbbbbb with ccccccc.*404"):
        merge_base(repo, BASE, HEAD)


# --- choosing -----------------------------------------------------------------------------


def test_the_newest_artifact_of_the_merge_base_is_chosen(
    repo: Repository, fake: FakeGitHub
) -> None:
    fake.add_artifact(NAME, head_sha=MERGE_BASE, age=timedelta(hours=5))
    newest = fake.add_artifact(NAME, head_sha=MERGE_BASE, age=timedelta(hours=2))
    fake.add_artifact(NAME, head_sha=OTHER, age=timedelta(minutes=1))  # newer, other commit

    choice = find_baseline_artifact(repo, name=NAME, merge_base_sha=MERGE_BASE, base_branch="main")

    assert choice is not None
    assert (choice.artifact_id, choice.exact, choice.note) == (newest, True, None)
    assert choice.repository == "octo-org/octo-repo"
    assert choice.head_sha == MERGE_BASE
    per_commit, plain = fake.work
    assert per_commit.query == {"name": f"{NAME}-{MERGE_BASE}", "per_page": "100"}
    assert plain.query == {"name": NAME, "per_page": "100"}


# What examples/workflows/baseline.yml uploads on every push: NAME-<commit sha>.


def test_the_per_commit_artifact_of_the_merge_base_is_chosen_first(
    repo: Repository, fake: FakeGitHub
) -> None:
    fake.add_artifact(NAME, head_sha=MERGE_BASE, age=timedelta(minutes=1))
    wanted = fake.add_artifact(f"{NAME}-{MERGE_BASE}", head_sha=MERGE_BASE, age=timedelta(days=1))
    fake.add_artifact(f"{NAME}-{OTHER}", head_sha=OTHER, age=timedelta(0))

    choice = find_baseline_artifact(repo, name=NAME, merge_base_sha=MERGE_BASE, base_branch="main")

    assert choice is not None
    assert (choice.artifact_id, choice.exact, choice.note) == (wanted, True, None)
    [listing] = fake.work  # found by its exact name: one request
    assert listing.query == {"name": f"{NAME}-{MERGE_BASE}", "per_page": "100"}


def test_without_the_merge_base_the_newest_per_commit_artifact_of_the_branch_is_used(
    repo: Repository, fake: FakeGitHub
) -> None:
    older, newer = "e" * 40, OTHER
    fake.add_artifact(f"{NAME}-{older}", head_sha=older, age=timedelta(hours=3))
    wanted = fake.add_artifact(f"{NAME}-{newer}", head_sha=newer, age=timedelta(hours=1))
    fake.add_artifact(NAME, head_sha="1" * 40, age=timedelta(hours=2))  # the old name: older
    fake.add_artifact(f"{NAME}-{'f' * 40}", head_sha="f" * 40, head_branch="feature")
    fake.add_artifact(f"{NAME}-{'9' * 40}", head_sha="9" * 40, from_fork=True, age=timedelta(0))
    fake.add_artifact(f"{NAME}-{'8' * 40}", head_sha="8" * 40, expired=True, age=timedelta(0))
    fake.add_artifact(f"{NAME}-evals-{'7' * 40}", head_sha="7" * 40, age=timedelta(0))
    fake.add_artifact(f"{NAME}-{'6' * 7}", head_sha="6" * 40, age=timedelta(0))  # not 40-hex

    choice = find_baseline_artifact(repo, name=NAME, merge_base_sha=MERGE_BASE, base_branch="main")

    assert choice is not None
    assert (choice.artifact_id, choice.exact, choice.head_sha) == (wanted, False, newer)
    assert choice.note == (
        "no baseline artifact for the merge-base commit aaaaaaa; compared with the newest "
        f"from main instead: '{NAME}-{newer}', of commit ddddddd."
    )


def test_a_name_that_claims_another_commit_than_its_run_is_not_trusted(
    repo: Repository, fake: FakeGitHub
) -> None:
    fake.add_artifact(f"{NAME}-{MERGE_BASE}", head_sha=OTHER, age=timedelta(0))
    honest = fake.add_artifact(f"{NAME}-{'e' * 40}", head_sha="e" * 40, age=timedelta(hours=5))

    choice = find_baseline_artifact(repo, name=NAME, merge_base_sha=MERGE_BASE, base_branch="main")

    assert choice is not None
    assert (choice.artifact_id, choice.exact) == (honest, False)


def test_only_the_newest_artifacts_are_looked_through(repo: Repository, fake: FakeGitHub) -> None:
    fake.add_artifact(f"{NAME}-{OTHER}", head_sha=OTHER, age=timedelta(days=2))
    for index in range(5):
        fake.add_artifact(f"unrelated-{index}", head_sha=OTHER, age=timedelta(hours=index))

    assert (
        find_baseline_artifact(
            repo, name=NAME, merge_base_sha=MERGE_BASE, base_branch="main", scan_limit=5
        )
        is None
    )
    found = find_baseline_artifact(
        repo, name=NAME, merge_base_sha=MERGE_BASE, base_branch="main", scan_limit=6
    )
    assert found is not None
    assert found.head_sha == OTHER


def test_expired_fork_and_other_name_artifacts_are_never_chosen(
    repo: Repository, fake: FakeGitHub
) -> None:
    fake.add_artifact(NAME, head_sha=MERGE_BASE, expired=True, age=timedelta(0))
    fake.add_artifact(NAME, head_sha=MERGE_BASE, from_fork=True, age=timedelta(0))
    fake.add_artifact(NAME + "-old", head_sha=MERGE_BASE, age=timedelta(0))
    usable = fake.add_artifact(NAME, head_sha=MERGE_BASE, age=timedelta(days=3))

    choice = find_baseline_artifact(repo, name=NAME, merge_base_sha=MERGE_BASE, base_branch="main")

    assert choice is not None
    assert choice.artifact_id == usable


def test_an_artifact_past_its_expiry_date_is_expired(repo: Repository, fake: FakeGitHub) -> None:
    fake.add_artifact(NAME, head_sha=MERGE_BASE)

    later = datetime.now(UTC) + timedelta(days=91)

    assert (
        find_baseline_artifact(
            repo, name=NAME, merge_base_sha=MERGE_BASE, base_branch="main", now=later
        )
        is None
    )


def test_a_merge_base_without_an_artifact_uses_the_newest_from_the_branch(
    repo: Repository, fake: FakeGitHub
) -> None:
    fake.add_artifact(NAME, head_sha="e" * 40, head_branch="main", age=timedelta(hours=3))
    newest = fake.add_artifact(NAME, head_sha=OTHER, head_branch="main", age=timedelta(hours=1))
    fake.add_artifact(NAME, head_sha="f" * 40, head_branch="feature", age=timedelta(0))
    fake.add_artifact(NAME, head_sha="9" * 40, head_branch="main", from_fork=True)

    choice = find_baseline_artifact(repo, name=NAME, merge_base_sha=MERGE_BASE, base_branch="main")

    assert choice is not None
    assert (choice.artifact_id, choice.exact) == (newest, False)
    assert choice.note == (
        "no baseline artifact for the merge-base commit aaaaaaa; compared with the newest "
        f"from main instead: '{NAME}', of commit ddddddd."
    )


def test_no_baseline_at_all_is_none(repo: Repository, fake: FakeGitHub) -> None:
    fake.add_artifact(NAME, head_sha=OTHER, head_branch="feature")

    assert (
        find_baseline_artifact(repo, name=NAME, merge_base_sha=MERGE_BASE, base_branch="main")
        is None
    )


def test_every_page_of_artifacts_is_read(repo: Repository, fake: FakeGitHub) -> None:
    exact = fake.add_artifact(NAME, head_sha=MERGE_BASE, age=timedelta(days=10))
    for hours in range(130):
        fake.add_artifact(
            NAME, head_sha=f"{hours:040x}", head_branch="x", age=timedelta(hours=hours)
        )

    choice = find_baseline_artifact(repo, name=NAME, merge_base_sha=MERGE_BASE, base_branch="main")

    assert choice is not None
    assert choice.artifact_id == exact
    # NAME-<merge base> (one page), then NAME (two pages)
    assert len(fake.requests_to("GET", r"/actions/artifacts$")) == 3


def test_listing_refused_is_unavailable(repo: Repository, fake: FakeGitHub) -> None:
    fake.fail("GET", r"/actions/artifacts$", 403, message="Resource not accessible by integration")

    with pytest.raises(GitHubUnavailable, match="could not list the artifacts named"):
        find_baseline_artifact(repo, name=NAME, merge_base_sha=MERGE_BASE, base_branch="main")


# --- downloading --------------------------------------------------------------------------


def _chosen(repo: Repository, fake: FakeGitHub, **kwargs: object) -> ArtifactChoice:
    fake.add_artifact(NAME, head_sha=MERGE_BASE, **kwargs)  # type: ignore[arg-type]
    choice = find_baseline_artifact(repo, name=NAME, merge_base_sha=MERGE_BASE, base_branch="main")
    assert choice is not None
    return choice


def test_download_follows_the_redirect_without_the_token(
    gh: Github, repo: Repository, fake: FakeGitHub, tmp_path: Path
) -> None:
    archive = zip_of({"report.json": '{"format": "goldgate.report/1"}'})
    choice = _chosen(repo, fake, zip_bytes=archive)

    path = download_artifact(gh, choice, tmp_path / "downloads", max_bytes=1_000_000)

    assert path.read_bytes() == archive
    api, blob = fake.requests[-2:]
    assert api.path == f"/repos/octo-org/octo-repo/actions/artifacts/{choice.artifact_id}/zip"
    assert api.headers["authorization"] == f"token {TOKEN}"
    assert blob.path == f"/_blob/{choice.artifact_id}.zip"
    assert "authorization" not in blob.headers
    assert all(TOKEN not in value for value in blob.headers.values())
    assert list((tmp_path / "downloads").iterdir()) == [path]


def test_an_expired_artifact_answers_410(
    gh: Github, repo: Repository, fake: FakeGitHub, tmp_path: Path
) -> None:
    choice = _chosen(repo, fake, zip_bytes=zip_of({"a": "b"}), gone=True)

    with pytest.raises(GitHubUnavailable) as raised:
        download_artifact(gh, choice, tmp_path, max_bytes=1_000_000)

    assert raised.value.status == 410
    assert raised.value.reason == (
        f"could not download the artifact '{NAME}': GitHub answered 410 (Artifact has expired); "
        "it is gone (an expired artifact, or comments turned off)."
    )
    assert list(tmp_path.iterdir()) == []


def test_an_artifact_declared_over_the_cap_is_not_downloaded(
    gh: Github, repo: Repository, fake: FakeGitHub, tmp_path: Path
) -> None:
    choice = _chosen(repo, fake, zip_bytes=b"x" * 2000)
    before = len(fake.requests)

    with pytest.raises(ArchiveRefused, match="2,000 bytes, over the 1,000-byte cap"):
        download_artifact(gh, choice, tmp_path, max_bytes=1000)

    assert len(fake.requests) == before


def test_an_archive_larger_than_declared_is_cut_off(
    gh: Github, repo: Repository, fake: FakeGitHub, tmp_path: Path
) -> None:
    choice = _chosen(repo, fake, zip_bytes=b"x" * 5000)
    lying = ArtifactChoice(**{**choice.__dict__, "size_in_bytes": 10})

    with pytest.raises(ArchiveRefused, match="is 5,000 bytes, over the 1,000-byte cap"):
        download_artifact(gh, lying, tmp_path, max_bytes=1000)

    assert list(tmp_path.iterdir()) == []


def test_an_archive_of_unknown_length_is_counted_as_it_arrives(
    gh: Github, repo: Repository, fake: FakeGitHub, tmp_path: Path
) -> None:
    choice = _chosen(repo, fake, zip_bytes=b"x" * 300_000)
    lying = ArtifactChoice(**{**choice.__dict__, "size_in_bytes": 10})
    fake.unsized_downloads = True

    with pytest.raises(ArchiveRefused, match="the artifact archive is over the 100,000-byte cap"):
        download_artifact(gh, lying, tmp_path, max_bytes=100_000)

    assert list(tmp_path.iterdir()) == []


def test_the_storage_host_failing_is_unavailable(
    gh: Github, repo: Repository, fake: FakeGitHub, tmp_path: Path
) -> None:
    choice = _chosen(repo, fake, zip_bytes=b"x")
    fake.download_links_expire = True  # the signed address lapsed before it was fetched

    with pytest.raises(GitHubUnavailable) as raised:
        download_artifact(gh, choice, tmp_path, max_bytes=1000)

    assert raised.value.reason == (
        f"could not download the artifact '{NAME}': the storage host answered 403."
    )


def test_a_trickling_storage_host_is_given_up_at_the_deadline(
    gh: Github, repo: Repository, fake: FakeGitHub, tmp_path: Path
) -> None:
    choice = _chosen(repo, fake, zip_bytes=zip_of({"report.json": "x" * 5000}))
    fake.trickle_seconds = 0.2  # a byte every 0.2 s: never silent long enough to time out
    started = time.monotonic()

    with pytest.raises(GitHubUnavailable, match="took longer than this run allows"):
        download_artifact(
            gh, choice, tmp_path, max_bytes=1_000_000, deadline=started + 1.5, timeout=10
        )

    assert time.monotonic() - started < 4
    assert len(fake.requests_to("GET", r"^/_blob/")) == 1
    assert list(tmp_path.iterdir()) == []


def test_a_stalled_storage_host_is_given_up_at_the_deadline(
    gh: Github, repo: Repository, fake: FakeGitHub, tmp_path: Path
) -> None:
    choice = _chosen(repo, fake, zip_bytes=zip_of({"report.json": "{}"}))
    fake.delay("GET", r"^/_blob/")  # no answer at all until released
    started = time.monotonic()

    with pytest.raises(GitHubUnavailable, match="took longer than this run allows"):
        download_artifact(
            gh, choice, tmp_path, max_bytes=1_000_000, deadline=started + 1.0, timeout=30
        )

    assert time.monotonic() - started < 3
    assert list(tmp_path.iterdir()) == []


def test_a_deadline_already_past_sends_nothing(
    gh: Github, repo: Repository, fake: FakeGitHub, tmp_path: Path
) -> None:
    choice = _chosen(repo, fake, zip_bytes=b"x")
    before = len(fake.requests)

    with pytest.raises(GitHubUnavailable, match="took longer than this run allows"):
        download_artifact(gh, choice, tmp_path, max_bytes=10, deadline=time.monotonic() - 1)

    assert len(fake.requests) == before


def test_download_on_enterprise_server(
    enterprise: tuple[FakeGitHub, Github, Repository], tmp_path: Path
) -> None:
    server, gh, repo = enterprise
    server.add_artifact(NAME, head_sha=MERGE_BASE, zip_bytes=zip_of({"r.json": "{}"}))
    choice = find_baseline_artifact(repo, name=NAME, merge_base_sha=MERGE_BASE, base_branch="main")
    assert choice is not None

    path = download_artifact(gh, choice, tmp_path, max_bytes=10_000)

    files = extract_zip_safely(path, tmp_path / "baseline", max_bytes=10_000, max_files=10)
    assert [f.read_text() for f in files] == ["{}"]
    api = [r for r in server.requests if not r.path.startswith("/_blob/")]
    assert all(r.path.startswith("/api/v3/") for r in api)


# --- the whole pull-request side, and what never leaves --------------------------------------


def test_a_planted_secret_never_reaches_github(
    gh: Github, repo: Repository, fake: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "sk-planted-0123456789abcdef"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    fake.add_comments(7, 101)
    fake.set_merge_base(BASE, HEAD, MERGE_BASE)
    fake.add_artifact(NAME, head_sha=MERGE_BASE, zip_bytes=zip_of({"report.json": "{}"}))

    base = merge_base(repo, BASE, HEAD)
    choice = find_baseline_artifact(repo, name=NAME, merge_base_sha=base, base_branch="main")
    assert choice is not None
    download_artifact(gh, choice, tmp_path, max_bytes=10_000)
    upsert_comment(repo, 7, "## goldgate: passed", StickyComment("main"))
    upsert_comment(repo, 7, "## goldgate: passed again", StickyComment("main"))

    for request in fake.requests:
        seen = " ".join([request.path, request.body, *request.query.values()])
        assert secret not in seen
        assert secret not in " ".join(request.headers.values())
        assert TOKEN not in seen
        if request.path.startswith("/_blob/"):
            assert "authorization" not in request.headers
    assert not [r for r in fake.requests if r.path == "/user"]
