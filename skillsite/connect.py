"""How each documented client connects: the commands of docs/client-setup.md with a URL filled in.

The one home of these commands: the landing page shows them with the token left as
`$SKILLS_TOKEN` (the shell expands it when the command runs, so the token stays out of
the page and of shared configuration), and `make run`'s banner prints some of them with
the local token written out.
"""

import json
import shlex
from dataclasses import dataclass

# The environment variable docs/client-setup.md keeps the token in, and the shell reference to it.
TOKEN_VARIABLE = "SKILLS_TOKEN"  # noqa: S105 - a variable's name, not a secret
TOKEN_REFERENCE = f"${TOKEN_VARIABLE}"
# The name clients register the server under (the docs and their standing instructions use it).
SERVER_NAME = "skills"
# The MCP revision the hand check speaks: the newest that every documented client speaks too.
_CHECK_PROTOCOL_VERSION = "2025-11-25"


@dataclass(frozen=True, slots=True)
class ClientCommand:
    """One client: its name, what to run (or, for OpenCode, what to put in its file), and a
    one-line hint a person needs beside it."""

    name: str
    command: str
    note: str


def export_token(token: str) -> str:
    return f"export {TOKEN_VARIABLE}={shlex.quote(token)}"


def claude_code(url: str, token: str = TOKEN_REFERENCE) -> str:
    # Double quotes, not shlex: with the placeholder the shell must still expand $SKILLS_TOKEN.
    return (
        f"claude mcp add --transport http {SERVER_NAME} {shlex.quote(url)}"
        f' --header "Authorization: Bearer {token}"'
    )


def codex(url: str) -> str:
    return f"codex mcp add {SERVER_NAME} --url {shlex.quote(url)} --bearer-token-env-var {TOKEN_VARIABLE}"


def opencode(url: str) -> str:
    """The opencode.json block; OpenCode substitutes `{env:VAR}` itself."""
    config = {
        "$schema": "https://opencode.ai/config.json",
        "mcp": {
            SERVER_NAME: {
                "type": "remote",
                "url": url,
                "headers": {"Authorization": f"Bearer {{env:{TOKEN_VARIABLE}}}"},
                "oauth": False,
                "enabled": True,
            }
        },
    }
    return json.dumps(config, indent=2)


def http_check(url: str) -> str:
    """One tools/call by hand, as any Streamable HTTP client (an official MCP SDK included) sends it."""
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "skills_list", "arguments": {"limit": 5}},
    }
    return " \\\n".join(
        [
            f"curl -sS {shlex.quote(url)}",
            f'  -H "Authorization: Bearer {TOKEN_REFERENCE}"',
            "  -H 'Content-Type: application/json'",
            "  -H 'Accept: application/json, text/event-stream'",
            f"  -H 'MCP-Protocol-Version: {_CHECK_PROTOCOL_VERSION}'",
            f"  -d {shlex.quote(json.dumps(call))}",
        ]
    )


def clients(url: str) -> tuple[ClientCommand, ...]:
    """Every documented client, in the order docs/client-setup.md gives them."""
    return (
        ClientCommand("Claude Code", claude_code(url), "Then claude mcp list shows skills as connected."),
        ClientCommand(
            "Codex",
            codex(url),
            f"Codex reads {TOKEN_VARIABLE} when it starts: set it first, then start (or restart) Codex.",
        ),
        ClientCommand(
            "OpenCode",
            opencode(url),
            "In opencode.json (the project's, or ~/.config/opencode/opencode.json for every project);"
            " check with opencode mcp list.",
        ),
        ClientCommand(
            "Any MCP client (official SDKs, curl)",
            http_check(url),
            "Streamable HTTP at this URL, every request with the header Authorization: Bearer <token>."
            " This call checks the connection by hand.",
        ),
    )
