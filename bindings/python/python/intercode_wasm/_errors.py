"""The exceptions of intercode_wasm, one per kind of failure the core library reports.

They are defined in Python (the extension module raises these very classes) so that each can
also be one of Python's own exception types: code that catches ``ValueError`` for bad input or
``RuntimeError`` for a call at the wrong time keeps working.
"""

from __future__ import annotations

__all__ = [
    "IntercodeError",
    "EpisodeStateError",
    "BadInputError",
    "HostError",
    "UnsupportedFeatureError",
]


class IntercodeError(Exception):
    """Base class of every error intercode_wasm raises."""


class EpisodeStateError(IntercodeError, RuntimeError):
    """The call came at the wrong time: no episode yet (call ``reset``), the episode is over
    (call ``reset`` to start another), or the env is closed. Nothing was lost."""


class BadInputError(IntercodeError, ValueError):
    """The caller's input is wrong: a task index out of range, a malformed task file or env
    spec, an unknown image name. Fix it and retry."""


class HostError(IntercodeError, RuntimeError):
    """The host failed (I/O, the wasm runtime, the database engine): a harness fault, not the
    agent's."""


class UnsupportedFeatureError(IntercodeError, NotImplementedError):
    """Something the Docker-free sandbox cannot offer: network access, native (ELF) binaries,
    users other than root, port mappings, an inspect ``connection``."""
