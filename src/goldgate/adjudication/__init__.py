"""Adjudication that persists: checks waiting for a person, their verdicts, and a store.

``verdicts`` (pure, imported by the runner and the report builder): the digest an answer is
known by, the note a reviewer reads, and a recorded verdict applied to a check. ``store``:
the project's verdict store, ``evaluation/verdicts.jsonl``, read strictly and written
atomically. ``queue``: the queue of a report exported for reviewers and their verdicts
applied to the store.

Nothing is imported here, so the runner can import ``goldgate.adjudication.verdicts`` without
pulling in the report models.
"""
