"""goldgate's version, in a module of its own so that any stage can name it without importing
the package's public face (and, through it, every stage)."""

__version__ = "0.1.0"
