"""goldgate's composite action under a real Actions runner (nektos/act, tests/helpers/act.py)
with a personal access token (act_fixture/workflows/personal-token.yml): the fake GitHub
authors the comments it creates with that token's login, and ``GET /user`` is refused (as for
a fine-grained token without that permission), so only the ``comment_author`` input tells
goldgate which comment is its own. Two runs keep ONE sticky comment, edited in place; a
comment of another login that carries the same marker is left alone.

The job's Python (the setup-python stand-in's default, helpers/job_python.py's
``runner_python``) holds goldgate 0.1.0: the action installs nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from compare.conftest import CANDIDATE_EDITS, example_copy
from goldgate.github.comments import marker
from helpers.act import GOLDGATE_USES, Act, act_binary, action_source
from helpers.act import MISSING as ACT_MISSING
from helpers.fake_github import FakeGitHub

from .conftest import event_github

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(act_binary() is None, reason=ACT_MISSING),
]

WORKFLOW = Path(__file__).resolve().parent / "act_fixture" / "workflows" / "personal-token.yml"
PERSONAL = "ghp_" + "PersonalAccessT0ken" + "0000000000000000"
LOGIN = "goldgate-ci"


@pytest.fixture
def personal(payload: dict[str, Any]) -> Iterator[FakeGitHub]:
    """The fake GitHub of a personal token whose account is ``LOGIN``."""
    with event_github(payload, token=PERSONAL, login=LOGIN) as server:
        refused = "Resource not accessible by personal access token"
        server.fail("GET", r"^/user$", 403, message=refused, times=None)
        yield server


def test_a_personal_token_keeps_one_sticky_comment_across_runs(
    tmp_path: Path, personal: FakeGitHub, payload: dict[str, Any]
) -> None:
    number = int(payload["number"])
    quoted = personal.add_comment(number, marker("goldgate") + "\nquoted", login="mallory")
    goldgate = action_source(tmp_path / "goldgate")

    def run(edits: dict[str, list[tuple[str, str]]], name: str) -> dict[str, str]:
        source = example_copy(tmp_path / name, edits)
        act = Act(tmp_path / "runs", personal, source, actions={GOLDGATE_USES: goldgate})
        result = act.run(
            WORKFLOW,
            "pull_request",
            payload,
            secrets={"GOLDGATE_TOKEN": PERSONAL},
            variables={"GOLDGATE_COMMENT_AUTHOR": LOGIN},
        )
        assert result.exit_code == 0, result.text
        return result.job("Gold").outputs["goldgate"]

    first = run({}, "passing")
    assert first["exit_code"] == "0"
    planted, (ident, author, body) = personal.comments(number)
    assert planted == (quoted, "mallory", marker("goldgate") + "\nquoted")
    assert author == LOGIN
    assert "goldgate: passed" in body

    second = run(CANDIDATE_EDITS, "failing")
    assert second["exit_code"] == "1"  # fail_on never: the step passes, the output tells
    (_, (again, author, edited)) = personal.comments(number)
    assert (again, author) == (ident, LOGIN)
    # fail_on never: the verdict line says the check passed, and what the run found
    assert "goldgate: passed — 20 passed, 3 failing" in edited
    assert "as fail\\_on is never" in edited
    assert personal.requests_to("PATCH", rf"/issues/comments/{ident}$")
    assert not personal.requests_to("PATCH", rf"/issues/comments/{quoted}$")
    assert len(personal.requests_to("POST", rf"/issues/{number}/comments$")) == 1
