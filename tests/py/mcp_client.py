"""Drives `intercode mcp` with the official MCP Python SDK (PyPI `mcp`), for tests/it/server.rs.

Reads a scenario as JSON on stdin and prints what the server answered as JSON on stdout; the
Rust test holds every expectation, so this script only speaks the protocol:

    {"server": {"stdio": [COMMAND, ARG...]} | {"url": "http://127.0.0.1:PORT/mcp"},
     "mode": "legacy" | "auto",
     "episodes": [{"name": ..., "open": {open_episode arguments},
                   "ops": [{"tool": ..., "args": {...}}, ...]}],
     "raw": [{"tool": ..., "args": {...}}]}

Each op gets its episode's `episode_id` unless it names one. Output: the negotiated protocol
version, the tools with their schemas, and for every call `{"tool", "is_error", "structured",
"text"}`, or `{"tool", "protocol_error"}` when the server answered with a JSON-RPC error.

Exit status 77 when the `mcp` package is missing (the Rust test decides whether that is a
skip or, under CI, a failure).
"""

import asyncio
import json
import sys

try:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters
    from mcp.shared.exceptions import MCPError
except ImportError as e:  # pragma: no cover - reported to the Rust test
    print(f"the mcp package is missing: {e} (pip install mcp)", file=sys.stderr)
    sys.exit(77)


async def call(client, tool, args):
    try:
        result = await client.call_tool(tool, args)
    except MCPError as e:
        return {"tool": tool, "protocol_error": str(e)}
    text = "".join(getattr(block, "text", "") for block in result.content)
    return {
        "tool": tool,
        "is_error": bool(result.is_error),
        "structured": result.structured_content,
        "text": text,
    }


async def main():
    scenario = json.load(sys.stdin)
    server = scenario["server"]
    if "stdio" in server:
        command, *args = server["stdio"]
        target = StdioServerParameters(command=command, args=args)
    else:
        target = server["url"]
    out = {"episodes": [], "raw": []}
    async with Client(target, mode=scenario.get("mode", "auto"), read_timeout_seconds=120) as client:
        out["protocol_version"] = client.protocol_version
        out["server_name"] = client.server_info.name if client.server_info else None
        tools = await client.list_tools()
        out["tools"] = [
            {"name": t.name, "input_schema": t.input_schema, "output_schema": t.output_schema}
            for t in tools.tools
        ]
        for episode in scenario.get("episodes", []):
            record = {"name": episode["name"], "results": []}
            opened = await call(client, "open_episode", episode["open"])
            record["opened"] = opened
            episode_id = (opened.get("structured") or {}).get("episode_id")
            for op in episode.get("ops", []):
                args = dict(op.get("args", {}))
                if episode_id is not None:
                    args.setdefault("episode_id", episode_id)
                record["results"].append(await call(client, op["tool"], args))
            out["episodes"].append(record)
        for op in scenario.get("raw", []):
            out["raw"].append(await call(client, op["tool"], op.get("args", {})))
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    asyncio.run(main())
