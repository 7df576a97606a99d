"""docs/reference.md keeps step with the code (a name a user can meet but not look up is a bug).

Every set below is found in the code, never listed here, so a new name without
documentation fails:
- problem codes: string literals in catalog/ passed to a Problem-like call (a callee whose
  name holds "problem", or is fail/warn/warning/error), (code, "message ...") tuples, and
  any module constant named *CODES or Enum named *Code*;
- tools, their arguments, result fields, tool error codes and match-reason rules: what
  `tools/list` answers on POST /mcp, plus every ToolError(...) code in mcpapi/;
- JSON-RPC codes, HTTP statuses, MCP methods and protocol versions: literals in mcpapi/
  (and the `status` of accounts' errors);
- environment variables: every os.environ / os.getenv read, and every call of a function
  that passes its first parameter to one (skillsite.env's helpers, gunicorn.conf.py's);
- frontmatter keys: catalog module constants named *KEYS; config keys: registry.config.json;
- commands: */management/commands/*.py; anchors: every `docs/reference.md#...` cited.
"""

import functools
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.test import Client, override_settings

from tests.support.code_scans import (
    SKIPPED_DIRS,
    config_leaves,
    env_vars_read,
    frontmatter_keys,
    http_statuses,
    jsonrpc_codes,
    mcp_methods,
    problem_codes,
    production_env_vars,
    protocol_versions,
    python_files,
    tool_error_codes_raised,
)
from tests.support.project import PROJECT_DIR
from tests.support.reference_md import (
    REFERENCE,
    anchors,
    backticked,
    first_column,
    github_anchor,
    headings,
    reference_text,
    section,
    subsections,
    undocumented,
)
from tests.test_docs import management_commands

THIS_FILE = Path(__file__).resolve()
# The top-level headings code comments cite by anchor.
SECTIONS = (
    "Commands",
    "Environment",
    "registry.config.json",
    "Skill format",
    "Validation",
    "HTTP surface",
    "MCP methods",
    "Tools",
    "Search",
    "Errors",
    "Callers and clearance",
    "Limits",
    "OAuth",
)
_CITATION = re.compile(r"docs/reference\.md#([A-Za-z0-9_-]+)")
_RELATIVE_CITATION = re.compile(r"(?<![\w/])reference\.md#([A-Za-z0-9_-]+)")
_LOCAL_LINK = re.compile(r"\]\(#([A-Za-z0-9_-]+)\)")


# --- the wire ----------------------------------------------------------------------------

_TOKEN = "reference-doc-read-token"


@functools.cache
def listed_tools() -> tuple[dict[str, Any], ...]:
    """What a client reads in tools/list: the contract of the tools."""
    with override_settings(SKILLS_READ_TOKENS=[_TOKEN], MCP_ALLOWED_ORIGINS=[], MCP_RATE_LIMIT_PER_MINUTE=0):
        response = Client().post(
            "/mcp",
            data=json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
            content_type="application/json",
            headers={
                "Authorization": f"Bearer {_TOKEN}",
                "Accept": "application/json",
                "MCP-Protocol-Version": "2025-06-18",
                "Mcp-Method": "tools/list",
            },
        )
    assert response.status_code == 200, response.content
    return tuple(response.json()["result"]["tools"])


def schema_fields(schema: dict[str, Any]) -> Iterator[str]:
    """Every property name in a JSON Schema, at any depth."""
    for name, inner in schema.get("properties", {}).items():
        yield name
        yield from schema_fields(inner)
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            yield from schema_fields(schema[key])
    for alternative in schema.get("anyOf", []) + schema.get("oneOf", []):
        yield from schema_fields(alternative)


def schema_enums(schema: dict[str, Any], name: str) -> set[str]:
    """The enum values of every property called `name`, at any depth."""
    found = set()
    for key, inner in schema.get("properties", {}).items():
        if key == name:
            found.update(inner.get("enum", []))
        found |= schema_enums(inner, name)
    if isinstance(schema.get("items"), dict):
        found |= schema_enums(schema["items"], name)
    return found


# --- the tests ---------------------------------------------------------------------------


