"""A command target for goldgate's run tests, copied into each test project: ``payload.mode``
chooses what a call does, and every call appends a line to ``calls.log`` beside this file."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent

request = json.load(sys.stdin)
payload = request["envelope"]["payload"]
mode = payload.get("mode", "ok")
with open(ROOT / "calls.log", "a", encoding="utf-8") as handle:
    handle.write(json.dumps({"mode": mode, "tag": payload.get("tag")}) + "\n")
document = {
    "execution": {"status": "completed"},
    "payload": {"category": payload.get("category", "billing"), "echo": payload.get("echo")},
}
if mode == "ok":
    sys.stderr.write("cmd: working\n")
    print(json.dumps(document))
elif mode == "exit":
    sys.stderr.write("HEAD-OF-STDERR\n" + "x" * 200_000 + "\nTAIL-OF-STDERR\n")
    sys.stderr.flush()
    sys.exit(3)
elif mode == "nonjson":
    print("this is not json {")
elif mode == "huge":
    document["payload"]["blob"] = "y" * 50_000
    print(json.dumps(document))
elif mode == "array":
    print("[1, 2, 3]")
elif mode == "hang":
    # A grandchild too: the whole process group must be gone after the deadline.
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    pids = ROOT / payload["pids"]
    pids.with_suffix(".tmp").write_text(f"{os.getpid()} {child.pid}")
    os.replace(pids.with_suffix(".tmp"), pids)
    time.sleep(60)
elif mode == "orphan":
    # A grandchild in a session of its own (out of reach of the group kill) that keeps the
    # command's pipes open and outlives it; the command answers at once, or with ``hang``
    # never.
    nap = f"import time; time.sleep({float(payload.get('seconds', 3))})"
    child = subprocess.Popen([sys.executable, "-c", nap], start_new_session=True)
    pids = ROOT / payload["pids"]
    pids.with_suffix(".tmp").write_text(str(child.pid))
    os.replace(pids.with_suffix(".tmp"), pids)
    if payload.get("hang"):
        time.sleep(60)
    print(json.dumps(document))
