"""What the documentation's screenshots show (docs/images/), made the same way by
``scripts/screenshots.py``, which renders and photographs them, and by
``tests/test_screenshots.py``, which checks that they are not stale.

The sources are the bundled example's sticky comment and HTML report on a failing pull
request: the example as it is for the baseline, and a candidate with one planted regression
(the German cancellation word dropped from the rules), both run through the console script,
their reports made fixed (``render.builders.normalized``: times, latencies, the version), the
candidate compared with the baseline and rendered in-process as the action renders it. So
the same code gives the same bytes: a test compares them with what the PNGs were made from
(``*.source.md``, ``*.source.sha256`` beside each), without comparing pixels.

The comment is shown as GitHub shows it: cmark-gfm (tests/render/gfm.py's ``render``) with a
stylesheet like github.com's for comments, in its 800-pixel column.
"""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path

from compare.conftest import evaluate, example_copy
from goldgate.app.action.rules import decide_exit
from goldgate.app.render import render
from goldgate.comparison import compare
from goldgate.render.compared import comparison_view
from goldgate.render.registry import Links, RenderContext
from goldgate.report.io import read_report, report_bytes
from render.builders import normalized
from render.gfm import render as gfm

TRIAGE = "support_triage_app/triage.py"
REGRESSION = {TRIAGE: [('"cancellation": ("cancel", "kündig"),', '"cancellation": ("cancel",),')]}
"""One planted regression: German cancellations are no longer recognised."""
IMAGES = Path(__file__).resolve().parents[2] / "docs" / "images"
COMMENT_WIDTH = 800


@dataclasses.dataclass(frozen=True)
class Sources:
    comment: str
    """The comment's Markdown, as the action posts it."""
    report: str
    """The HTML report's page."""

    def digests(self) -> dict[str, str]:
        """What each PNG was made from: the comment's Markdown itself, the page's digest."""
        return {
            "comment.source.md": self.comment,
            "report.source.sha256": hashlib.sha256(self.report.encode("utf-8")).hexdigest() + "\n",
        }


def sources(work: Path) -> Sources:
    """The comment and the page, made in ``work`` (see the module)."""
    paths = {}
    for name, edits, revision in (("baseline", {}, "base"), ("candidate", REGRESSION, "cand")):
        root = example_copy(work / name, edits)
        raw = evaluate(root, work / f"{name}-raw.json", "--variant-revision", revision)
        path = work / f"{name}.json"
        path.write_bytes(report_bytes(normalized(read_report(raw))))
        paths[name] = path
    candidate = read_report(paths["candidate"])
    view = comparison_view(compare(paths["candidate"], paths["baseline"]), candidate)
    exit_code, rule = decide_exit("disagreement", 1, None)
    links = Links(
        full_report=".goldgate/action/report.json",
        link_base="https://github.com/OWNER/REPO/blob/0123abc",
        run_url="https://github.com/OWNER/REPO/actions/runs/42",
    )
    comment = render(
        "markdown",
        RenderContext(
            candidate,
            dataclasses.replace(view, baseline="main@0123abc"),
            exit_code=exit_code,
            rule=rule,
            links=links,
        ),
    )
    page = render(
        "html",
        RenderContext(
            candidate,
            view,
            links=Links(full_report=".goldgate/action/report.json"),
            baseline=read_report(paths["baseline"]),
        ),
    )
    return Sources(comment=comment, report=page)


_STYLE = """
body { margin: 0; background: #ffffff; }
.comment { width: WIDTHpx; margin: 16px; border: 1px solid #d0d7de; border-radius: 6px; }
.header { background: #f6f8fa; border-bottom: 1px solid #d0d7de; padding: 8px 16px;
  font: 14px -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; color: #59636e; }
.header b { color: #1f2328; }
.markdown-body { padding: 16px; font: 14px/1.5 -apple-system, "Segoe UI", "Noto Sans",
  "DejaVu Sans", Helvetica, Arial, sans-serif; color: #1f2328; word-wrap: break-word; }
.markdown-body > :first-child { margin-top: 0 !important; }
.markdown-body h1, .markdown-body h2, .markdown-body h3 { font-weight: 600; line-height: 1.25;
  margin: 24px 0 16px; }
.markdown-body h2 { font-size: 1.5em; padding-bottom: .3em; border-bottom: 1px solid #d1d9e0b3; }
.markdown-body h3 { font-size: 1.25em; }
.markdown-body p, .markdown-body ul, .markdown-body table, .markdown-body details,
.markdown-body blockquote { margin: 0 0 16px; }
.markdown-body a { color: #0969da; text-decoration: none; }
.markdown-body code { padding: .2em .4em; font-size: 85%; background: #818b981f;
  border-radius: 6px; font-family: ui-monospace, "DejaVu Sans Mono", monospace; }
.markdown-body table { border-spacing: 0; border-collapse: collapse; display: block;
  width: max-content; max-width: 100%; overflow: auto; }
.markdown-body th { font-weight: 600; }
.markdown-body th, .markdown-body td { padding: 6px 13px; border: 1px solid #d1d9e0; }
.markdown-body tr { background: #ffffff; border-top: 1px solid #d1d9e0b3; }
.markdown-body tr:nth-child(2n) { background: #f6f8fa; }
.markdown-body summary { cursor: pointer; }
""".replace("WIDTH", str(COMMENT_WIDTH))


def comment_page(markdown: str) -> str:
    """An HTML page showing ``markdown`` as a pull-request comment on github.com."""
    from lxml import html

    body = html.tostring(gfm(markdown), encoding="unicode")
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        f"<style>{_STYLE}</style></head><body><div class='comment'>"
        "<div class='header'><b>github-actions</b> bot commented</div>"
        f"<div class='markdown-body'>{body}</div></div></body></html>"
    )
