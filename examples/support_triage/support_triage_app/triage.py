"""A deterministic, model-free support triage: the rules the example's gold was reviewed against.

The rules, in the order they apply:
- Messages are split into sentences. A sentence that declines a change ("make no changes",
  "keine Änderungen") or withdraws an earlier request ("disregard", "zurückziehen") is not an
  active request, even when it mentions a category.
- Each active sentence is matched against English and German keywords per category.
- Exactly one category: answerable, status ``completed``. None: ``no_supported_answer``.
  Several: ``multiple_valid_options``. Both unanswerable kinds end in ``needs_review`` with a
  ``manual_review`` fallback selection.
- A message that only refers back ("as I wrote before") inherits the categories of the last
  message in ``payload.history``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

CATEGORIES: dict[str, tuple[str, ...]] = {
    "billing_dispute": (
        "charged twice",
        "double charge",
        "overcharged",
        "refund",
        "doppelt abgebucht",
        "erstattung",
        "zu viel berechnet",
    ),
    "service_change": (
        "upgrade",
        "downgrade",
        "change my plan",
        "switch my plan",
        "tarif wechseln",
        "tarif umstellen",
    ),
    "cancellation": ("cancel", "kündig"),
}
TAGS = {"billing_dispute": "billing", "service_change": "plan_change", "cancellation": "cancellation"}
DECLINES = ("make no changes", "no changes", "keine änderungen", "nichts ändern")
WITHDRAWALS = ("disregard", "ignore my earlier", "withdraw", "zurückziehen", "vergessen sie")
REFERENCES_BACK = ("as i wrote before", "as i said before", "wie bereits geschrieben")
URGENT = ("urgent", "asap", "dringend", "sofort")
ACCOUNT = re.compile(r"\b[A-Z]-\d+\b")
SENTENCE = re.compile(r"[^.!?]+")


@dataclass(frozen=True)
class Sentence:
    text: str
    start: int
    categories: tuple[str, ...]


def _categories(text: str) -> tuple[str, ...]:
    lowered = text.lower()
    return tuple(name for name, words in CATEGORIES.items() if any(w in lowered for w in words))


def active_sentences(message: str) -> list[Sentence]:
    sentences = []
    for match in SENTENCE.finditer(message):
        raw = match.group()
        text = raw.strip()
        if not text:
            continue
        lowered = text.lower()
        if any(phrase in lowered for phrase in DECLINES + WITHDRAWALS):
            continue
        start = match.start() + (len(raw) - len(raw.lstrip()))
        sentences.append(Sentence(text, start, _categories(text)))
    return sentences


def triage(payload: dict[str, Any], metadata: dict[str, Any]) -> dict[str, Any]:
    """The full result document for one envelope."""
    message = str(payload.get("message", ""))
    history = [str(item) for item in payload.get("history", [])]
    language = str(metadata.get("language", "en"))
    sentences = active_sentences(message)
    categories = sorted({c for s in sentences for c in s.categories}, key=list(CATEGORIES).index)
    account_source = message
    if not categories and history and any(p in message.lower() for p in REFERENCES_BACK):
        earlier = active_sentences(history[-1])
        categories = sorted({c for s in earlier for c in s.categories}, key=list(CATEGORIES).index)
        account_source = history[-1] + " " + message
    option = categories[0] if len(categories) == 1 else None
    issues = [] if option else (["multiple_valid_options"] if categories else ["no_supported_answer"])
    account_match = ACCOUNT.search(account_source)
    account = account_match.group() if account_match else None
    requesting = [s for s in sentences if s.categories]
    urgent = any(word in message.lower() for word in URGENT)
    tags = [TAGS[c] for c in categories] + (["urgent"] if urgent else [])
    status = "completed" if option else "needs_review"
    classify = {
        "result": {
            "answer": {"optionId": option} if option else None,
            "answerability": {
                "status": "answerable" if option else "not_answerable",
                "issues": issues,
            },
            "reason": "one active request" if option else "no single active request",
        },
        "selection": {
            "category": {"id": option or "manual_review"},
            "origin": "model" if option else "fallback",
        },
        "usage": {"tool_calls": 0},
    }
    return {
        "execution": {"status": status},
        "payload": {
            "category": option,
            "account": account,
            "requested_action": requesting[0].text if len(requesting) == 1 else None,
            "language": language,
        },
        "flows": {
            "triage": {
                "result": {"category": option, "status": status},
                "steps": {
                    "classify": classify,
                    "tag": {"result": {"answer": {"optionIds": tags}}},
                    "extract": {
                        "result": {"account": account},
                        "usage": {"tool_calls": 1 if account else 0},
                    },
                    "requests": {
                        "result": {
                            "items": [
                                {"steps": {"route": {"result": {"queue": c}}}}
                                for s in requesting
                                for c in s.categories
                            ]
                        }
                    },
                    "draft": {"result": {"text": draft_reply(option, account, language)}},
                },
            }
        },
        "usage": {"tool_calls": 1 if account else 0},
    }


_REPLIES = {
    "en": (
        "Thanks for your message. We have forwarded your {what} request{account} to our team.",
        "Thanks for your message. Could you tell us what you would like us to do?",
        {"billing_dispute": "billing", "service_change": "plan change", "cancellation": "cancellation"},
        " for account {account}",
    ),
    "de": (
        "Vielen Dank für Ihre Nachricht. Wir haben Ihr Anliegen ({what}){account} an unser Team "
        "weitergeleitet.",
        "Vielen Dank für Ihre Nachricht. Was dürfen wir für Sie tun?",
        {"billing_dispute": "Abrechnung", "service_change": "Tarifwechsel", "cancellation": "Kündigung"},
        " für Konto {account}",
    ),
}


def draft_reply(option: str | None, account: str | None, language: str) -> str:
    answered, unanswered, names, account_phrase = _REPLIES.get(language, _REPLIES["en"])
    if option is None:
        return unanswered
    return answered.format(
        what=names[option], account=account_phrase.format(account=account) if account else ""
    )
