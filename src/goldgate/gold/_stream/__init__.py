"""The streamed check of a case file and its read-back store: an accelerator private to the
gold stage (``gold.load`` takes it unless ``GOLDGATE_ACCELERATORS=0``; nothing outside
``gold`` imports it)."""
