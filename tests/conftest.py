from pathlib import Path

import pytest

from tests.skillrepo import SkillRepo


@pytest.fixture
def skill_repo(tmp_path: Path) -> SkillRepo:
    """An empty skills repository (config committed nowhere yet)."""
    return SkillRepo(tmp_path / "repo")
