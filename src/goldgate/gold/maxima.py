"""The thresholds that are maxima, named where both gold (which checks them) and the report
(which decides them) can read them without the gold models."""

from __future__ import annotations

MAXIMUM_THRESHOLDS = ("cost.total", "cost.per_attempt", "latency.p50_ms", "latency.p95_ms")
"""Thresholds that are maxima: the figure must stay at or under them (a live suite's cost in
its pricing's currency, latency percentiles in milliseconds); every other is a minimum."""
