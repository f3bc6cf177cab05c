"""The stand-ins' one program: what ``actions/checkout``, ``actions/setup-python``,
``actions/upload-artifact`` and ``actions/download-artifact`` do, enough for goldgate's
example workflows to run under act on a machine that cannot fetch them.

Each stand-in folder (``checkout/``, ``setup-python/``, ...) holds a composite action whose
one step runs ``standin VERB`` (``github-script/`` is a node action of its own, on Node);
tests/helpers/act.py copies the folder for each act run and
puts beside its ``action.yml`` this file, a ``standin`` launcher (the test's Python, or a job
container's ``python3``) and ``standin.json``: the source tree checkout copies (and, in a job
container, the uid that owns the copy), the folder setup-python puts on PATH, and
the fake GitHub (its API address, repository, the runner's own access token, the runtime's
upload token). The tokens live in that file, never in a step's environment: a job's steps
see no token they were not given, as on GitHub.

Only the standard library: it runs on whatever Python launches it.
"""

from __future__ import annotations

import base64
import fnmatch
import glob
import io
import json
import os
import shutil
import sys
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CONFIG: dict[str, Any] = json.loads((HERE / "standin.json").read_text("utf-8"))
# The fake listens on loopback: a proxy of the machine must not be asked for it.
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def main(verb: str) -> int:
    actions = {
        "checkout": checkout,
        "setup-python": setup_python,
        "upload-artifact": upload_artifact,
        "download-artifact": download_artifact,
    }
    return actions[verb]()


def _input(name: str, default: str = "") -> str:
    return os.environ.get("INPUT_" + name.upper().replace("-", "_"), default).strip()


def _flag(name: str) -> bool:
    return _input(name).lower() == "true"


def _workspace() -> Path:
    return Path(os.environ["GITHUB_WORKSPACE"])


def _set_output(name: str, value: str) -> None:
    with open(os.environ["GITHUB_OUTPUT"], "a", encoding="utf-8") as out:
        out.write(f"{name}={value}\n")


def checkout() -> int:
    target = _workspace() / _input("path")
    shutil.copytree(CONFIG["source"], target, symlinks=True, dirs_exist_ok=True)
    owner = CONFIG.get("owner")
    if owner is not None:  # in a job container, where the step runs as root
        for path in [target, *target.rglob("*")]:
            os.lchown(path, owner, owner)
    print(f"checked out {CONFIG['source']} into {target}")
    return 0


def setup_python() -> int:
    folder = Path(CONFIG["python_bin"])
    python = folder / "python"
    with open(os.environ["GITHUB_PATH"], "a", encoding="utf-8") as path:
        path.write(f"{folder}\n")
    version = ".".join(str(part) for part in sys.version_info[:3])
    _set_output("python-path", str(python))
    _set_output("python-version", version)
    print(f"{python} first on PATH (python-version {_input('python-version')!r} asked)")
    return 0


# --- artifacts ------------------------------------------------------------------------------


def upload_artifact() -> int:
    name = _input("name", "artifact") or "artifact"
    files = _found(_input("path").splitlines(), hidden=_flag("include-hidden-files"))
    if not files:
        message = f"No files were found with the provided path: {_input('path')}."
        behaviour = _input("if-no-files-found", "warn") or "warn"
        if behaviour == "error":
            print(f"::error::{message} No artifacts will be uploaded.")
            return 1
        if behaviour == "warn":
            print(f"::warning::{message} No artifacts will be uploaded.")
        else:
            print(message)
        return 0
    root = Path(os.path.commonpath([str(f.parent) for f in files]))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for file in files:
            archive.write(file, file.relative_to(root).as_posix())
    body = {
        "name": name,
        "run_id": int(os.environ["GITHUB_RUN_ID"]),
        "head_sha": _head_sha(),
        "head_branch": _head_branch(),
        "zip_base64": base64.b64encode(buffer.getvalue()).decode("ascii"),
    }
    request = urllib.request.Request(
        CONFIG["root"] + "/_runtime/artifacts",
        data=json.dumps(body).encode("utf-8"),
        method="POST",
        headers={
            "Authorization": f"Bearer {CONFIG['runtime_token']}",
            "Content-Type": "application/json",
        },
    )
    try:
        with OPENER.open(request, timeout=30) as answer:
            stored = json.load(answer)
    except urllib.error.HTTPError as error:
        print(f"::error::upload of {name} refused: {error.code} {error.read()!r}")
        return 1
    print(f"uploaded {len(files)} file(s) as {name} (artifact {stored['id']})")
    _set_output("artifact-id", str(stored["id"]))
    _set_output("artifact-url", stored["url"])
    return 0


