"""One snapshot per request, resolved once, and cheap: the serving path's promises."""

import pytest

from catalog import index as catalog_index
from tests.support.mcp import McpClient, Published, publish_head

pytestmark = pytest.mark.django_db


def test_the_active_snapshot_is_resolved_once_per_request(
    mcp: McpClient, standard: Published, monkeypatch
) -> None:
    calls = []
    real = catalog_index.active_snapshot

    def counting():
        calls.append(1)
        return real()

    monkeypatch.setattr(catalog_index, "active_snapshot", counting)
    cursor = mcp.ok("skills_list", limit=1)["next_cursor"]
    assert len(calls) == 1
    mcp.ok("skills_list", limit=1, cursor=cursor, revision=standard.sha)
    assert len(calls) == 2


def test_a_publish_during_a_request_does_not_mix_revisions(
    mcp: McpClient, standard: Published, monkeypatch
) -> None:
    real = catalog_index.load_index
    standard.repo.add_skill("delta", body="Delta.\n")
    newer: list[str] = []

    def publish_then_load(ref):
        if not newer:
            newer.append(publish_head(standard.repo))
        return real(ref)

    monkeypatch.setattr(catalog_index, "load_index", publish_then_load)
    result = mcp.ok("skills_list")
    assert result["registry_sha"] == standard.sha
    assert [skill["id"] for skill in result["skills"]] == ["alpha", "beta", "gamma"]
    monkeypatch.setattr(catalog_index, "load_index", real)
    assert mcp.ok("skills_list")["registry_sha"] == newer[0]


def test_protocol_methods_that_need_no_skills_touch_no_database(
    mcp: McpClient, standard: Published, django_assert_num_queries
) -> None:
    with django_assert_num_queries(0):
        mcp.result("initialize", {"protocolVersion": "2025-11-25"})
        mcp.result("ping")
        mcp.result("resources/templates/list")


def test_tools_list_reads_the_active_snapshots_bounds_in_one_query(
    mcp: McpClient, standard: Published, django_assert_num_queries
) -> None:
    mcp.result("tools/list")  # builds the index for this process
    with django_assert_num_queries(1):
        mcp.result("tools/list")


def test_a_tool_call_on_a_warm_index_costs_one_query(
    mcp: McpClient, standard: Published, django_assert_num_queries
) -> None:
    mcp.ok("skills_search", query="review")  # builds the index for this process
    with django_assert_num_queries(1):
        mcp.ok("skills_search", query="review")
    with django_assert_num_queries(1):
        mcp.ok("skills_get", id="alpha")
    with django_assert_num_queries(2):  # the snapshot, then the file's bytes
        mcp.ok("skills_get_file", id="alpha", path="references/guide.md")
