"""The thresholds that are maxima, named where both gold (which checks them) and the report
(which decides them) can read them without the gold models."""

from __future__ import annotations

MAXIMUM_THRESHOLDS = ("cost.total", "cost.per_attempt", "latency.p50_ms", "latency.p95_ms")
"""Thresholds that are maxima: the figure must stay at or under them (a live suite's cost in
its pricing's currency, latency percentiles in milliseconds); every other is a minimum."""

ATTEMPT_ROOT = "attempt"
ATTEMPT_FIGURES = ("latency_ms", "cost")
"""What one attempt measured that a gold path may point at (``/attempt/latency_ms``, the
attempt's latency in milliseconds; ``/attempt/cost``, its usage priced by the workflow's
pricing): a ``maximum`` expectation holds each attempt to its own bound, where a suite's
``latency.p95_ms`` or ``cost.per_attempt`` threshold holds the suite to one."""
