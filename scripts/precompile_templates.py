"""Write ``src/goldgate/render/_precompiled.py``: the renderers' Jinja templates compiled
ahead (``goldgate.render._jinja``), after a template, its environment's settings or Jinja
changed. tests/render/test_precompiled.py fails while it is stale.

    .venv/bin/python scripts/precompile_templates.py
"""

from __future__ import annotations

from pathlib import Path

from goldgate.render.precompile import precompiled_module

TARGET = Path(__file__).resolve().parents[1] / "src" / "goldgate" / "render" / "_precompiled.py"

if __name__ == "__main__":
    TARGET.write_text(precompiled_module(), "utf-8")
    print(f"wrote {TARGET}")
