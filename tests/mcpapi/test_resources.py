"""resources/list and resources/read: the skill:// projection of what the tools serve."""

import pytest

from tests.support.mcp import McpClient, Published, publish_head
from tests.support.repos import config_with_sections
from tests.support.standard import GUIDE, SCRIPT

pytestmark = pytest.mark.django_db


def list_all(mcp: McpClient) -> list[dict]:
    resources, cursor = [], None
    while True:
        page = mcp.result("resources/list", {"cursor": cursor} if cursor else {})
        resources += page["resources"]
        cursor = page.get("nextCursor")
        if cursor is None:
            return resources


def test_an_empty_registry_lists_no_resources(mcp: McpClient) -> None:
    assert mcp.result("resources/list") == {"resources": []}


def test_every_file_of_every_visible_skill_is_listed(mcp: McpClient, standard: Published) -> None:
    resources = list_all(mcp)
    assert [resource["uri"] for resource in resources] == [
        "skill://alpha/SKILL.md",
        "skill://alpha/references/guide.md",
        "skill://alpha/scripts/run.sh",
        "skill://beta/SKILL.md",
        "skill://gamma/SKILL.md",
    ]
    skill_md = resources[0]
    assert skill_md["name"] == "alpha/SKILL.md"
    assert skill_md["mimeType"] == "text/markdown"
    assert skill_md["description"] == "Review pull requests carefully."
    guide = resources[1]
    assert guide["size"] == len(GUIDE.encode())
    assert guide["name"] == "alpha/references/guide.md"


def test_a_cleared_caller_also_sees_zdr_resources(mcp_zdr: McpClient, standard: Published) -> None:
    uris = [resource["uri"] for resource in list_all(mcp_zdr)]
    assert "skill://secret-ops/SKILL.md" in uris
    assert "skill://secret-ops/references/runbook.md" in uris


def test_resources_are_paginated_with_the_configured_page_size(mcp: McpClient, make_repo) -> None:
    repo = make_repo(config_with_sections(pagination={"default_limit": 1, "max_limit": 2}))
    repo.add_skill("one", files={"references/a.md": "a", "references/b.md": "b"})
    repo.add_skill("two")
    repo.add_skill("three")
    publish_head(repo)
    first = mcp.result("resources/list")
    assert [r["uri"] for r in first["resources"]] == ["skill://one/SKILL.md", "skill://one/references/a.md"]
    second = mcp.result("resources/list", {"cursor": first["nextCursor"]})
    assert [r["uri"] for r in second["resources"]] == [
        "skill://one/references/b.md",
        "skill://three/SKILL.md",
    ]
    third = mcp.result("resources/list", {"cursor": second["nextCursor"]})
    assert [r["uri"] for r in third["resources"]] == ["skill://two/SKILL.md"]
    assert "nextCursor" not in third


def test_a_bad_resources_cursor_is_invalid_params(mcp: McpClient, standard: Published) -> None:
    for cursor in ("nonsense", "", "a:b"):
        assert mcp.error("resources/list", {"cursor": cursor})["code"] == -32602
    assert mcp.error("resources/list", {"cursor": 5})["code"] == -32602


def test_a_tool_cursor_is_not_a_resources_cursor(mcp: McpClient, standard: Published) -> None:
    cursor = mcp.ok("skills_list", limit=1)["next_cursor"]
    assert mcp.error("resources/list", {"cursor": cursor})["code"] == -32602


def test_a_resources_cursor_from_an_older_revision_is_invalid_params(mcp: McpClient, make_repo) -> None:
    repo = make_repo(config_with_sections(pagination={"default_limit": 1, "max_limit": 1}))
    repo.add_skill("one")
    repo.add_skill("two")
    publish_head(repo)
    cursor = mcp.result("resources/list")["nextCursor"]
    repo.add_skill("three")
    publish_head(repo)
    assert mcp.error("resources/list", {"cursor": cursor})["code"] == -32602


def test_a_cursor_on_an_empty_registry_is_invalid_params(mcp: McpClient) -> None:
    assert mcp.error("resources/list", {"cursor": "x"})["code"] == -32602


def test_reading_skill_md_gives_the_whole_file_with_frontmatter(mcp: McpClient, standard: Published) -> None:
    expected = (standard.repo.root / "skills/alpha/SKILL.md").read_text()
    result = mcp.result("resources/read", {"uri": "skill://alpha/SKILL.md"})
    assert result == {
        "contents": [{"uri": "skill://alpha/SKILL.md", "mimeType": "text/markdown", "text": expected}]
    }
    assert expected.startswith("---\n")


def test_reading_a_supporting_file_gives_its_text(mcp: McpClient, standard: Published) -> None:
    [content] = mcp.result("resources/read", {"uri": "skill://alpha/scripts/run.sh"})["contents"]
    assert content["text"] == SCRIPT
    assert content["uri"] == "skill://alpha/scripts/run.sh"
    assert content["mimeType"]


@pytest.mark.parametrize(
    "uri",
    [
        "skill://nope/SKILL.md",
        "skill://ALPHA/SKILL.md",
        "skill://alpha/skill.md",
        "skill://alpha/",
        "skill://alpha",
        "skill://",
        "skill:///SKILL.md",
        "skill://alpha/references/missing.md",
        "skill://alpha/../beta/SKILL.md",
        "skill://alpha/references/../SKILL.md",
        "skill://alpha/%2e%2e/beta/SKILL.md",
        "skill://alpha/references/guide.md ",
        "skill://beta/references/guide.md",
        "skill://secret-ops/SKILL.md",
        "skill://secret-ops/references/runbook.md",
        "file:///etc/passwd",
        "https://example.com/SKILL.md",
        "alpha/SKILL.md",
        "",
    ],
)
def test_a_uri_naming_no_visible_resource_is_resource_not_found(
    mcp: McpClient, standard: Published, uri: str
) -> None:
    error = mcp.error("resources/read", {"uri": uri})
    assert error["code"] == -32002
    assert error["data"] == {"uri": uri}


def test_a_cleared_caller_reads_zdr_resources(mcp_zdr: McpClient, standard: Published) -> None:
    [content] = mcp_zdr.result("resources/read", {"uri": "skill://secret-ops/references/runbook.md"})[
        "contents"
    ]
    assert content["text"] == "# Runbook\n"


def test_reading_on_an_empty_registry_is_resource_not_found(mcp: McpClient) -> None:
    assert mcp.error("resources/read", {"uri": "skill://alpha/SKILL.md"})["code"] == -32002


@pytest.mark.parametrize("params", [{}, {"uri": 5}, {"uri": None}])
def test_read_without_a_uri_string_is_invalid_params(mcp: McpClient, params: dict) -> None:
    assert mcp.error("resources/read", params)["code"] == -32602


def test_every_listed_resource_can_be_read(mcp: McpClient, standard: Published) -> None:
    listed = list_all(mcp)
    assert listed, "resources/list listed nothing: the reads below would prove nothing"
    for resource in listed:
        [content] = mcp.result("resources/read", {"uri": resource["uri"]})["contents"]
        assert len(content["text"].encode()) == resource["size"]
