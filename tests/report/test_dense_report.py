"""A report dense in small values (a result of millions of tiny numbers or objects) takes far
more memory than its bytes say: it is weighed as such before it is read (docs/report-format.md,
"What reading a report takes") and refused with one sentence, exit 2, under a 512 MB
address-space limit, never a crash (orjson, writing an array again, sets aside about 256
bytes for each element at once and crashes the process where it cannot)."""

from __future__ import annotations

import re
import resource
import subprocess
from pathlib import Path

import pytest

from helpers.reports import read_whole_only
from run.support import GOLDGATE, cli_env

# goldgate processes under an address-space limit; one worker makes its reports once, not each
# worker that draws one of its tests (--dist loadgroup).
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("dense_report")]

LIMIT = 512 * 1024 * 1024

EVAL = """from goldgate.evals import eval

@eval(dataset="d")
def small(ctx):
    ctx.output = "fine"
"""

DENSE = {
    "numbers": lambda: "[" + ",".join(["1"] * (4 << 20)) + "]",  # 8 MB of text
    "objects": lambda: "[" + ",".join(['{"k":"v"}'] * (1 << 20)) + "]",  # 10 MB of text
}
"""Each dense output, made when the module's fixture writes it (not as each worker collects)."""


def _goldgate(*args: str, cwd: Path, limit: int | None = LIMIT) -> subprocess.CompletedProcess[str]:
    def limited() -> None:
        if limit is not None:
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return subprocess.run(
        [*GOLDGATE, *args], cwd=cwd, env=cli_env(), capture_output=True, text=True,
        preexec_fn=limited, timeout=300, check=False,
    )  # fmt: skip


@pytest.fixture(scope="module")
def dense(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A real report (one eval, its output "fine"), and one per ``DENSE`` output."""
    folder = tmp_path_factory.mktemp("dense")
    (folder / "evaluation").mkdir()
    (folder / "evals").mkdir()
    (folder / "evals" / "eval_small.py").write_text(EVAL, "utf-8")
    done = _goldgate("evals", "run", "evals", "--output", "small.json", cwd=folder, limit=None)
    assert done.returncode == 0, done.stdout + done.stderr
    text = (folder / "small.json").read_text("utf-8")
    [output] = re.findall(r'"output": ?"fine"', text)
    paths = {"small": folder / "small.json"}
    for name, make in DENSE.items():
        paths[name] = folder / f"{name}.json"
        paths[name].write_text(text.replace(output, f'"output": {make()}'), "utf-8")
        # The same, as text the stream cannot take: every reader reads it whole.
        paths[f"{name}-whole"] = folder / f"{name}-whole.json"
        paths[f"{name}-whole"].write_bytes(read_whole_only(paths[name].read_bytes()))
    return paths


@pytest.mark.parametrize("name", sorted(DENSE))
def test_a_dense_report_is_refused_in_one_sentence_not_a_crash(
    dense: dict[str, Path], name: str
) -> None:
    """A whole read (of text the stream cannot take; every reader streams the rest, below)
    weighs the report before reading it."""
    path = dense[f"{name}-whole"]
    done = _goldgate("adjudication", "export", path.name, "-o", "queue.jsonl", cwd=path.parent)

    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    [sentence] = done.stderr.strip().splitlines()
    assert sentence.startswith(f"goldgate: {path.name}: too large to read in the memory ")
    assert "holding values as densely as" in sentence


@pytest.mark.parametrize("command", ["merge", "show"])
def test_a_dense_case_is_refused_by_a_streamed_read_too(
    dense: dict[str, Path], command: str
) -> None:
    """A streamed read (``report merge``, and every renderer) weighs its heaviest case."""
    path = dense["numbers"]
    arguments = {"merge": ["--output", "merged.json"], "show": []}[command]
    done = _goldgate("report", command, path.name, *arguments, cwd=path.parent)

    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    [sentence] = done.stderr.strip().splitlines()
    assert re.fullmatch(
        rf"goldgate: {path.name}: a case of [\d.]+ MB is too large to read in the memory .+",
        sentence,
    )
    assert not (path.parent / "merged.json").exists()


def test_a_report_of_ordinary_density_is_read_as_before(dense: dict[str, Path]) -> None:
    path = dense["small"]
    done = _goldgate("report", "show", path.name, cwd=path.parent)
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
