"""A critic for guarded episodes (`--critic-cmd "python3 tests/py/critic.py"`), for the MCP
tests: it vetoes a submission when a command that deletes files (`rm`) is still part of the
trajectory, and tells the agent to undo it first. Exit 0 accepts; exit 1 vetoes, with stdout
as the message."""

import json
import sys

trajectory = json.load(sys.stdin)
removed = [t["action"] for t in trajectory.get("turns", []) if t["action"].split()[:1] == ["rm"]]
if removed:
    print(f"files were deleted by {removed[0]!r}: undo that before submitting")
    sys.exit(1)
sys.exit(0)