def test_the_helpers_read_markdown_as_github_does() -> None:
    assert github_anchor("registry.config.json") == "registryconfigjson"
    assert github_anchor("Callers and clearance") == "callers-and-clearance"
    assert github_anchor("`skills_get_file`") == "skills_get_file"
    assert github_anchor("Django's own commands") == "djangos-own-commands"
    assert anchors("# A\n```\n# not a heading\n```\n## A\n") == {"a", "a-1"}
    assert _CITATION.findall("see docs/reference.md#tools and docs/reference.md#http-surface.") == [
        "tools",
        "http-surface",
    ]
    table = "| code | x |\n|---|---|\n| `one` | a |\n| `two` | b |\n\ntext `three`\n"
    assert first_column(table, "code") == ["one", "two"]


def test_the_code_scans_find_what_they_look_for() -> None:
    # Guards every scan below: if one stopped matching, its test would pass vacuously.
    assert {"invalid_config", "unknown_key", "duplicate_key", "symlink", "not_utf8"} <= problem_codes()
    assert {"version_not_bumped", "invalid_required_zdr", "listed_file_missing"} <= problem_codes()
    assert {"DJANGO_SECRET_KEY", "SKILLS_READ_TOKENS", "GUNICORN_WORKERS", "GITHUB_ACTOR"} <= (
        production_env_vars()
    )
    assert {-32700, -32600, -32601, -32602} <= jsonrpc_codes()
    assert {401, 403, 413, 503} <= http_statuses()
    assert {"initialize", "tools/call", "resources/read"} <= mcp_methods()
    assert {"SKILL_NOT_FOUND", "REVISION_UNAVAILABLE"} <= tool_error_codes_raised()
    assert {"schema_version", "required_zdr", "files"} <= frontmatter_keys()
    assert protocol_versions()
    assert len(management_commands()) >= 10


def test_the_reference_has_every_section_the_code_cites() -> None:
    titles = [title for level, title in headings(reference_text()) if level == 2]
    assert not [name for name in SECTIONS if name not in titles]
    assert len(titles) == len(set(titles)), "a top-level heading appears twice"


def _citing_files() -> Iterator[Path]:
    suffixes = {".py", ".md", ".html", ".yml", ".yaml", ".toml", ".txt", ".conf", ".service", ".cfg"}
    for path in PROJECT_DIR.rglob("*"):
        parts = path.relative_to(PROJECT_DIR).parts
        if SKIPPED_DIRS.intersection(parts) or parts[0] == "skills" or path == THIS_FILE:
            continue
        if path.is_file() and (path.suffix in suffixes or path.name == "Makefile"):
            yield path


def test_every_cited_anchor_of_the_reference_exists() -> None:
    known = anchors(reference_text())
    broken = []
    for path in _citing_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        cited = set(_CITATION.findall(text))
        if path.parent == REFERENCE.parent:
            cited |= set(_RELATIVE_CITATION.findall(text))
        if path == REFERENCE:
            cited |= set(_LOCAL_LINK.findall(text))
        broken += [f"{path.relative_to(PROJECT_DIR)}: #{anchor}" for anchor in sorted(cited - known)]
    assert not broken, f"citations of docs/reference.md sections that do not exist: {broken}"


def test_every_management_command_has_its_section() -> None:
    documented = {title.strip("`") for title in subsections(section("Commands")) if title.startswith("`")}
    assert not undocumented(management_commands(), documented), "commands without a '### `name`' section"
    assert not undocumented(documented, set(management_commands())), "sections for commands that do not exist"


def test_every_environment_variable_read_is_documented() -> None:
    documented = backticked(section("Environment"))
    missing = undocumented(production_env_vars(), documented)
    assert not missing, f"environment variables read by the code but not in ## Environment: {missing}"


def test_every_documented_environment_variable_is_read_somewhere() -> None:
    rows = first_column(section("Environment"), "variable")
    read = env_vars_read(python_files(exclude=("skills",)))
    assert rows
    assert not undocumented(rows, read), "## Environment documents variables nothing reads"


