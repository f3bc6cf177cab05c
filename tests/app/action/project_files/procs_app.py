"""A command target for the container tests (the request on stdin, the result on stdout).

``spawn``: start a child (``sleep``, a grandchild of goldgate in the target's process group)
and hang past the deadline, so that goldgate kills the group; the child then dies an orphan.
``census``: report the zombies left in the container (waiting up to 1.5 s for PID 1 to reap
them) and the name of PID 1.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path


def zombies() -> list[str]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        name, _, rest = text.partition(" (")[2].rpartition(")")
        if rest.split()[0] == "Z":
            found.append(name)
    return sorted(found)


def main() -> None:
    action = json.load(sys.stdin)["envelope"]["payload"]["action"]
    if action == "spawn":
        subprocess.Popen(["sleep", "300"])
        time.sleep(300)
    deadline = time.monotonic() + 1.5
    while zombies() and time.monotonic() < deadline:
        time.sleep(0.05)
    pid1 = Path("/proc/1/comm").read_text().strip()
    payload = {"zombies": zombies(), "pid1": pid1}
    print(json.dumps({"execution": {"status": "completed"}, "payload": payload}))


if __name__ == "__main__":
    main()
