"""A Hearts referee for bots in any language."""

__version__ = "0.1.0"
