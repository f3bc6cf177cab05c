"""Stdout is safe: counts, verdicts and the report path, never inputs, outputs, expected
values or credentials, in text and JSON summaries alike. The report keeps the private detail,
except header values, which are stored nowhere."""

from __future__ import annotations

import json

import pytest

from .support import STATUS_OK, HttpApp, Project, attempt_of, case, expect, suite_of

SECRET = "SECRET-7d1e"
HEADER_VALUE = "HDR-VALUE-93ac"


@pytest.mark.parametrize("output_format", ["text", "json"])
def test_secrets_stay_out_of_stdout_and_stderr(
    project: Project, http_app: HttpApp, output_format: str
) -> None:
    http_app.server.expected_key = "Key " + HEADER_VALUE
    project.workflows["web"] = {
        "revision": "web-1",
        "target": {
            "http": {
                "url": http_app.url,
                "headers": {"X-Api-Key": {"env": "GG_API_KEY", "prefix": "Key "}},
            }
        },
    }
    echo = f"{SECRET}-input"
    same = expect("echo", "/payload/echo", echo)
    differs = expect("expected", "/payload/echo", f"{SECRET}-expected-only")
    authorized = expect("authorized", "/payload/authorized", True)
    project.suite(
        "python",
        "py",
        [
            case("kept", "ok", STATUS_OK, same, echo=echo),
            case("disagrees", "ok", same, differs, echo=echo, note=f"{SECRET}-note"),
            case("raises", "raise", same, echo=echo),
        ],
    )
    project.suite("command", "cmd", [case("cmd", "ok", same, echo=echo)])
    project.suite("web", "web", [case("web", "ok", same, authorized, echo=echo)]).write()

    result, report = project.evaluate("--format", output_format, env={"GG_API_KEY": HEADER_VALUE})
    assert result.code == 4, result.stderr
    for secret in (SECRET, HEADER_VALUE):
        assert secret not in result.stdout
        assert secret not in result.stderr

    # The safe summary itself: names, counts, verdict, the report path.
    if output_format == "json":
        summary = json.loads(result.stdout)
        assert set(summary) == {
            "dataset",
            "revision",
            "fingerprint",
            "complete",
            "verdict",
            "suites",
            "report",
        }
        assert summary["report"] == "out/report.json"
        assert summary["verdict"]["exit_code"] == 4
        assert [s["name"] for s in summary["suites"]] == ["python", "command", "web"]
        python = summary["suites"][0]
        assert python["counts"]["checks"] == {"passed": 3, "failed": 1, "error": 0, "not_run": 1}
    else:
        assert result.stdout.splitlines()[-2:] == [
            "verdict: runtime failure (exit 4)",
            "report: out/report.json",
        ]

    # The report holds the private detail...
    assert report is not None
    kept = attempt_of(report, "python", "kept")
    assert kept["input"]["payload"]["echo"] == echo
    assert kept["result"]["payload"]["echo"] == echo
    assert kept["checks"][1]["actual"] == echo
    assert kept["checks"][1]["expected"] == echo
    disagrees = attempt_of(report, "python", "disagrees")
    assert disagrees["checks"][1]["expected"] == f"{SECRET}-expected-only"
    assert disagrees["checks"][1]["outcome"] == "failed"
    assert disagrees["input"]["payload"]["note"] == f"{SECRET}-note"
    assert attempt_of(report, "command", "cmd")["result"]["payload"]["echo"] == echo
    web = attempt_of(report, "web", "web")
    assert [c["outcome"] for c in web["checks"]] == ["passed", "passed"]  # the header arrived
    assert web["result"]["payload"]["authorized"] is True
    assert suite_of(report, "web")["target"]["identity"] == {
        "kind": "http",
        "url": http_app.url,
        "headers": ["X-Api-Key"],
    }
    # ...but no reason repeats it, and the header value is nowhere in the file.
    raises = attempt_of(report, "python", "raises")
    assert raises["reason"] == "python target raised ValueError"
    text = project.output().read_text("utf-8")
    assert HEADER_VALUE not in text
    assert SECRET in text
    for suite in report["suites"]:
        for attempt in suite["attempts"]:
            assert SECRET not in (attempt["reason"] or "")
            for check in attempt["checks"]:
                assert SECRET not in (check["reason"] or "")
    # What the server got carried the envelope (so the secret did travel to the target).
    assert http_app.calls[0]["request"]["envelope"]["payload"]["echo"] == echo
