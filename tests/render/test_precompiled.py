"""The renderers' templates compiled ahead (``render._jinja``, ``render/_precompiled.py``):
the code shipped is the code Jinja generates now, it is what the renderers load (no template
compiled at a run), and a template whose source or settings differ from what the code was
generated from is compiled as before."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jinja2
import pytest

from goldgate.render import _precompiled, html, markdown, precompile
from goldgate.render.precompile import kind_of

SCRIPT = "scripts/precompile_templates.py"


def test_the_code_shipped_is_the_code_jinja_generates_now() -> None:
    shipped = Path(_precompiled.__file__).read_text("utf-8")
    assert shipped == precompile.precompiled_module(), (
        f"render/_precompiled.py is stale (a template, its settings or Jinja changed): run "
        f".venv/bin/python {SCRIPT} and commit it"
    )


def _fresh() -> list[tuple[jinja2.Environment, tuple[str, ...]]]:
    """Each renderer's environment made anew (theirs are cached), with its templates: every
    file of the templates folder, by the renderer that loads it."""
    folder = Path(html.__file__).parent / "templates"
    names = sorted(path.name for path in folder.glob("*.j2"))
    return [
        (renderer.environment.__wrapped__(), tuple(n for n in names if kind_of(n) == kind))
        for renderer, kind in ((html, "html"), (markdown, "markdown"))
    ]


def test_the_renderers_load_their_templates_without_compiling_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refused(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a template was compiled")

    made = _fresh()
    monkeypatch.setattr(jinja2.Environment, "compile", refused)
    for environment, names in made:
        for name in names:
            assert environment.get_template(name).name == name


@pytest.mark.parametrize("changed", ["source", "settings"])
def test_a_template_changed_since_is_compiled_as_before(changed: str) -> None:
    [(environment, _), _] = _fresh()
    loader = environment.loader
    assert loader is not None
    source, filename, _ = loader.get_source(environment, "page.css.j2")
    cache = environment.bytecode_cache
    assert cache is not None
    assert cache.get_bucket(environment, "page.css.j2", filename, source).code is not None
    if changed == "source":
        source += "\n/* edited */"
    else:
        environment.trim_blocks = False
    assert cache.get_bucket(environment, "page.css.j2", filename, source).code is None
