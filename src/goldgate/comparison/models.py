"""The comparison: a candidate report against a baseline, versioned, frozen.

``format`` is the first field of every comparison file; field names are the file format
(``docs/comparison-format.md``). Everything here is safe to show: names, ids, counts,
outcome names, rates and digests; never an input, result or expected value.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from goldgate.comparison.spool import Listed
from goldgate.report.records import DatasetRecord, VariantRecord

COMPARISON_FORMAT_VERSION = 1
COMPARISON_FORMAT = f"goldgate.comparison/{COMPARISON_FORMAT_VERSION}"

AttemptClass = Literal["improved", "regressed", "mixed", "gold changed", "unchanged"]
CLASSES: tuple[AttemptClass, ...] = ("improved", "regressed", "mixed", "gold changed", "unchanged")

ChangeClass = Literal["regressed", "mixed", "improved", "flaky", "gold changed", "input changed"]
"""The one classification every consumer reads (the summary, ``--fail-on-regression``, the
action, Markdown, annotations, JUnit, ``report show``)."""
CHANGE_CLASSES: tuple[ChangeClass, ...] = (
    "regressed",
    "mixed",
    "improved",
    "flaky",
    "gold changed",
    "input changed",
)
CaseClass = Literal[
    "regressed", "mixed", "improved", "flaky", "gold changed", "input changed", "unchanged"
]

REPEAT_RULE = (
    "a check regressed when it passed in every attempt before and in none now, or when "
    "Fisher's exact test (one-sided, on its pass counts) gives p < 0.05; improved the other "
    "way round; a case whose checks vary within a run and did neither is flaky"
)
SINGLE_RULE = "a check regressed when it went from passed to failed, error or not run"


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Delta(_Model):
    """A figure on each side and candidate minus baseline; ``None`` where unmeasured."""

    candidate: float | None
    baseline: float | None
    delta: float | None


class ReportRef(_Model):
    """One side: which report, what ran and whether it is a replay."""

    path: str
    digest: str = Field(description="sha256 of the report file's bytes.")
    started_at: str
    dataset: DatasetRecord
    variant: VariantRecord
    replay_of: str | None = Field(
        None, description="For a replay: the digest of the report whose results it re-scored."
    )


class AttemptCounts(_Model):
    """Paired attempts in each class, and what was not classified (never dropped)."""

    improved: int = 0
    regressed: int = 0
    mixed: int = 0
    gold_changed: int = Field(
        0, description="Pairs whose only changed checks changed by gold (a verdict)."
    )
    unchanged: int = 0
    not_compared: int = Field(0, description="Pairs in which either attempt was skipped.")
    candidate_only: int = Field(
        0, description="Attempts of compared cases beyond the baseline's repeats."
    )
    baseline_only: int = Field(
        0, description="Attempts of compared cases beyond the candidate's repeats."
    )


class McNemar(_Model):
    """Exact two-sided McNemar test over the paired attempts: a binomial test of the improved
    against the regressed pairs. Descriptive: it never changes the exit code."""

    improved: int
    regressed: int
    p_value: float


class ExpectationDelta(_Model):
    name: str
    candidate_checks: int
    baseline_checks: int
    pass_rate: Delta


class CountDelta(_Model):
    candidate: int
    baseline: int
    delta: int


class Latency(_Model):
    """Per-attempt latency percentiles (nearest rank) in milliseconds."""

    comparable: bool = Field(description="False when either side is a replay.")
    reason: str | None = None
    p50: Delta
    p95: Delta


class UsageDelta(_Model):
    key: str = Field(description="Dotted path of a numeric leaf of the attempts' usage.")
    mean: Delta = Field(description="Mean per attempt (an attempt without it counts 0).")


class Usage(_Model):
    comparable: bool = Field(description="False when either side is a replay.")
    reason: str | None = None
    figures: tuple[UsageDelta, ...] = ()


class Cost(_Model):
    """What the compared attempts' answers cost on each side, at each side's pricing
    (cached answers count as what they cost). Cost is a maximum to hold, never a gain in
    itself: a threshold on it is a maximum (docs/live.md)."""

    comparable: bool = Field(description="False when either side is a replay.")
    reason: str | None = None
    currency: str | None = Field(description="The sides' currency; None when they differ.")
    total: Delta
    per_attempt: Delta = Field(description="Mean over each side's priced attempts.")


class Figures(_Model):
    """What is compared per suite and overall."""

    attempts: AttemptCounts
    attempt_pass_rate: Delta = Field(description="Attempts whose every check passed.")
    check_pass_rate: Delta = Field(
        description="Passed checks over all checks; error and not_run are not passing."
    )
    mcnemar: McNemar
    expectations: tuple[ExpectationDelta, ...] = Field(
        description="Pass rate per expectation name, in first-seen order."
    )
    runtime_failures: CountDelta = Field(description="Attempts failed or timed out.")
    latency: Latency
    usage: Usage
    cost: Cost | None = Field(None, description="None when neither side's attempts were priced.")
    judge_cost: Delta | None = Field(
        None,
        description="What asking judges cost on each side, apart from the application's "
        "cost; None when neither side priced a judge's call.",
    )


class CheckChange(_Model):
    name: str
    candidate: str | None = Field(description="The outcome; None: no such check on this side.")
    baseline: str | None


class AttemptChange(_Model):
    """An attempt that is not unchanged, with the checks whose passing changed."""

    case_id: str
    attempt: int
    change: AttemptClass
    candidate_status: str
    baseline_status: str
    rescored: bool = Field(
        False, description="The baseline's result was re-scored under the candidate's gold."
    )
    checks: tuple[CheckChange, ...]


class CaseView(_Model):
    """A case over its repeats: passes out of N on each side, and its class in the one
    classification (flaky when a side's attempts disagree and no check's drop or rise is
    told from noise)."""

    case_id: str
    candidate_passes: int
    candidate_attempts: int
    baseline_passes: int
    baseline_attempts: int
    candidate_flaky: bool
    baseline_flaky: bool
    change: CaseClass


def case_change(view: CaseView) -> str:
    """What a suite's case views are counted by (``Listed.counts``): their class."""
    return view.change


