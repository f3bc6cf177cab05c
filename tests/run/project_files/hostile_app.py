"""Hostile python targets and scorers for the hardening tests: ``payload.mode`` chooses how
a call misbehaves; ``ok`` answers like ``fixture_app.handle``."""

import os
import signal
import time


class Weird(BaseException):
    pass


def _document(payload):
    return {"execution": {"status": "completed"}, "payload": {"category": "billing"}}


async def handle(request):
    payload = request["envelope"]["payload"]
    mode = payload.get("mode", "ok")
    if mode == "exit":
        raise SystemExit(payload.get("code", 0))
    if mode == "keyboard":
        raise KeyboardInterrupt
    if mode == "generator_exit":
        raise GeneratorExit
    if mode == "base":
        raise Weird()
    if mode == "block":  # an async target that never yields: the event loop is stuck
        time.sleep(float(payload.get("seconds", 30)))
    if mode == "spin":
        until = time.monotonic() + float(payload.get("seconds", 30))
        while time.monotonic() < until:
            pass
    if mode == "stubborn":  # blocks, and keeps every signal from reaching Python
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1, signal.SIGINT, signal.SIGTERM})
        time.sleep(float(payload.get("seconds", 30)))
    if mode == "bigint":
        return {"execution": {"status": "completed"}, "payload": {"n": 10**5000}}
    if mode == "set":
        return {"execution": {"status": "completed"}, "payload": {"n": {1, 2}}}
    if mode == "pid":
        return {"execution": {"status": "completed"}, "payload": {"pid": os.getpid()}}
    return _document(payload)


def handle_sync(request):
    payload = request["envelope"]["payload"]
    if payload.get("mode") == "exit":
        raise SystemExit(3)
    return _document(payload)


async def exiting_scorer(actual, expected):
    raise SystemExit(0)


async def blocking_scorer(actual, expected):
    time.sleep(30)
    return True
