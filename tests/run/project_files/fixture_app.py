"""Python targets for goldgate's run tests, copied into each test project: ``payload.mode``
chooses what a call does, and every call appends a line to ``calls.log`` beside this file."""

import asyncio
import json
import os
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent
_COUNTS = {"calls": 0, "finished": 0}


def _log(payload):
    with open(ROOT / "calls.log", "a", encoding="utf-8") as handle:
        handle.write(json.dumps({"mode": payload.get("mode"), "tag": payload.get("tag")}) + "\n")


def _document(payload, call, finished):
    return {
        "execution": {"status": payload.get("status", "completed")},
        "payload": {
            "category": payload.get("category", "billing"),
            "echo": payload.get("echo"),
            "call": call,
            "finished": finished,
        },
    }


async def handle(request):
    _COUNTS["calls"] += 1
    call = _COUNTS["calls"]
    payload = request["envelope"]["payload"]
    _log(payload)
    mode = payload.get("mode", "ok")
    if mode == "raise":
        raise ValueError("the application broke: " + str(payload.get("echo")))
    if mode == "leak":
        # An application that puts a credential into its answer and its error messages.
        secret = os.environ.get(payload["variable"], "")
        if payload.get("raise"):
            raise ValueError(f"refused for key {secret}")
        payload = {**payload, "category": f"key {secret} (json: {json.dumps(secret)})"}
    if mode == "nonobject":
        return [1, 2, 3]
    if mode == "print":
        _print_everywhere(payload)
    if mode == "thread":
        # A non-daemon thread that outlives the run by far.
        threading.Thread(target=time.sleep, args=(60,)).start()
    if mode == "executor":
        # A blocking call in the event loop's default executor, abandoned unawaited.
        asyncio.get_running_loop().run_in_executor(None, time.sleep, 60)
    if mode == "marker":
        (ROOT / payload["marker"]).write_text(str(call), encoding="utf-8")
    if mode in ("sleep", "slow_ok", "marker"):
        await asyncio.sleep(float(payload.get("seconds", 30)))
    if mode == "inverse":
        # Calls start in attempt order; the first sleeps longest, so later ones finish first.
        await asyncio.sleep((int(payload["total"]) - call + 1) * float(payload["step"]))
    _COUNTS["finished"] += 1
    return _document(payload, call, _COUNTS["finished"])


def _print_everywhere(payload):
    """What a chatty application writes with ``print`` and, unless ``python_only``, what a C
    extension or a child process writes to file descriptor 1."""
    secret = os.environ.get("GG_PLANTED", "")
    print(f"print from the target {secret}")
    sys.stdout.flush()
    if not payload.get("python_only"):
        os.write(1, f"fd 1 from the target {secret}\n".encode())


def handle_sync(request):
    payload = request["envelope"]["payload"]
    _log(payload)
    if payload.get("mode") == "print":
        _print_everywhere(payload)
    if payload.get("mode") == "sleep":
        time.sleep(float(payload.get("seconds", 30)))
    return _document(payload, 0, 0)


async def boom_scorer(actual, expected):
    raise KeyError("scorer exploded")


async def printing_scorer(actual, expected):
    print("print from the scorer", os.environ.get("GG_PLANTED", ""))
    os.write(1, f"fd 1 from the scorer {os.environ.get('GG_PLANTED', '')}\n".encode())
    return True


async def casefold_scorer(actual, expected):
    return isinstance(actual, str) and actual.casefold() == str(expected).casefold()
