"""What the code names that a user can meet: problem codes, environment variables, JSON-RPC
codes, HTTP statuses, MCP methods, protocol versions, tool error codes, frontmatter keys,
found by reading the source (for tests/test_reference_doc.py)."""

import ast
import functools
import importlib
import pkgutil
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from tests.support.project import PROJECT_DIR

SKIPPED_DIRS = {".venv", ".git", "node_modules", "__pycache__", "var", "out", ".pytest_cache"}
_SNAKE_CODE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*")
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9_]*")


def python_files(root: Path = PROJECT_DIR, exclude: Iterable[str] = ()) -> list[Path]:
    """Every .py file under `root`, minus virtualenvs, caches and the top-level `exclude` dirs."""
    excluded = set(exclude)
    result = []
    for path in root.rglob("*.py"):
        parts = path.relative_to(root).parts
        if excluded.intersection(parts[:1]) or SKIPPED_DIRS.intersection(parts):
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
        elif isinstance(node, ast.Call) and any(kw.arg == "code" for kw in node.keywords):
            # A helper that reports on its caller's behalf takes the code by name.
            codes.update(
                value
                for kw in node.keywords
                if kw.arg == "code"
                and (value := strings.value(kw.value, path)) is not None
                and _SNAKE_CODE.fullmatch(value)
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
