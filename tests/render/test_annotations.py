"""Annotations: GitHub workflow commands at the gold line of each failing case, escaped as the
runner unescapes them, at most ten errors with a notice counting the rest, and no line a
piece of data could turn into a command of its own."""

from __future__ import annotations

import re

import pytest

from goldgate.render.annotations import render_annotations
from goldgate.render.registry import Links, RenderContext
from goldgate.render.view import build_view
from goldgate.render.workflow_commands import command
from goldgate.report.models import Report

from .corpus import REPORTS

# One worker makes the session's corpus (tests/render/conftest.py) for the modules that read
# it, not each worker that draws one of their tests (--dist loadgroup).
pytestmark = pytest.mark.xdist_group("render_corpus")

_COMMAND = re.compile(r"::(error|notice)(?: ([^:]*))?::(.*)")


def unescape_data(value: str) -> str:
    return value.replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%")


def unescape_property(value: str) -> str:
    return unescape_data(value.replace("%3A", ":").replace("%2C", ","))


def parse(line: str) -> tuple[str, dict[str, str], str]:
    """A workflow command as the runner reads it: name, properties, message."""
    match = _COMMAND.fullmatch(line)
    assert match, line
    properties = {}
    for pair in (match.group(2) or "").split(","):
        if pair:
            key, _, value = pair.partition("=")
            properties[key] = unescape_property(value)
    return match.group(1), properties, unescape_data(match.group(3))


@pytest.mark.parametrize("name", sorted(REPORTS))
def test_every_line_is_one_of_our_commands(corpus: dict[str, Report], name: str) -> None:
    value = corpus[name]
    lines = render_annotations(RenderContext(value, links=Links(full_report="r.json"))).splitlines()
    counts = build_view(value).counts
    failing = counts["runtime"] + counts["check_error"] + counts["failure"]
    kinds = [parse(line)[0] for line in lines]

    assert kinds.count("error") == min(failing, 10)
    assert kinds.count("notice") == (failing > 10)
    if failing > 10:
        assert parse(lines[-1])[2].startswith(f"{failing - 10:,} more failing attempt")


def test_annotations_point_at_the_gold_line(corpus: dict[str, Report]) -> None:
    lines = render_annotations(RenderContext(corpus["repeats"])).splitlines()
    first, wrong = parse(lines[0]), parse(lines[6])

    assert first == (
        "error",
        {
            "file": "evaluation/dataset.json",
            "line": "53",
            "title": "goldgate runtime failure: python / raises#1",
        },
        "the attempt failed: python target raised ValueError at fixture_app.py:40",
    )
    assert wrong[1]["line"] == "31"
    assert wrong[1]["title"] == "goldgate gold disagreement: python / wrong#1"
    assert parse(lines[-1])[2] == (
        "2 more failing attempts not annotated (GitHub shows 10 errors per step)"
    )


def test_hostile_data_stays_inside_its_command(corpus: dict[str, Report]) -> None:
    text = render_annotations(RenderContext(corpus["hostile"]))
    lines = text.splitlines()

    assert len(lines) == 3
    for line in lines:
        kind, properties, message = parse(line)
        assert kind == "error"
        assert "\n" not in message
        assert "\r" not in message
        assert "file" not in properties  # the source holds ':': it could not be a repo path
    assert "::error::injected" in parse(lines[0])[2]


def test_escaping_round_trips() -> None:
    line = command("error", "50% done\r\nnext", file="a,b:c.json", line=3, title="t: x, y%")
    kind, properties, message = parse(line)

    assert line.startswith("::error file=a%2Cb%3Ac.json,line=3,title=t%3A x%2C y%25::")
    assert (kind, properties["file"], properties["title"]) == ("error", "a,b:c.json", "t: x, y%")
    assert message == "50% done next"  # on one line: no line can start with data


def test_maximum_and_no_problems(corpus: dict[str, Report]) -> None:
    assert render_annotations(RenderContext(corpus["example"])) == ""
    only_notice = render_annotations(RenderContext(corpus["repeats"], maximum=0)).splitlines()
    assert [parse(line)[0] for line in only_notice] == ["notice"]
    assert parse(only_notice[0])[2].startswith("12 more failing attempts")
