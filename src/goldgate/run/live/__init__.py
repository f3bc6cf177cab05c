"""Live targets that hold up against real providers: retries, rate limits, cost, a cache.

``LiveTarget`` (``target.py``) wraps the target of a workflow whose settings ask for any of
it (``retry``, ``rate_limit``, ``pricing``, a ``model`` target, or ``--cache`` on a live
workflow) and keeps the ``Target`` protocol, so the runner runs it as any other:

- ``retry.py``: which failures are retried and how long to wait (exponential backoff with
  jitter, ``Retry-After`` honoured), every wait inside the attempt's deadline;
- ``ratelimit.py``: one limiter per workflow and run, shared by every concurrent attempt,
  pacing requests and tokens under the account's limits and learning from ``x-ratelimit-*``;
- ``cost.py``: an attempt's usage priced by the workflow's ``pricing``;
- ``cache.py``: the response cache (``--cache DIR``), plain files keyed by what decides an
  answer.

``workflow_target`` here is where every way into a run (the command line, the Python API)
builds a workflow's target. Model-free runs import nothing more than this module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping

    from goldgate.gold.settings.load import LoadedSettings
    from goldgate.gold.settings.models import WorkflowSettings
    from goldgate.run.limits import RunOptions
    from goldgate.run.live.cache import ResponseCache
    from goldgate.run.targets.base import Target

__all__ = ["live_target", "needs_live", "workflow_target"]


def needs_live(workflow: WorkflowSettings, cache: ResponseCache | None) -> bool:
    """Whether the workflow's target needs the live layer: it sets ``retry``, ``rate_limit``
    or ``pricing``, is a ``model`` target, or is live in a run with a cache."""
    return (
        workflow.retry is not None
        or workflow.rate_limit is not None
        or workflow.pricing is not None
        or workflow.target.kind == "model"
        or (cache is not None and workflow.live)
    )


def live_target(target: Target, workflow: WorkflowSettings, cache: ResponseCache | None) -> Target:
    """``target`` with its workflow's live settings (``LiveTarget``), or as it is when it
    needs none (``needs_live``): a model-free run imports nothing more."""
    if not needs_live(workflow, cache):
        return target
    from goldgate.run.live.ratelimit import RateLimiter
    from goldgate.run.live.retry import RetryPolicy
    from goldgate.run.live.target import LiveTarget

    limits = workflow.rate_limit
    return LiveTarget(
        target,
        workflow_revision=workflow.revision,
        policy=RetryPolicy.of(workflow.retry, workflow.target.kind),
        # Every call gets a limiter, set or not: it learns the provider's limits from its
        # x-ratelimit-* headers and holds every attempt on a 429's Retry-After.
        limiter=RateLimiter(
            None if limits is None else limits.requests_per_minute,
            None if limits is None else limits.tokens_per_minute,
        ),
        pricing=workflow.pricing,
        cache=cache if workflow.live else None,
    )


def workflow_target(
    settings: LoadedSettings,
    workflow: WorkflowSettings,
    options: RunOptions,
    environ: Mapping[str, str],
    cache: ResponseCache | None = None,
) -> Target:
    """The target a run calls for ``workflow``, built the one way every way into a run
    builds it: its kind's target (``targets.build_target``) under the run's options, an http
    request timing out past the attempt's deadline (``RunOptions.http_timeout``), with the
    workflow's live settings (``live_target``: retries, rate limits, pricing, ``cache``).
    Call ``load()`` on it before running anything."""
    from goldgate.run.targets.factory import build_target

    target = build_target(
        workflow.target,
        project_root=settings.project_root,
        search_paths=settings.python_paths,
        environ=environ,
        http_timeout=options.http_timeout,
    )
    return live_target(target, workflow, cache)
