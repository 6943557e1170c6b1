"""Loaded by inspect_ai through the ``inspect_ai`` entry point group (see pyproject.toml):
importing the provider registers the ``intercode`` sandbox type."""

from .inspect import IntercodeSandboxEnvironment

__all__ = ["IntercodeSandboxEnvironment"]
