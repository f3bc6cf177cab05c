"""Reports: one record model, built a case at a time, written once (never overwritten), read
back strictly and verified, migrated from older formats, merged from shards."""

__all__ = [
    "agreement",
    "build",
    "caserecords",
    "digests",
    "io",
    "livefigures",
    "merge",
    "migrate",
    "models",
    "plain",
    "process",
    "queue",
    "readbound",
    "rebuild",
    "recordbase",
    "records",
    "stream",
    "summary",
    "unstarted",
    "verdicts",
    "verdictstore",
    "verify",
]
