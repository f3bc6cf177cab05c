"""Helpers shared by several test folders (on sys.path through pytest's ``pythonpath``)."""
