"""promptfoo's assertion types (its ``BaseAssertionTypes``), and which of them goldgate
translates how: a type not listed is an unknown assertion type (exit 2)."""

from __future__ import annotations

from typing import Final

__all__ = ["ASSERTION_TYPES", "JUDGED", "MODULE_CHECKED", "TEXT_CHECKED"]

TEXT_CHECKED: Final = frozenset(
    {
        "equals",
        "contains",
        "icontains",
        "contains-any",
        "contains-all",
        "icontains-any",
        "icontains-all",
        "starts-with",
        "regex",
    }
)
"""Translated into goldgate's own ``exact`` and ``text`` expectations (``not-`` forms too)."""

MODULE_CHECKED: Final = TEXT_CHECKED | {"is-json", "contains-json", "levenshtein", "python"}
"""What the generated module ``promptfoo_checks.py`` checks as promptfoo does: the custom
scorer of what no built-in expectation states, and of a threshold's weighted groups."""

JUDGED: Final = frozenset(
    {"llm-rubric", "model-graded-closedqa", "factuality", "model-graded-factuality", "g-eval"}
)
"""Model-graded: a judged ``text`` expectation (issue 41's judges)."""

ASSERTION_TYPES: Final = (
    "answer-relevance",
    "assert-set",
    "bleu",
    "classifier",
    "contains-all",
    "contains-any",
    "contains-html",
    "contains-json",
    "contains-sql",
    "contains-xml",
    "contains",
    "context-faithfulness",
    "context-recall",
    "context-relevance",
    "conversation-relevance",
    "cost",
    "equals",
    "factuality",
    "finish-reason",
    "g-eval",
    "gleu",
    "guardrails",
    "icontains-all",
    "icontains-any",
    "icontains",
    "is-html",
    "is-json",
    "is-refusal",
    "is-sql",
    "is-valid-function-call",
    "is-valid-openai-function-call",
    "is-valid-openai-tools-call",
    "is-xml",
    "javascript",
    "latency",
    "levenshtein",
    "llm-rubric",
    "max-score",
    "meteor",
    "model-graded-closedqa",
    "model-graded-factuality",
    "moderation",
    "perplexity-score",
    "perplexity",
    "pi",
    "python",
    "regex",
    "rouge-n",
    "ruby",
    "search-rubric",
    "select-best",
    "similar",
    "starts-with",
    "tool-call-f1",
    "trace-error-spans",
    "trace-span-count",
    "trace-span-duration",
    "webhook",
    "word-count",
)
"""Every assertion type promptfoo 0.123 knows (a ``not-`` form of each too)."""