def test_every_config_key_is_documented_with_its_value() -> None:
    text = section("registry.config.json")
    data = json.loads((PROJECT_DIR / "registry.config.json").read_text())
    problems = []
    for key, value in config_leaves(data):
        rows = [line for line in text.splitlines() if line.startswith("|") and f"`{key}`" in line]
        shown = value if isinstance(value, list) else [value]
        if not rows:
            problems.append(f"{key}: no table row")
        elif not all(re.search(rf"(?<![\w.]){re.escape(str(item))}(?![\w])", rows[0]) for item in shown):
            problems.append(f"{key}: the row does not show {value!r}")
    assert not problems


def test_every_frontmatter_key_is_documented() -> None:
    missing = undocumented(frontmatter_keys(), backticked(section("Skill format")))
    assert not missing, f"frontmatter keys not in ## Skill format: {missing}"


def test_the_open_dialect_has_its_marked_place() -> None:
    assert "Open Agent Skills dialect" in subsections(section("Skill format"))


def test_every_problem_code_is_documented() -> None:
    text = section("Validation")
    missing = undocumented(problem_codes(), backticked(text))
    assert not missing, f"problem codes the validation can emit but ## Validation does not list: {missing}"
    stale = undocumented(first_column(text, "code"), problem_codes())
    assert not stale, f"## Validation lists codes the code never emits: {stale}"


@pytest.mark.django_db
def test_every_tool_has_its_section() -> None:
    names = {tool["name"] for tool in listed_tools()}
    documented = {title.strip("`") for title in subsections(section("Tools")) if title.startswith("`")}
    assert names == documented


_ENVELOPE = {"api_version", "registry_sha", "published_at", "error"}


@pytest.mark.django_db
def test_every_tool_argument_and_result_field_is_documented() -> None:
    tools_text = section("Tools")
    everywhere = backticked(tools_text)
    missing = [f"common field {name}" for name in undocumented(_ENVELOPE, everywhere)]
    for tool in listed_tools():
        name, output = tool["name"], tool["outputSchema"]
        own = backticked(subsections(tools_text).get(f"`{name}`", ""))
        missing += [f"{name} argument {arg}" for arg in undocumented(tool["inputSchema"]["properties"], own)]
        missing += [
            f"{name} result {field}" for field in undocumented(set(output["properties"]) - _ENVELOPE, own)
        ]
        missing += [
            f"{name} nested field {field}" for field in undocumented(schema_fields(output), everywhere)
        ]
    assert not missing, f"not documented in ## Tools: {missing}"


@pytest.mark.django_db
def test_every_tool_error_code_is_documented() -> None:
    codes = tool_error_codes_raised().union(
        *(schema_enums(tool["outputSchema"], "code") for tool in listed_tools())
    )
    text = subsections(section("Errors")).get("Tool errors", "")
    assert not undocumented(codes, backticked(text)), "tool error codes not in ## Errors / ### Tool errors"
    assert not undocumented(first_column(text, "code"), codes), "### Tool errors lists codes nothing raises"


@pytest.mark.django_db
def test_every_match_reason_rule_is_documented() -> None:
    rules = set().union(*(schema_enums(tool["outputSchema"], "rule") for tool in listed_tools()))
    assert rules
    assert not undocumented(rules, backticked(section("Search")))


def test_every_jsonrpc_error_code_is_documented() -> None:
    text = section("Errors")
    missing = [code for code in sorted(jsonrpc_codes()) if not re.search(rf"(?<![\d-]){code}(?!\d)", text)]
    assert not missing, f"JSON-RPC codes used in mcpapi/ but not in ## Errors: {missing}"


def test_every_http_status_is_documented() -> None:
    text = section("HTTP surface")
    missing = [status for status in sorted(http_statuses()) if not re.search(rf"\b{status}\b", text)]
    assert not missing, f"HTTP statuses /mcp answers with but ## HTTP surface does not: {missing}"


def test_every_mcp_method_and_protocol_version_is_documented() -> None:
    text = section("MCP methods")
    assert not undocumented(mcp_methods(), backticked(text))
    assert not [version for version in sorted(protocol_versions()) if version not in text]
