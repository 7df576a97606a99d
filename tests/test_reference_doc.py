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

import ast
import functools
import importlib
import json
import pkgutil
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.test import Client, override_settings

from tests.support.project import PROJECT_DIR
from tests.test_docs import management_commands

REFERENCE = PROJECT_DIR / "docs" / "reference.md"
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
_SKIPPED_DIRS = {".venv", ".git", "node_modules", "__pycache__", "var", "out", ".pytest_cache"}
_SNAKE_CODE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*")
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9_]*")
_CITATION = re.compile(r"docs/reference\.md#([A-Za-z0-9_-]+)")
_RELATIVE_CITATION = re.compile(r"(?<![\w/])reference\.md#([A-Za-z0-9_-]+)")
_LOCAL_LINK = re.compile(r"\]\(#([A-Za-z0-9_-]+)\)")


# --- the reference -----------------------------------------------------------------------


def reference_text() -> str:
    return REFERENCE.read_text(encoding="utf-8")


def headings(text: str) -> list[tuple[int, str]]:
    """(level, title) of every Markdown heading outside fenced code."""
    found, fenced = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and (match := re.match(r"(#{1,6}) +(.+?) *#* *$", line)):
            found.append((len(match.group(1)), match.group(2)))
    return found


def github_anchor(title: str) -> str:
    """The id GitHub gives a heading: lower-cased, punctuation but '-' and '_' dropped."""
    return re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")


def anchors(text: str) -> set[str]:
    seen: dict[str, int] = {}
    result = set()
    for _, title in headings(text):
        anchor = github_anchor(title)
        count = seen.get(anchor, 0)
        seen[anchor] = count + 1
        result.add(anchor if count == 0 else f"{anchor}-{count}")
    return result


def _blocks(text: str, level: int) -> dict[str, str]:
    """Heading title -> its text (up to the next heading of `level` or higher)."""
    marker = "#" * level + " "
    blocks: dict[str, str] = {}
    title, lines, fenced = None, [], False
    for line in text.splitlines():
        fenced = not fenced if line.startswith("```") else fenced
        heading = re.match(r"(#{1,6}) ", line) if not fenced else None
        if heading and len(heading.group(1)) <= level:
            if title is not None:
                blocks[title] = "\n".join(lines)
            title, lines = (line[len(marker) :].strip(), []) if line.startswith(marker) else (None, [])
            continue
        lines.append(line)
    if title is not None:
        blocks[title] = "\n".join(lines)
    return blocks


def section(name: str) -> str:
    sections = _blocks(reference_text(), 2)
    assert name in sections, f"docs/reference.md has no '## {name}' section"
    return sections[name]


def subsections(text: str) -> dict[str, str]:
    return _blocks(text, 3)


def backticked(text: str) -> set[str]:
    return set(re.findall(r"`([^`\n]+)`", text))


def first_column(text: str, header: str) -> list[str]:
    """The backticked first cells of every table in `text` whose first header cell is `header`."""
    cells, in_table = [], False
    for line in text.splitlines():
        row = [cell.strip() for cell in line.strip().strip("|").split("|")] if line.startswith("|") else []
        if not row:
            in_table = False
        elif row[0] == header:
            in_table = True
        elif in_table and not set(row[0]) <= set("-: "):
            cells.extend(re.findall(r"`([^`]+)`", row[0]))
    return cells


def _missing(names: Iterable[str], documented: set[str]) -> list[str]:
    return sorted(set(names) - documented)


# --- the code ----------------------------------------------------------------------------


def python_files(root: Path = PROJECT_DIR, exclude: Iterable[str] = ()) -> list[Path]:
    """Every .py file under `root`, minus virtualenvs, caches and the top-level `exclude` dirs."""
    excluded = set(exclude)
    result = []
    for path in root.rglob("*.py"):
        parts = path.relative_to(root).parts
        if excluded.intersection(parts[:1]) or _SKIPPED_DIRS.intersection(parts):
            continue
        result.append(path)
    return sorted(result)


def app_files(app: str) -> list[Path]:
    return [path for path in python_files(PROJECT_DIR / app) if "migrations" not in path.parts]


@functools.cache
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _module_strings(tree: ast.Module) -> dict[str, str]:
    """NAME -> value of every module-level `NAME = "literal"`."""
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(node.value, ast.Constant):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name) and isinstance(node.value.value, str):
                    found[target.id] = node.value.value
    return found


class _Strings:
    """Resolves a literal or a module constant (this module's first, then any scanned one)."""

    def __init__(self, files: Iterable[Path]) -> None:
        self.by_file = {path: _module_strings(_tree(path)) for path in files}
        self.anywhere: dict[str, str] = {}
        for constants in self.by_file.values():
            self.anywhere.update(constants)

    def value(self, node: ast.AST | None, path: Path) -> str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.Name):
            return self.by_file.get(path, {}).get(node.id, self.anywhere.get(node.id))
        return None


