"""Fixtures of the /mcp tests: known callers, and the standard skills published into the
test database (tests/support/standard.py)."""

from collections.abc import Callable, Iterator

import pytest

from catalog import index as catalog_index
from mcpapi.registry import clear_search_cache
from tests.support.mcp import McpClient, Published, publish_head
from tests.support.repos import SkillRepo
from tests.support.standard import add_standard_skills
from tests.support.tokens import READ_TOKEN, ZDR_TOKEN


@pytest.fixture(autouse=True)
def mcp_settings(settings) -> Iterator[None]:
    """Known callers whatever the environment; nothing may reach a real GitHub."""
    settings.SKILLS_READ_TOKENS = [READ_TOKEN]
    settings.SKILLS_ZDR_TOKENS = [ZDR_TOKEN]
    settings.ALLOWED_GITHUB_LOGINS = []
    settings.ZDR_GITHUB_LOGINS = []
    settings.GITHUB_API_URL = "http://127.0.0.1:9"
    settings.MCP_ALLOWED_ORIGINS = []
    catalog_index.clear_index_cache()
    clear_search_cache()
    yield
    catalog_index.clear_index_cache()
    clear_search_cache()


@pytest.fixture
def mcp() -> McpClient:
    return McpClient()


@pytest.fixture
def mcp_zdr() -> McpClient:
    return McpClient(ZDR_TOKEN)


@pytest.fixture
def standard(make_repo: Callable[..., SkillRepo]) -> Published:
    """alpha, beta, gamma and the ZDR-only secret-ops, published."""
    repo = make_repo()
    add_standard_skills(repo)
    return Published(repo, publish_head(repo))
