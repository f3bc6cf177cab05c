"""The renderers are pure: nothing in goldgate.render imports the network (GitHub, urllib,
HTTP clients) or the parts of goldgate that run targets. Checked twice: by reading every
module's imports, and by importing them all in a fresh interpreter."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import goldgate.render

RENDER = Path(goldgate.render.__file__).parent
FORBIDDEN = (
    "github",
    "urllib",
    "http",
    "socket",
    "ssl",
    "requests",
    "httpx",
    "aiohttp",
    "anyio",
    "goldgate.github",
    "goldgate.run",
    "goldgate.run.session",
    "goldgate.run.api",
    "goldgate.app",
    "goldgate.cli",
)
NETWORK_MODULES = (
    "github",
    "goldgate.github",
    "urllib.request",
    "http.client",
    "requests",
    "httpx",
    "aiohttp",
    "goldgate.run",
    "goldgate.run.session",
)


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_render_modules_import_nothing_that_talks_to_the_network() -> None:
    modules = sorted(RENDER.glob("*.py"))
    assert {m.stem for m in modules} >= {
        "junit",
        "markdown",
        "annotations",
        "terminal",
        "view",
        "html",
    }
    for module in modules:
        for name in _imports(module):
            hit = [f for f in FORBIDDEN if name == f or name.startswith(f + ".")]
            assert hit == [], f"{module.name} imports {name}"


def test_importing_every_renderer_loads_no_network_module() -> None:
    code = (
        "import sys\n"
        "import goldgate.render.junit, goldgate.render.markdown, goldgate.render.annotations\n"
        "import goldgate.render.terminal, goldgate.render.view, goldgate.render.escape\n"
        "import goldgate.render.html\n"
        "import goldgate.render.markdown as m; m.environment()\n"
        f"print(sorted(n for n in {NETWORK_MODULES!r} if n in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )

    assert result.stdout.strip() == "[]"


def test_templates_ship_with_the_package() -> None:
    templates = sorted(p.name for p in (RENDER / "templates").glob("*.j2"))
    assert templates == [
        "page.css.j2",
        "page.html.j2",
        "page.js.j2",
        "page_figures.html.j2",
        "report.md.j2",
        "sections.md.j2",
    ]


def test_templates_are_package_data(repo_root: Path) -> None:
    import tomllib

    pyproject = tomllib.loads((repo_root / "pyproject.toml").read_text(encoding="utf-8"))
    data = pyproject["tool"]["setuptools"]["package-data"]["goldgate"]
    assert "render/templates/*.j2" in data
