"""The connect commands the landing page and `make run` print are the ones docs/client-setup.md
documents, with the URL filled in."""

import json
import re
import shlex

import pytest

from skillsite import connect
from tests.support.project import PROJECT_DIR

DOCS = (PROJECT_DIR / "docs" / "client-setup.md").read_text()
DOCS_URL = "https://skills.example.com/mcp"


def fenced_blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", DOCS, flags=re.M | re.S)


@pytest.mark.parametrize(
    "command",
    [connect.claude_code("$SKILLS_URL"), connect.codex("$SKILLS_URL"), connect.http_check("$SKILLS_URL")],
    ids=["claude-code", "codex", "http-check"],
)
def test_each_command_is_the_documented_one(command: str) -> None:
    # shlex quotes the placeholder as a literal; the docs write it double-quoted, to be expanded.
    documented = command.replace(shlex.quote("$SKILLS_URL"), '"$SKILLS_URL"')
    assert documented in DOCS, f"docs/client-setup.md does not show:\n{documented}"


def test_the_opencode_block_is_the_documented_file() -> None:
    documented = [json.loads(block) for block in fenced_blocks("json") if '"$schema"' in block]
    assert documented == [json.loads(connect.opencode(DOCS_URL))]


def test_every_client_the_docs_give_a_section_has_a_command() -> None:
    # The clients that run locally with a static header; web connectors are set up in their own UI.
    sections = re.findall(r"^## (Claude Code|Codex|OpenCode)$", DOCS, flags=re.M)
    names = [client.name for client in connect.clients(DOCS_URL)]
    assert sections == names[: len(sections)] == ["Claude Code", "Codex", "OpenCode"]
    assert "## Checking a connection by hand" in DOCS
    assert names[-1] == "Any MCP client (official SDKs, curl)"


def test_the_url_is_filled_in_every_command_and_quoted_for_the_shell() -> None:
    for client in connect.clients(DOCS_URL):
        assert DOCS_URL in client.command, client.name
        assert "$SKILLS_URL" not in client.command
    odd = "http://[::1]:8000/mcp"
    assert f"'{odd}'" in connect.claude_code(odd)
    assert f"'{odd}'" in connect.codex(odd)
    assert shlex.split(connect.codex(odd))[5] == odd


def test_the_token_is_only_ever_named_unless_given() -> None:
    for client in connect.clients(DOCS_URL):
        assert "SKILLS_TOKEN" in client.command, client.name
    assert connect.claude_code(DOCS_URL).endswith('--header "Authorization: Bearer $SKILLS_TOKEN"')
    assert connect.claude_code(DOCS_URL, "tok-123").endswith('--header "Authorization: Bearer tok-123"')
    assert connect.export_token("<your token>") == "export SKILLS_TOKEN='<your token>'"
