"""Shared pieces of the hostile-input tests (tests/reliability/test_hostile_*.py): how many
examples hypothesis tries, JSON trees of hostile values, and check_skills run in-process."""

import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from django.core.management import call_command
from hypothesis import HealthCheck
from hypothesis import settings as hsettings
from hypothesis import strategies as st


def examples(count: int, *, function_scoped_fixtures: bool = False) -> hsettings:
    """`count` examples, no deadline (a shared machine is slow at times). Tests that take a
    function-scoped fixture share it across examples on purpose: the fixture is read-only."""
    checks = [HealthCheck.too_slow]
    if function_scoped_fixtures:
        checks.insert(0, HealthCheck.function_scoped_fixture)
    return hsettings(max_examples=count, deadline=None, suppress_health_check=checks)


def json_trees(
    scalars: st.SearchStrategy[Any],
    keys: Sequence[str],
    *,
    key_chars: int,
    list_items: int,
    object_items: int,
    max_leaves: int,
) -> st.SearchStrategy[Any]:
    """JSON values built from `scalars`: lists of up to `list_items`, objects of up to
    `object_items` keyed by `keys` or by random text up to `key_chars` long, nested up to
    `max_leaves` scalars in all."""
    return st.recursive(
        scalars,
        lambda inner: (
            st.lists(inner, max_size=list_items)
            | st.dictionaries(
                st.sampled_from(keys) | st.text(max_size=key_chars), inner, max_size=object_items
            )
        ),
        max_leaves=max_leaves,
    )


def check_skills_json(root: Path) -> tuple[int, str]:
    """`check_skills --format json` on `root`, in-process: its exit code and what it printed."""
    out = io.StringIO()
    try:
        call_command(
            "check_skills", "--repo", str(root), "--format", "json", stdout=out, stderr=io.StringIO()
        )
        code = 0
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    return code, out.getvalue()
