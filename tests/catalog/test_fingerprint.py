"""rules_fingerprint() covers every module whose code decides a verdict: an edit of any of
them makes the next publish validate every skill again instead of reusing verdicts."""

import ast
import importlib
from collections.abc import Iterator
from types import ModuleType

import pytest
import yaml

from catalog import fingerprint
from catalog.fingerprint import RULE_MODULES, rules_fingerprint
from catalog.models import Snapshot
from catalog.publishing import publish
from tests.catalog.publish_support import bump
from tests.support.repos import SkillRepo

RULE_MODULE_NAMES = [module.__name__ for module in RULE_MODULES]


@pytest.fixture
def fresh_fingerprint() -> Iterator[None]:
    """The fingerprint computed again for this test, and again after it."""
    rules_fingerprint.cache_clear()
    yield
    rules_fingerprint.cache_clear()


def edit_one_byte(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """As if one byte of module `name`'s source had changed on disk."""
    real = fingerprint.module_source

    def source(module: ModuleType) -> bytes:
        data = real(module)
        if module.__name__ != name:
            return data
        return data[:-1] + bytes([data[-1] ^ 1])

    monkeypatch.setattr(fingerprint, "module_source", source)


def catalog_imports(module_name: str) -> set[str]:
    """The catalog modules that `module_name`'s source imports (directly)."""
    module = importlib.import_module(module_name)
    tree = ast.parse(fingerprint.module_source(module))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("catalog."))
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "catalog":
                found.update(f"catalog.{alias.name}" for alias in node.names)
            elif node.module.startswith("catalog."):
                found.add(node.module)
    return found


def imported_by_validation() -> set[str]:
    """catalog.validation and every catalog module it imports, transitively."""
    seen: set[str] = set()
    todo = ["catalog.validation"]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(catalog_imports(name))
    return seen


def test_the_import_scan_follows_imports_through_the_catalog() -> None:
    # Guards the scan below: if it stopped following imports, that test would pass vacuously.
    assert {"catalog.rules", "catalog.scan", "catalog.report"} <= catalog_imports("catalog.validation")
    assert "catalog.paths" in catalog_imports("catalog.rules")
    assert {"catalog.paths", "catalog.strict_yaml"} <= imported_by_validation()


def test_every_catalog_module_validation_imports_is_in_the_fingerprint() -> None:
    missing = imported_by_validation() - set(RULE_MODULE_NAMES)
    assert not missing, f"these modules decide verdicts but are not in RULE_MODULES: {sorted(missing)}"


@pytest.mark.usefixtures("fresh_fingerprint")
def test_the_rules_fingerprint_names_the_code_and_the_parsers(monkeypatch: pytest.MonkeyPatch) -> None:
    current = rules_fingerprint()
    assert len(current) == 64
    assert rules_fingerprint.__wrapped__() == current
    monkeypatch.setattr(yaml, "__version__", "0.0")
    assert rules_fingerprint.__wrapped__() != current


@pytest.mark.usefixtures("fresh_fingerprint")
@pytest.mark.parametrize("name", RULE_MODULE_NAMES)
def test_a_one_byte_edit_of_a_rule_module_changes_the_fingerprint(
    monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    before = rules_fingerprint.__wrapped__()
    edit_one_byte(monkeypatch, name)
    after = rules_fingerprint.__wrapped__()
    assert after != before
    assert len(after) == 64


@pytest.mark.usefixtures("fresh_fingerprint")
def test_an_unreadable_rule_module_means_no_fingerprint(monkeypatch: pytest.MonkeyPatch) -> None:
    def unreadable(module: ModuleType) -> bytes:
        raise OSError("gone")

    monkeypatch.setattr(fingerprint, "module_source", unreadable)
    assert rules_fingerprint.__wrapped__() == ""


@pytest.mark.django_db
@pytest.mark.usefixtures("fresh_fingerprint")
@pytest.mark.parametrize("name", RULE_MODULE_NAMES)
def test_a_publish_after_an_edit_of_a_rule_module_validates_every_skill(
    skill_repo: SkillRepo, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    skill_repo.add_skill("alpha", files={"references/guide.md": "# Guide\n"})
    skill_repo.add_skill("beta")
    skill_repo.add_skill("gamma", required_zdr=True)
    publish(skill_repo.root, skill_repo.commit("three skills"))
    # Under the same rules, the unchanged skills are reused...
    same_rules = publish(skill_repo.root, bump(skill_repo, "beta", "1.1.0", "Beta, better.\n"))
    assert same_rules.reused_skills == 2

    edit_one_byte(monkeypatch, name)
    rules_fingerprint.cache_clear()
    sha = bump(skill_repo, "beta", "1.2.0", "Beta, best.\n")
    edited = publish(skill_repo.root, sha)

    # ...under edited ones, none is.
    assert (edited.skill_count, edited.reused_skills) == (3, 0)
    assert Snapshot.objects.get(sha=sha).rules_fingerprint == rules_fingerprint() != ""
    assert Snapshot.objects.get(sha=same_rules.sha).rules_fingerprint != rules_fingerprint()
