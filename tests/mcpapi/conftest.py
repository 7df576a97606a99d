"""Fixtures of the /mcp tests: known callers, and the standard skills published into the
test database (tests/support/standard.py)."""

from collections.abc import Callable, Iterator

import pytest

from tests.support.mcp import McpClient, ModernMcp, Published, only_static_callers, publish_head
from tests.support.repos import SkillRepo
from tests.support.standard import add_standard_skills
from tests.support.tokens import ZDR_TOKEN


@pytest.fixture(autouse=True)
def mcp_settings(settings) -> Iterator[None]:
    """Known callers whatever the environment; nothing may reach a real GitHub."""
    with only_static_callers(settings):
        yield


@pytest.fixture
def mcp() -> McpClient:
    return McpClient()


@pytest.fixture
def mcp_zdr() -> McpClient:
    return McpClient(ZDR_TOKEN)


@pytest.fixture
def modern() -> ModernMcp:
    return ModernMcp()


@pytest.fixture
def standard(make_repo: Callable[..., SkillRepo]) -> Published:
    """alpha, beta, gamma and the ZDR-only secret-ops, published."""
    repo = make_repo()
    add_standard_skills(repo)
    return Published(repo, publish_head(repo))
