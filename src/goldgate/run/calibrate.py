"""A judge asked about answers people decided, for ``goldgate judge calibrate``: through
its workflow's target, built the one way every workflow's target is
(``live.workflow_target``: its retries, rate limit, pricing and ``--cache``), each call
under the run options' deadline."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import anyio

from goldgate.gold.settings.load import LoadedSettings
from goldgate.run.judges import Judge, JudgeCall, ask
from goldgate.run.limits import DEFAULT_OPTIONS
from goldgate.scoring.judges import standing

__all__ = ["Asked", "run_judge"]


class _Answer(Protocol):
    @property
    def note(self) -> str | None: ...
    @property
    def envelope(self) -> Any: ...
    @property
    def answer(self) -> str: ...


@dataclass(frozen=True)
class Asked:
    """What a judge said of each answer, in order (None: no verdict), and what it cost."""

    verdicts: tuple[str | None, ...]
    requests: int
    cached: int
    cost: float | None


def run_judge(
    settings: LoadedSettings,
    name: str,
    answers: Sequence[_Answer],
    *,
    environ: Mapping[str, str],
    cache: Path | None,
) -> Asked:
    """Ask judge ``name`` about each of ``answers`` (see the module docstring)."""
    if not answers:
        return Asked((), 0, 0, None)
    return anyio.run(_ask_all, settings, name, answers, environ, cache)


async def _ask_all(
    settings: LoadedSettings,
    name: str,
    answers: Sequence[_Answer],
    environ: Mapping[str, str],
    cache_folder: Path | None,
) -> Asked:
    from goldgate.run.live import workflow_target
    from goldgate.run.session import response_cache

    judge_settings = settings.settings.judges[name]
    workflow = settings.workflows[judge_settings.workflow]
    cache = response_cache(cache_folder, environ)
    target = workflow_target(settings, workflow, DEFAULT_OPTIONS, environ, cache)
    target.load()
    judge = Judge(name, judge_settings, standing(name, judge_settings, None), target)
    calls: list[JudgeCall] = []
    try:
        for item in answers:
            with anyio.move_on_after(DEFAULT_OPTIONS.timeout) as scope:
                calls.append(
                    await ask(judge, note=item.note, envelope=item.envelope, answer=item.answer)
                )
            if scope.cancelled_caught:
                calls.append(JudgeCall(None, "the judge did not answer in time"))
    finally:
        await target.aclose()
    priced = [call.cost for call in calls if call.cost is not None]
    return Asked(
        tuple(call.verdict for call in calls),
        sum(not call.cached for call in calls),
        sum(call.cached for call in calls),
        sum(priced) if priced else None,
    )
