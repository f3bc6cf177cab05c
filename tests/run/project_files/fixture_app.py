"""Python targets for goldgate's run tests, copied into each test project: ``payload.mode``
chooses what a call does, and every call appends a line to ``calls.log`` beside this file."""

import asyncio
import json
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
    if mode == "nonobject":
        return [1, 2, 3]
    if mode == "marker":
        (ROOT / payload["marker"]).write_text(str(call), encoding="utf-8")
    if mode in ("sleep", "slow_ok", "marker"):
        await asyncio.sleep(float(payload.get("seconds", 30)))
    if mode == "inverse":
        # Calls start in attempt order; the first sleeps longest, so later ones finish first.
        await asyncio.sleep((int(payload["total"]) - call + 1) * float(payload["step"]))
    _COUNTS["finished"] += 1
    return _document(payload, call, _COUNTS["finished"])


def handle_sync(request):
    payload = request["envelope"]["payload"]
    _log(payload)
    if payload.get("mode") == "sleep":
        time.sleep(float(payload.get("seconds", 30)))
    return _document(payload, 0, 0)


async def boom_scorer(actual, expected):
    raise KeyError("scorer exploded")


async def casefold_scorer(actual, expected):
    return isinstance(actual, str) and actual.casefold() == str(expected).casefold()
