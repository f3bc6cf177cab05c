"""Judges at run time (docs/judges.md): each judge's workflow target, built the one way
every workflow's target is (``live.workflow_target``: its retries, rate limit, pricing and
the run's cache), asked about each answer that still waits for a person.

``JudgeBench.review`` takes an attempt's checks after recorded human verdicts were applied
(a human verdict always wins and is never sent to a judge) and asks the judge each check's
expectation names, with the envelope ``{"payload": {"rubric", "note", "input", "answer"},
"metadata": {"judge", "revision"}}``. The answer is data: it reaches the judge only as the
envelope's ``answer``, and nothing in it chooses the judge, the rubric or how the verdict is
read (``scoring.judges.parse_verdict``). Whether the verdict decides the check is the
judge's standing (``scoring.judges.standing``), read once from its calibration record.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from goldgate.base.errors import InvalidInputError
from goldgate.gold.compiled import CompiledExpectation
from goldgate.gold.settings.models import JudgeSettings
from goldgate.gold.shapes import note_of
from goldgate.report.records import JudgeStandingRecord
from goldgate.run.errors import TargetFailure
from goldgate.run.targets.base import Target, TargetRequest
from goldgate.scoring.judges import JudgeOutcome, Standing, judged, parse_verdict, standing
from goldgate.scoring.outcomes import CheckOutcome

if TYPE_CHECKING:
    from goldgate.gold.settings.load import LoadedSettings
    from goldgate.run.limits import RunOptions
    from goldgate.run.live.cache import ResponseCache

__all__ = [
    "Judge",
    "JudgeBench",
    "JudgeCall",
    "judge_bench",
    "judge_envelope",
    "require_credentials",
]


@dataclass(frozen=True)
class Judge:
    """One judge as a run asks it: its settings, standing and workflow's target."""

    name: str
    settings: JudgeSettings
    standing: Standing
    target: Target


@dataclass(frozen=True)
class JudgeCall:
    """One answer a judge was asked about: what it said, and what asking it cost."""

    verdict: str | None
    reason: str | None
    cost: float | None = None
    cached: bool = False


def judge_envelope(
    judge: str, settings: JudgeSettings, *, note: str | None, envelope: Any, answer: str
) -> dict[str, Any]:
    """The envelope a judge's workflow is called with."""
    return {
        "payload": {
            "rubric": settings.rubric,
            "note": note,
            "input": envelope,
            "answer": answer,
        },
        "metadata": {"judge": judge, "revision": settings.revision},
    }


async def ask(judge: Judge, *, note: str | None, envelope: Any, answer: str) -> JudgeCall:
    """The judge's verdict on ``answer``; a call that fails is no verdict, its reason the
    failure's (a safe sentence)."""
    request = TargetRequest(
        judge.settings.workflow,
        None,
        None,
        judge_envelope(judge.name, judge.settings, note=note, envelope=envelope, answer=answer),
    )
    try:
        response = await judge.target(request)
    except TargetFailure as failure:
        return JudgeCall(None, f"the judge's call failed: {failure.reason}")
    payload = response.document.get("payload")
    text = payload.get("answer") if isinstance(payload, Mapping) else None
    if not isinstance(text, str):
        return JudgeCall(None, "the judge's answer has no text at /payload/answer", response.cost)
    read = parse_verdict(text)
    return JudgeCall(read.verdict, read.reason or None, response.cost, response.cached)


@dataclass
class JudgeBench:
    """The run's judges by name, and what asking them cost so far."""

    judges: Mapping[str, Judge]
    requests: int = 0
    cached: int = 0
    cost: float | None = None
    warnings: list[str] = field(default_factory=list)

    def records(self) -> tuple[JudgeStandingRecord, ...]:
        """Each judge as the report's header records it."""
        found = []
        for judge in self.judges.values():
            record = judge.standing.record
            found.append(
                JudgeStandingRecord(
                    name=judge.name,
                    revision=judge.settings.revision,
                    standing=judge.standing.name,
                    why=judge.standing.why,
                    verdicts=None if record is None else record.verdicts,
                    kappa=None if record is None else record.kappa,
                    kappa_ci95=None if record is None else record.kappa_ci95,
                    record_revision=None if record is None else record.revision,
                )
            )
        return tuple(found)

    def standings(self) -> list[str]:
        """One sentence for each judge that only suggests: why (``stale`` among them), and
        what its verdicts did: the checks wait for a person."""
        return [
            f"{judge.standing.why}; its verdicts are suggestions and the checks it reviews "
            "wait for a human verdict"
            for judge in self.judges.values()
            if not judge.standing.decides
        ]

    async def review(
        self,
        checks: Sequence[CheckOutcome],
        compiled: Sequence[CompiledExpectation],
        envelope: Any,
    ) -> tuple[tuple[CheckOutcome, ...], float | None]:
        """``checks`` with each that waits for a person and names a judge reviewed by it,
        and the cost of the judges' calls for this attempt (None: none priced)."""
        found: list[CheckOutcome] = []
        spent: float | None = None
        for expectation, check in zip(compiled, checks, strict=True):
            judge = None if expectation.judge is None else self.judges.get(expectation.judge)
            if judge is None or not check.adjudication or not isinstance(check.actual, str):
                found.append(check)
                continue
            call = await ask(
                judge,
                note=note_of(expectation.expected),
                envelope=envelope,
                answer=check.actual,
            )
            self.requests += not call.cached
            self.cached += call.cached
            if call.cost is not None:
                spent = (spent or 0.0) + call.cost
                self.cost = (self.cost or 0.0) + call.cost
            verdict = call.verdict if call.verdict in ("pass", "fail") else None
            outcome = JudgeOutcome(
                name=judge.name,
                revision=judge.settings.revision,
                verdict="pass" if verdict == "pass" else ("fail" if verdict else None),
                decided=judge.standing.decides,
                reason=call.reason,
            )
            found.append(judged(check, outcome))
        return tuple(found), spent


def require_credentials(
    settings: LoadedSettings, names: Sequence[str], environ: Mapping[str, str], outcome: str
) -> None:
    """Every credential of the workflows of judges ``names``, or ``InvalidInputError``
    naming the first one missing (never its value), ending with ``outcome``."""
    for name in names:
        workflow = settings.settings.judges[name].workflow
        for variable in settings.workflows[workflow].credentials:
            if not environ.get(variable):
                raise InvalidInputError(
                    f"judge {name}'s workflow '{workflow}' needs the environment variable "
                    f"{variable}, which is not set; {outcome}."
                )


def judge_bench(
    settings: LoadedSettings,
    options: RunOptions,
    environ: Mapping[str, str],
    cache: ResponseCache | None,
    targets: dict[str, Target],
) -> JudgeBench:
    """The judges of an authorized (``--live``) run: each with its standing (its calibration
    record read now) and its workflow's target, built and loaded once per workflow (shared
    with ``targets``, the run's targets by workflow, to which it adds). A missing credential
    of a judge's workflow is ``InvalidInputError`` before anything runs, naming it."""
    from goldgate.gold.judges import read_record, record_path
    from goldgate.run.live import workflow_target

    judges: dict[str, Judge] = {}
    require_credentials(settings, list(settings.settings.judges), environ, "nothing was run")
    for name, judge in settings.settings.judges.items():
        workflow = settings.workflows[judge.workflow]
        target = targets.get(judge.workflow)
        if target is None:
            target = workflow_target(settings, workflow, options, environ, cache)
            target.load()
            targets[judge.workflow] = target
        record = read_record(record_path(settings.project_root, name))
        judges[name] = Judge(name, judge, standing(name, judge, record), target)
    return JudgeBench(judges)
