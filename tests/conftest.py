import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

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