def _found(lines: list[str], *, hidden: bool) -> list[Path]:
    """The files the ``path`` lines name, as upload-artifact finds them: globs, folders
    taken whole, ``!`` lines excluding, dot-named files and folders only with ``hidden``."""
    workspace = _workspace()
    chosen: dict[Path, None] = {}
    excluded: list[str] = []
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        if line.startswith("!"):
            excluded.append(str(workspace / line[1:]))
            continue
        pattern = line if os.path.isabs(line) else str(workspace / line)
        for match in sorted(glob.glob(pattern, recursive=True, include_hidden=hidden)):
            path = Path(match)
            inside = sorted(path.rglob("*")) if path.is_dir() else [path]
            for file in inside:
                if file.is_file() and (hidden or not _is_hidden(file, path)):
                    chosen[file.resolve()] = None
    return [f for f in chosen if not any(fnmatch.fnmatch(str(f), e) for e in excluded)]


def _is_hidden(file: Path, top: Path) -> bool:
    """Whether the match ``top`` or anything between it and ``file`` is dot-named (a
    dot-named folder named outright holds no files to upload, as upload-artifact finds)."""
    return any(part.startswith(".") for part in file.relative_to(top.parent).parts)


def _event() -> dict[str, Any]:
    path = os.environ.get("GITHUB_EVENT_PATH", "")
    if not path or not os.path.isfile(path):
        return {}
    value = json.loads(Path(path).read_text("utf-8"))
    return value if isinstance(value, dict) else {}


def _head_sha() -> str:
    """The commit a run's artifacts are of: a pull request's head, as GitHub records its
    workflow runs, else the commit the run is for."""
    pull = _event().get("pull_request") or {}
    return str((pull.get("head") or {}).get("sha") or os.environ["GITHUB_SHA"])


def _head_branch() -> str:
    return os.environ.get("GITHUB_HEAD_REF") or os.environ.get("GITHUB_REF_NAME", "")


def download_artifact() -> int:
    run_id = _input("run-id")
    token = _input("github-token")
    if run_id and not token:
        print("::error::run-id needs github-token")
        return 1
    token = token or CONFIG["token"]  # this run's artifacts: the runner's own access
    repository = _input("repository") or os.environ["GITHUB_REPOSITORY"]
    run = run_id or os.environ["GITHUB_RUN_ID"]
    listing = _api(f"/repos/{repository}/actions/runs/{run}/artifacts?per_page=100", token)
    artifacts = listing["artifacts"]
    name, pattern = _input("name"), _input("pattern")
    if name:
        artifacts = [a for a in artifacts if a["name"] == name]
        if not artifacts:
            print(f"::error::Artifact not found for name: {name}")
            return 1
    elif pattern:
        artifacts = [a for a in artifacts if fnmatch.fnmatchcase(a["name"], pattern)]
    target = _workspace() / _input("path")
    together = bool(name) or _flag("merge-multiple")
    for artifact in artifacts:
        folder = target if together else target / artifact["name"]
        folder.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(io.BytesIO(_archive(artifact, token))) as archive:
            archive.extractall(folder)
        print(f"downloaded {artifact['name']} (artifact {artifact['id']}) into {folder}")
    _set_output("download-path", str(target))
    return 0


def _api(path: str, token: str) -> Any:
    request = urllib.request.Request(CONFIG["api_url"] + path)
    request.add_unredirected_header("Authorization", f"Bearer {token}")
    request.add_header("Accept", "application/vnd.github+json")
    with OPENER.open(request, timeout=30) as answer:
        return json.load(answer)


def _archive(artifact: dict[str, Any], token: str) -> bytes:
    """The archive through its download address: the API answers 302 to the storage host,
    which gets no token (add_unredirected_header keeps it off the redirect)."""
    request = urllib.request.Request(artifact["archive_download_url"])
    request.add_unredirected_header("Authorization", f"Bearer {token}")
    with OPENER.open(request, timeout=30) as answer:
        data: bytes = answer.read()
        return data


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
