"""Ready-to-paste MCP server entries for the common clients, with absolute paths.

A client starts the server from a folder of its own choosing, so the command and the
index folder are written as absolute paths. Formats, as each client documents them
(checked November 2026):

- Claude Code: `.mcp.json` at the project root (`mcpServers`), or `claude mcp add`;
- Claude Desktop: `claude_desktop_config.json` (`mcpServers`);
- VS Code: `.vscode/mcp.json` (`servers`, each with `"type": "stdio"`);
- Cursor: `.cursor/mcp.json` or `~/.cursor/mcp.json` (`mcpServers`);
- OpenCode: `opencode.json` (`mcp`, each `"type": "local"` with the command as a list);
- Codex CLI: `~/.codex/config.toml` or a trusted project's `.codex/config.toml`
  (`[mcp_servers.NAME]`);
- Gemini CLI: `~/.gemini/settings.json` or `.gemini/settings.json` (`mcpServers`).
"""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from codecompass.errors import InputError

SERVER_NAME = "codecompass"


@dataclass(frozen=True, slots=True)
class ClientConfig:
    client: str
    where: str  # the file the snippet belongs in
    text: str  # the snippet itself
    command_line: str | None = None  # a command that adds it instead, when the client has one


def server_command() -> list[str]:
    """The absolute command that starts this installation's `codecompass`."""
    beside = Path(sys.executable).parent / "codecompass"
    if beside.is_file():
        return [str(beside.absolute())]
    found = shutil.which("codecompass")
    if found:
        return [str(Path(found).absolute())]
    return [str(Path(sys.executable).absolute()), "-m", "codecompass"]


def _json(key: str, entry: Mapping[str, object]) -> str:
    return json.dumps({key: {SERVER_NAME: entry}}, indent=2)


def render(client: str, data_dir: Path) -> ClientConfig:
    command = server_command()
    args = [*command[1:], "serve", "--data-dir", str(data_dir.absolute())]
    stdio = {"command": command[0], "args": args}
    if client == "claude-code":
        line = shlex.join(["claude", "mcp", "add", "-s", "project", SERVER_NAME, "--", *command])
        return ClientConfig(
            client,
            ".mcp.json at the project root",
            _json("mcpServers", stdio),
            f"{line} {shlex.join(args)}",
        )
    if client == "claude-desktop":
        return ClientConfig(
            client,
            "claude_desktop_config.json (Settings → Developer → Edit Config)",
            _json("mcpServers", stdio),
        )
    if client == "vscode":
        return ClientConfig(
            client, ".vscode/mcp.json", _json("servers", {"type": "stdio", **stdio})
        )
    if client == "cursor":
        return ClientConfig(
            client, ".cursor/mcp.json or ~/.cursor/mcp.json", _json("mcpServers", stdio)
        )
    if client == "opencode":
        entry = {"type": "local", "command": [command[0], *args], "enabled": True}
        text = json.dumps(
            {"$schema": "https://opencode.ai/config.json", "mcp": {SERVER_NAME: entry}}, indent=2
        )
        return ClientConfig(client, "opencode.json", text)
    if client == "codex":
        text = (
            f"[mcp_servers.{SERVER_NAME}]\n"
            f"command = {json.dumps(command[0])}\n"
            f"args = [{', '.join(json.dumps(a) for a in args)}]\n"
        )
        line = shlex.join(["codex", "mcp", "add", SERVER_NAME, "--", *command, *args])
        return ClientConfig(client, "~/.codex/config.toml", text, line)
    if client == "gemini":
        return ClientConfig(
            client, "~/.gemini/settings.json or .gemini/settings.json", _json("mcpServers", stdio)
        )
    raise InputError(f"Unknown MCP client {client!r}; use one of: {', '.join(CLIENTS)}.")


CLIENTS = ("claude-code", "claude-desktop", "vscode", "cursor", "opencode", "codex", "gemini")
