"""docs/security.md promises things and names the tests that prove them: every test it names
must exist, or the promise has silently lost its proof."""

import ast
import re
from pathlib import Path

import pytest

from tests.support.project import PROJECT_DIR

pytestmark = pytest.mark.reliability

SECURITY_DOC = PROJECT_DIR / "docs" / "security.md"
# `tests/x.py::test_name`, `tests/x.py::test_name[param]`, or `::test_name` after one of those.
_REFERENCE = re.compile(r"`(tests/[\w/]+\.py)?::(test_\w+)(?:\[[^\]]*\])?`")


def cited_tests() -> list[tuple[str, str]]:
    cited, current = [], None
    for path, name in _REFERENCE.findall(SECURITY_DOC.read_text()):
        current = path or current
        assert current, f"{name} is cited before any test file"
        cited.append((current, name))
    return cited


def functions_in(path: str) -> set[str]:
    tree = ast.parse((PROJECT_DIR / path).read_text())
    return {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)}


def test_the_doc_cites_tests() -> None:
    assert len(cited_tests()) > 30


@pytest.mark.parametrize("path,name", cited_tests(), ids=lambda value: str(value))
def test_every_test_the_security_doc_cites_exists(path: str, name: str) -> None:
    assert Path(PROJECT_DIR / path).is_file(), f"docs/security.md cites a missing file {path}"
    assert name in functions_in(path), f"docs/security.md cites {path}::{name}, which does not exist"
