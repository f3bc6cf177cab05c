"""A python target whose module prints when it is imported, as some applications do; it
also sleeps there when ``GG_IMPORT_SLEEP`` is set, so that a test can interrupt preparation."""

import os
import sys
import time
from pathlib import Path

print("print at import", os.environ.get("GG_PLANTED", ""))
sys.stdout.flush()
os.write(1, f"fd 1 at import {os.environ.get('GG_PLANTED', '')}\n".encode())
if os.environ.get("GG_IMPORT_SLEEP"):
    (Path(__file__).resolve().parent / "importing").write_text("yes", encoding="utf-8")
    time.sleep(float(os.environ["GG_IMPORT_SLEEP"]))


async def handle(request):
    return {"execution": {"status": "completed"}, "payload": {"category": "billing"}}
