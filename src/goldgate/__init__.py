"""goldgate: gate pull requests of LLM applications on reviewed gold."""

__version__ = "0.1.0"

__all__ = ["__version__"]