class Finding(_Model):
    """One entry of the one classification: an attempt that is not unchanged (a suite run
    once), or a case over its repeats (``attempt`` 0), or a case whose input changed."""

    case_id: str
    attempt: int = Field(ge=0, description="The attempt; 0 for the whole case.")
    change: ChangeClass
    detail: str = Field(
        description="One safe sentence: which checks changed, their pass counts and the test "
        "that decided (names and numbers only)."
    )


def finding_change(finding: Finding) -> str:
    """What a suite's findings are counted by (``Listed.counts``): their class."""
    return finding.change


class Classes(_Model):
    """Counts of the one classification. ``input_changed`` counts cases; the others count
    the units classified: attempts of a suite run once, cases of a suite with ``--repeat``."""

    regressed: int = 0
    mixed: int = 0
    improved: int = 0
    flaky: int = 0
    gold_changed: int = 0
    input_changed: int = 0
    unchanged: int = 0
    not_compared: int = Field(0, description="Units skipped (a live suite) on either side.")

    def count(self, change: str) -> int:
        return int(getattr(self, change.replace(" ", "_")))

    @property
    def regressions(self) -> int:
        """What fails ``--fail-on-regression``: regressed and mixed units."""
        return self.regressed + self.mixed

    def plus(self, other: Classes) -> Classes:
        return Classes(
            **{name: getattr(self, name) + getattr(other, name) for name in type(self).model_fields}
        )


class LabelDelta(_Model):
    label: str | None
    precision: Delta
    recall: Delta
    f1: Delta


class MetricDelta(_Model):
    name: str
    kind: str
    comparable: bool = Field(description="False when the catalog differs or a side lacks it.")
    reason: str | None = None
    figures: dict[str, Delta] = Field(
        default_factory=dict,
        description="accuracy (exact_set_accuracy for multilabel), coverage, micro_ and "
        "macro_ precision, recall and f1.",
    )
    per_label: tuple[LabelDelta, ...] = ()


class Unmatched(_Model):
    """Cases of a suite that were not compared as they are (partial mode), listed by id."""

    added: Listed[str] = Field(
        (), validate_default=True, description="Cases in the candidate only."
    )
    removed: Listed[str] = Field(
        (), validate_default=True, description="Cases in the baseline only."
    )
    input_changed: Listed[str] = Field(
        (), validate_default=True, description="Same id, different input."
    )
    rescored: Listed[str] = Field(
        (),
        validate_default=True,
        description="Same id and input, different gold: compared with the baseline "
        "re-scored under the candidate's gold.",
    )
    added_attempts: int = 0
    removed_attempts: int = 0
    input_changed_attempts: int = 0


