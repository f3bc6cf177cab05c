"""Gold's private speed-ups for large case files: a case file parsed as a stream
(``casefile``), checked as it streams by (``streamed``), helper processes that check it on
several cores (``parallel``), and cases read back from the file when a run needs them
(``store``), their ids held as bytes (``caseids``). ``gold.load`` takes them unless
``GOLDGATE_ACCELERATORS=0``; nothing outside ``goldgate.gold`` imports them.
"""

__all__ = ["casefile", "caseids", "parallel", "store", "streamed"]