def _callee(call: ast.Call) -> str:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def _nodes(files: Iterable[Path]) -> Iterator[tuple[Path, ast.AST]]:
    for path in files:
        for node in ast.walk(_tree(path)):
            yield path, node


def _is_message(node: ast.AST) -> bool:
    """A human message: a string literal or f-string with a space in it."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and " " in node.value
    if isinstance(node, ast.JoinedStr):
        return any(isinstance(part, ast.Constant) and " " in str(part.value) for part in node.values)
    return False


def _listed_strings(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Call) and node.args:  # frozenset({...}), tuple([...])
        node = node.args[0]
    items = node.keys if isinstance(node, ast.Dict) else getattr(node, "elts", [])
    return [item.value for item in items if isinstance(item, ast.Constant) and isinstance(item.value, str)]


def _is_problem_callee(name: str) -> bool:
    return "problem" in name.lower() or name.lstrip("_") in {"fail", "warn", "warning", "error"}


def problem_codes() -> set[str]:
    files = app_files("catalog")
    strings = _Strings(files)
    codes: set[str] = set()
    for path, node in _nodes(files):
        if isinstance(node, ast.Call) and _is_problem_callee(_callee(node)):
            candidates = [*node.args, *(kw.value for kw in node.keywords if kw.arg == "code")]
            codes.update(
                value
                for arg in candidates
                if (value := strings.value(arg, path)) is not None and _SNAKE_CODE.fullmatch(value)
            )
        elif isinstance(node, ast.Tuple) and len(node.elts) >= 2 and _is_message(node.elts[1]):
            value = strings.value(node.elts[0], path)
            if value is not None and _SNAKE_CODE.fullmatch(value):
                codes.add(value)
        elif isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id.upper().endswith(("CODES", "CODE_LIST"))
            for target in node.targets
        ):
            codes.update(_listed_strings(node.value))
        elif isinstance(node, ast.ClassDef) and "code" in node.name.lower():
            if any(getattr(base, "id", getattr(base, "attr", "")).endswith("Enum") for base in node.bases):
                for item in node.body:
                    if isinstance(item, ast.Assign) and isinstance(item.value, ast.Constant):
                        codes.add(str(item.value.value))
    return codes


def _is_environ(node: ast.AST) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "environ") or (
        isinstance(node, ast.Name) and node.id == "environ"
    )


def _environ_key(node: ast.AST) -> ast.AST | None:
    """The key expression of a direct environment read, or None."""
    if isinstance(node, ast.Call) and node.args:
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in {"get", "setdefault", "pop"}:
            return node.args[0] if _is_environ(func.value) else None
        if _callee(node) == "getenv":
            return node.args[0]
    if isinstance(node, ast.Subscript) and _is_environ(node.value):
        return node.slice
    if isinstance(node, ast.Compare) and any(_is_environ(item) for item in node.comparators):
        return node.left
    return None


def _env_readers(files: Iterable[Path]) -> set[str]:
    """Functions that read the variable named by their first parameter (env_int, _int...)."""
    readers = set()
    for _, node in _nodes(files):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.args.args:
            first = node.args.args[0].arg
            keys = (_environ_key(inner) for inner in ast.walk(node))
            if any(isinstance(key, ast.Name) and key.id == first for key in keys):
                readers.add(node.name)
    return readers


def env_vars_read(files: list[Path]) -> set[str]:
    strings = _Strings(files)
    readers = _env_readers(files)
    names = set()
    for path, node in _nodes(files):
        key = _environ_key(node)
        if key is None and isinstance(node, ast.Call) and node.args and _callee(node) in readers:
            key = node.args[0]
        value = strings.value(key, path) if key is not None else None
        if value is not None and _ENV_NAME.fullmatch(value):
            names.add(value)
    return names


def production_env_vars() -> set[str]:
    """What the service, its commands and its scripts read (not the tests, benchmarks or skills)."""
    return env_vars_read(python_files(exclude=("tests", "bench", "conformance", "skills")))


def _int_literal(node: ast.AST) -> int | None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _int_literal(node.operand)
        return -inner if inner is not None else None
    return None


def jsonrpc_codes() -> set[int]:
    return {
        value
        for _, node in _nodes(app_files("mcpapi"))
        if (value := _int_literal(node)) is not None and -32768 <= value <= -32000
    }


def http_statuses() -> set[int]:
    """Statuses the /mcp stack answers with: `status=` arguments, `status = N` attributes and
    the first argument of a refusal or response helper, in mcpapi/ and accounts/."""
    found = set()
    for _, node in _nodes(app_files("mcpapi") + app_files("accounts")):
        candidates: list[ast.AST] = []
        if isinstance(node, ast.Call):
            candidates += [kw.value for kw in node.keywords if kw.arg in ("status", "status_code")]
            if node.args and re.search(r"error|refus|response", _callee(node), re.IGNORECASE):
                candidates.append(node.args[0])
        elif isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id in ("status", "status_code") for target in node.targets
        ):
            candidates.append(node.value)
        found.update(v for c in candidates if (v := _int_literal(c)) is not None and 200 <= v <= 599)
    return found


def mcp_methods() -> set[str]:
    """Methods registered with the dispatcher: `register(name, ...)`, or `reads_skills(name,
    ...)` for a method that reads skills, and constants named ...METHOD."""
    files = app_files("mcpapi")
    strings = _Strings(files)
    methods = set()
    for path, node in _nodes(files):
        if isinstance(node, ast.Call) and _callee(node) in ("register", "reads_skills") and node.args:
            if (value := strings.value(node.args[0], path)) is not None:
                methods.add(value)
    for constants in strings.by_file.values():
        methods.update(value for name, value in constants.items() if name.endswith("METHOD"))
    return methods


def protocol_versions() -> set[str]:
    return {
        node.value
        for _, node in _nodes(app_files("mcpapi"))
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and re.fullmatch(r"\d{4}-\d{2}-\d{2}", node.value)
    }


def tool_error_codes_raised() -> set[str]:
    files = app_files("mcpapi")
    strings = _Strings(files)
    return {
        value
        for path, node in _nodes(files)
        if isinstance(node, ast.Call)
        and _callee(node) == "ToolError"
        and node.args
        and (value := strings.value(node.args[0], path)) is not None
    }


def frontmatter_keys() -> set[str]:
    import catalog

    keys: set[str] = set()
    for info in pkgutil.walk_packages(catalog.__path__, "catalog."):
        if ".migrations" in info.name or ".management" in info.name:
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if name.isupper() and name.endswith("KEYS") and isinstance(value, tuple | list | set | frozenset):
                keys.update(item for item in value if isinstance(item, str))
    return keys


def config_leaves(data: dict[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    for key, value in data.items():
        if isinstance(value, dict):
            yield from config_leaves(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", value


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
    assert {"missing_config", "unknown_key", "duplicate_key", "symlink", "not_utf8"} <= problem_codes()
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
        if _SKIPPED_DIRS.intersection(parts) or parts[0] == "skills" or path == THIS_FILE:
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
    assert not _missing(management_commands(), documented), "commands without a '### `name`' section"
    assert not _missing(documented, set(management_commands())), "sections for commands that do not exist"


def test_every_environment_variable_read_is_documented() -> None:
    documented = backticked(section("Environment"))
    missing = _missing(production_env_vars(), documented)
    assert not missing, f"environment variables read by the code but not in ## Environment: {missing}"


def test_every_documented_environment_variable_is_read_somewhere() -> None:
    rows = first_column(section("Environment"), "variable")
    read = env_vars_read(python_files(exclude=("skills",)))
    assert rows
    assert not _missing(rows, read), "## Environment documents variables nothing reads"


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
    missing = _missing(frontmatter_keys(), backticked(section("Skill format")))
    assert not missing, f"frontmatter keys not in ## Skill format: {missing}"


def test_the_open_dialect_has_its_marked_place() -> None:
    assert "Open Agent Skills dialect" in subsections(section("Skill format"))


def test_every_problem_code_is_documented() -> None:
    text = section("Validation")
    missing = _missing(problem_codes(), backticked(text))
    assert not missing, f"problem codes the validation can emit but ## Validation does not list: {missing}"
    stale = _missing(first_column(text, "code"), problem_codes())
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
    missing = [f"common field {name}" for name in _missing(_ENVELOPE, everywhere)]
    for tool in listed_tools():
        name, output = tool["name"], tool["outputSchema"]
        own = backticked(subsections(tools_text).get(f"`{name}`", ""))
        missing += [f"{name} argument {arg}" for arg in _missing(tool["inputSchema"]["properties"], own)]
        missing += [
            f"{name} result {field}" for field in _missing(set(output["properties"]) - _ENVELOPE, own)
        ]
        missing += [f"{name} nested field {field}" for field in _missing(schema_fields(output), everywhere)]
    assert not missing, f"not documented in ## Tools: {missing}"


@pytest.mark.django_db
def test_every_tool_error_code_is_documented() -> None:
    codes = tool_error_codes_raised().union(
        *(schema_enums(tool["outputSchema"], "code") for tool in listed_tools())
    )
    text = subsections(section("Errors")).get("Tool errors", "")
    assert not _missing(codes, backticked(text)), "tool error codes not in ## Errors / ### Tool errors"
    assert not _missing(first_column(text, "code"), codes), "### Tool errors lists codes nothing raises"


@pytest.mark.django_db
def test_every_match_reason_rule_is_documented() -> None:
    rules = set().union(*(schema_enums(tool["outputSchema"], "rule") for tool in listed_tools()))
    assert rules
    assert not _missing(rules, backticked(section("Search")))


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
    assert not _missing(mcp_methods(), backticked(text))
    assert not [version for version in sorted(protocol_versions()) if version not in text]
