import itertools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.databases import SubprocessDatabase, TemplateDatabase
from tests.support.repos import SkillRepo


@pytest.fixture
def skill_repo(tmp_path: Path) -> SkillRepo:
    """An empty skills repository (config committed nowhere yet)."""
    return SkillRepo(tmp_path / "repo")


@pytest.fixture
def make_repo(tmp_path: Path) -> Callable[..., SkillRepo]:
    """A factory of fresh skills repositories, each in its own directory of this test."""
    counter = itertools.count()

    def make(config: dict[str, Any] | None = None) -> SkillRepo:
        return SkillRepo(tmp_path / f"repo{next(counter)}", config=config)

    return make


@pytest.fixture(scope="session")
def template_db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TemplateDatabase]:
    """One migrated database per session; copies are cheap (a file copy, or CREATE ... TEMPLATE)."""
    template = TemplateDatabase(tmp_path_factory.mktemp("template-db"))
    yield template
    template.drop()


@pytest.fixture
def subprocess_db(template_db: TemplateDatabase, tmp_path: Path) -> Iterator[SubprocessDatabase]:
    """A fresh migrated database that `manage.py` and gunicorn subprocesses share."""
    with template_db.copy(tmp_path) as database:
        yield database
