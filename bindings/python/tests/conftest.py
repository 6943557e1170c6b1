"""Shared fixtures: where the repository, the public data and the ``intercode`` CLI are."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any, Optional

import pytest

#: bindings/python/tests → the repository root.
REPO = Path(__file__).resolve().parents[3]
FIXTURES = REPO / "fixtures"


def shared_dir() -> Optional[Path]:
    """The public data (``../shared`` beside the clone, or ``$INTERCODE_DATA_DIR``)."""
    candidates = [os.environ.get("INTERCODE_DATA_DIR"), str(REPO.parent / "shared")]
    for c in candidates:
        if c and (Path(c) / "intercode-upstream").is_dir():
            return Path(c)
    if os.environ.get("CI") == "true":
        pytest.fail("the public data (../shared) is missing in CI")
    return None


def cli_binary() -> Optional[Path]:
    """The ``intercode`` binary: ``$INTERCODE_BIN``, else the release build in the cargo
    target directory the rest of the suite used."""
    explicit = os.environ.get("INTERCODE_BIN")
    if explicit:
        return Path(explicit)
    target_dirs = [
        os.environ.get("CARGO_TARGET_DIR"),
        str(REPO / "target"),
        str(Path.home() / ".cache" / "intercode-target"),
    ]
    for t in target_dirs:
        if t and (Path(t) / "release" / "intercode").is_file():
            return Path(t) / "release" / "intercode"
    found = shutil.which("intercode")
    return Path(found) if found else None


@pytest.fixture(scope="session")
def shared() -> Path:
    s = shared_dir()
    if s is None:
        pytest.skip("public data (../shared) not present")
    return s


@pytest.fixture(scope="session")
def intercode_cli() -> Path:
    b = cli_binary()
    if b is None:
        if os.environ.get("CI") == "true":
            pytest.fail("the intercode CLI is not built (set INTERCODE_BIN)")
        pytest.skip("the intercode CLI is not built (set INTERCODE_BIN)")
    return b


def run_cli(binary: Path, *args: str, cwd: Path = REPO) -> list[dict[str, Any]]:
    """Runs ``intercode ARGS --json`` and returns its episode records."""
    out = subprocess.run(
        [str(binary), *args, "--json"],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode in (0, 1), out.stderr
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]


@pytest.fixture(scope="session")
def fixture_tasks() -> dict[str, list[dict[str, Any]]]:
    """Our embedded fixture task files, as records."""
    return {
        env: json.loads((FIXTURES / env / "tasks.json").read_text())
        for env in ("bash", "sql", "python")
    }
