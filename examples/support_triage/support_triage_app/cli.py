"""The command target: the request as JSON on stdin, the result document as JSON on stdout."""

from __future__ import annotations

import json
import sys

from support_triage_app.app import handle


def main() -> int:
    request = json.load(sys.stdin)
    json.dump(handle(request), sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