class ThresholdDelta(_Model):
    """One threshold of a suite on each side: its value (``None`` where unmeasured or where
    that side has no such threshold) and whether it held there."""

    key: str
    minimum: float = Field(description="The candidate's minimum (the baseline's if only there).")
    value: Delta
    candidate_held: bool | None = None
    baseline_held: bool | None = None


class SuiteComparison(_Model):
    name: str
    status: Literal["compared", "skipped"] = Field(
        description="skipped: the suite was skipped (live) in either report."
    )
    repeat: CountDelta
    figures: Figures
    metrics: tuple[MetricDelta, ...] = ()
    thresholds: tuple[ThresholdDelta, ...] = Field(
        (), description="Each threshold's value before and after, candidate's order first."
    )
    summary: dict[str, Delta] = Field(
        default_factory=dict,
        description="Each figure of the suites' own summaries (pass_rate, expect.satisfied...) "
        "on both sides, as each report measured it over its own cases.",
    )
    changes: Listed[AttemptChange] = Field(
        (), validate_default=True, description="Every attempt that improved, regressed or is mixed."
    )
    case_changes: dict[str, int] = Field(
        default_factory=dict, description="Cases per class over repeats (with --repeat)."
    )
    cases: Listed[CaseView] = Field(
        (), validate_default=True, description="Per case, when either side repeats."
    )
    unmatched: Unmatched = Field(default_factory=Unmatched)
    metrics_scope: Literal["same cases", "each report's cases"] = "same cases"
    unit: Literal["attempt", "case"] = Field(
        description="What the classification classifies: attempts, or cases over repeats."
    )
    rule: str = Field(description="The rule that decided a regression, in words.")
    classes: Classes = Field(description="The one classification's counts.")
    findings: Listed[Finding] = Field(
        description="Every unit of the one classification that is not unchanged, in order."
    )

    @model_validator(mode="after")
    def _findings_agree(self) -> SuiteComparison:
        counted = self.findings.counts(finding_change)
        for change in CHANGE_CLASSES:
            listed = counted.get(change, 0)
            if listed != self.classes.count(change):
                raise ValueError(
                    f"classes.{change.replace(' ', '_')} is {self.classes.count(change)} but "
                    f"{listed} findings are {change!r}"
                )
        return self


class GoldEffect(_Model):
    """What the gold edit alone does to the baseline's saved results (partial mode)."""

    rescored_cases: int = 0
    rescored_attempts: int = 0
    newly_failing: int = Field(0, description="Checks that passed under the old gold only.")
    newly_passing: int = Field(0, description="Checks that pass under the new gold only.")
    added_checks: int = Field(0, description="Checks of expectations the new gold added.")
    removed_checks: int = Field(0, description="Checks of expectations the new gold removed.")
    not_rescored: int = Field(
        0, description="Checks of changed custom expectations: compare runs no scorer code."
    )


class Comparable(_Model):
    candidate_attempts: int = Field(description="Every attempt of the candidate report.")
    compared_attempts: int = Field(description="Paired and classified.")
    share: float = Field(description="compared_attempts / candidate_attempts.")
    added_suites: tuple[str, ...] = ()
    removed_suites: tuple[str, ...] = ()


class Comparison(_Model):
    format: Literal["goldgate.comparison/1"] = "goldgate.comparison/1"
    goldgate_version: str
    created_at: str
    mode: Literal["full", "partial"]
    candidate: ReportRef
    baseline: ReportRef
    comparable: Comparable
    regressions: bool = Field(
        description="Any unit of the one classification regressed or mixed: what "
        "--fail-on-regression and fail_on: regression fail on."
    )
    classes: Classes = Field(description="The one classification's counts over every suite.")
    overall: Figures
    suites: tuple[SuiteComparison, ...]
    gold_effect: GoldEffect | None = Field(None, description="Partial mode only.")

    @model_validator(mode="after")
    def _classes_agree(self) -> Comparison:
        total = Classes()
        for suite in self.suites:
            total = total.plus(suite.classes)
        if total != self.classes:
            raise ValueError("classes are not the sum of the suites' classes")
        if self.regressions != (total.regressions > 0):
            raise ValueError(
                f"regressions is {str(self.regressions).lower()} but {total.regressions} units "
                "regressed or are mixed"
            )
        return self
