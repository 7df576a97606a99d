#!/usr/bin/env python3
"""Flag Django migration operations that commonly lock tables, break running code, or cannot be reversed.

Read-only static analysis: it parses migration files with `ast` and never imports or
executes them, so it needs neither Django nor settings. It is a triage aid, not a
verdict: always confirm with `manage.py sqlmigrate <app> <migration>` against the
real database engine.

Usage:
    find_risky_operations.py PATH [PATH ...]
        PATH is a migration file or a directory searched recursively for
        */migrations/[0-9]*.py files.

Exit status: 0 nothing flagged, 1 something flagged, 2 a file could not be parsed.
"""

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

RISKS = {
    "AddIndex": "CREATE INDEX blocks writes for the whole build; use AddIndexConcurrently "
    "(django.contrib.postgres.operations) in a migration with atomic = False",
    "AlterUniqueTogether": "builds a unique index while blocking writes; prefer a UniqueConstraint "
    "built concurrently (see references/django/locking.md)",
    "AlterIndexTogether": "builds indexes while blocking writes",
    "AlterField": "may rewrite the table (type change) or scan it under an exclusive lock "
    "(SET NOT NULL, new FK/unique); read the sqlmigrate output",
    "RenameField": "old code still running during the deploy uses the old column name; "
    "use expand/contract (add, dual-write, backfill, switch, drop)",
    "RenameModel": "old code still running during the deploy uses the old table name",
    "RemoveField": "old code still running during the deploy selects this column; remove it from "
    "the code (SeparateDatabaseAndState) one release before dropping it",
    "DeleteModel": "old code still running during the deploy uses this table; drop it one release "
    "after the code stops using it",
    "AlterModelTable": "renames the table under old code's feet",
}


def keyword(call: ast.Call, name: str) -> ast.expr | None:
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    return None


def is_true(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is True


def op_name(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return ""


# Callables whose single shared value is harmless for existing rows.
HARMLESS_CALLABLES = {"dict", "list", "set", "tuple", "str", "int", "float", "bool"}


def looks_like_callable(node: ast.expr | None) -> bool:
    """`default=uuid.uuid4` or `default=timezone.now`, but not `default=Status.DRAFT` or `default=None`."""
    if isinstance(node, ast.Attribute):
        name = node.attr
    elif isinstance(node, ast.Name):
        name = node.id
    else:
        return False
    return name[:1].islower() and name not in HARMLESS_CALLABLES


def field_call(call: ast.Call) -> ast.Call | None:
    node = keyword(call, "field")
    if node is None and len(call.args) >= 3:
        node = call.args[2]
    return node if isinstance(node, ast.Call) else None


def check_add_field(call: ast.Call) -> Iterator[str]:
    field = field_call(call)
    if field is None:
        return
    kind = op_name(field)
    if kind in {"ForeignKey", "OneToOneField"}:
        yield (
            f"AddField {kind}: adds an FK constraint validated under a lock on both tables and an "
            "index built without CONCURRENTLY; consider db_constraint/db_index=False plus separate "
            "NOT VALID / VALIDATE and AddIndexConcurrently steps on large tables"
        )
    default = keyword(field, "default")
    if looks_like_callable(default):
        yield (
            "AddField with a callable default: Django evaluates it ONCE and writes that single value "
            "into every existing row (e.g. the same uuid4 everywhere); add nullable, backfill, then "
            "alter"
        )
    has_default = default is not None or keyword(field, "db_default") is not None
    if not is_true(keyword(field, "null")) and not has_default and kind != "ManyToManyField":
        yield "AddField NOT NULL without a default: fails on a non-empty table, and old code cannot insert"
    if is_true(keyword(field, "unique")):
        yield "AddField unique=True: builds a unique index while blocking writes"


def check_run_python(call: ast.Call, atomic: bool) -> Iterator[str]:
    reverse = keyword(call, "reverse_code")
    if reverse is None and len(call.args) < 2:
        yield "RunPython without reverse_code: the migration is irreversible (use RunPython.noop if safe)"
    if atomic:
        yield (
            "RunPython in an atomic migration: the whole data change is one transaction holding row "
            "locks; batch large backfills (see references/django/backfills.md)"
        )


def check_run_sql(call: ast.Call) -> Iterator[str]:
    if keyword(call, "reverse_sql") is None and len(call.args) < 2:
        yield "RunSQL without reverse_sql: the migration is irreversible"
    if keyword(call, "state_operations") is None:
        yield "RunSQL without state_operations: if it changes the schema, Django's model state will not know"


def migration_atomic(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == "Migration":
            for stmt in node.body:
                if isinstance(stmt, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == "atomic" for t in stmt.targets
                ):
                    return not (isinstance(stmt.value, ast.Constant) and stmt.value.value is False)
    return True


def findings(path: Path) -> Iterator[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    atomic = migration_atomic(tree)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = op_name(node)
        messages: list[str] = []
        if name in RISKS:
            messages.append(f"{name}: {RISKS[name]}")
        elif name == "AddField":
            messages.extend(check_add_field(node))
        elif name == "RunPython":
            messages.extend(check_run_python(node, atomic))
        elif name == "RunSQL":
            messages.extend(check_run_sql(node))
        elif name in {"AddIndexConcurrently", "RemoveIndexConcurrently"} and atomic:
            messages.append(f"{name} requires `atomic = False` on the Migration class")
        elif name == "AddConstraint":
            messages.append(
                "AddConstraint: a CHECK/FK constraint is validated with a full scan under lock, a "
                "unique constraint builds an index blocking writes; see references/django/locking.md"
            )
        for message in messages:
            yield node.lineno, message


def migration_files(paths: list[str]) -> Iterator[Path]:
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            yield from sorted(p for p in path.rglob("migrations/[0-9]*.py") if ".venv" not in p.parts)
        else:
            yield path


def main(argv: list[str]) -> int:
    if not argv or argv[0] in {"-h", "--help"}:
        print(__doc__)
        return 0 if argv else 2
    status = 0
    for path in migration_files(argv):
        try:
            found = list(findings(path))
        except (OSError, SyntaxError, UnicodeDecodeError) as exc:
            print(f"{path}: cannot parse: {exc}", file=sys.stderr)
            status = 2
            continue
        for lineno, message in found:
            print(f"{path}:{lineno}: {message}")
        if found and status == 0:
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
