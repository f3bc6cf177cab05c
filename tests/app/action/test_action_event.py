"""An event payload no GitHub event looks like (nested deeper than goldgate reads, whatever
the depth) is one sentence, a warning as for every unreadable event (no pull request to
comment on, no baseline), never a traceback: the run still ends with its own exit code."""

from __future__ import annotations

import pytest

from .conftest import Runner


@pytest.mark.parametrize("depth", [600, 200_000])
def test_an_event_nested_deeper_than_the_bound_is_one_sentence(runner: Runner, depth: int) -> None:
    runner.event_path.write_text(
        '{"pull_request": ' + "[" * depth + "]" * depth + "}", encoding="utf-8"
    )

    result = runner.run(comment="off")

    assert result.code == 1, result.stderr  # the example's candidate disagrees with gold
    assert "Traceback" not in result.stdout + result.stderr
    warnings = [line for line in result.stdout.splitlines() if line.startswith("::warning")]
    assert any("nests deeper than 512 levels" in line for line in warnings), result.stdout
    assert runner.outputs()["exit_code"] == "1"
    assert runner.fake.comments(runner.pr_number) == []
