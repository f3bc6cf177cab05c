"""What a golden file holds: a renderer of the registry (``render.registry.RENDERERS``) over
a context, rendered the one way every command renders (``app.render.render``). The golden
tests enumerate the registry through these, so a renderer added to it without a golden file
fails a test."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from goldgate.app.render import render
from goldgate.render.registry import RENDERERS, RenderContext

from .htmloutline import outline


def _as_it_is(text: str) -> str:
    return text


@dataclass(frozen=True)
class Rendering:
    """One golden file's rendering: the renderer ``renderer`` over ``context``, and what of
    its text the file keeps (``shown``: the HTML page's outline, not its bytes)."""

    renderer: str
    shown: Callable[[str], str] = _as_it_is

    def text(self, context: RenderContext) -> str:
        return self.shown(render(self.renderer, context))


def page(text: str) -> str:
    """The HTML page's structure (htmloutline), not its bytes: the figures' geometry, the
    style and the script may change without a golden file changing."""
    return outline(text)


def without_golden_files(renderings: Iterable[Rendering]) -> list[str]:
    """The registered renderers no golden file renders."""
    used = {rendering.renderer for rendering in renderings}
    return sorted(set(RENDERERS) - used)
