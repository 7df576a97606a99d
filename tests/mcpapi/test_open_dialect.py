"""Serving repositories shaped like the public open Agent Skills ones (tests/support/open_repos.py):
every text file byte for byte through skills_get_file (pages joined) and resources/read, what is
omitted reported and unreadable, frontmatter as written, path in the metadata, null versions in
the schemas; and an open-dialect ZDR skill invisible to an uncleared caller everywhere."""

import json
from collections.abc import Callable
from typing import Any

import jsonschema
import pytest

from tests.support.mcp import McpClient, publish_head
from tests.support.open_repos import EVERYTHING, FIXTURES, PLUGINS, ZDR_SKILLS, OpenFixture
from tests.support.repos import DEFAULT_CONFIG, SkillRepo

pytestmark = pytest.mark.django_db
LIST_MAX = DEFAULT_CONFIG["pagination"]["max_limit"]

# Small pages: files are served across several of them, so the join is what is checked.
PAGE_BYTES = 16


def published(make_repo: Callable[..., SkillRepo], fixture: OpenFixture) -> None:
    repo = make_repo()
    fixture.build(repo, file_page_bytes=PAGE_BYTES)
    publish_head(repo)


def read_whole_file(mcp: McpClient, skill_id: str, path: str) -> bytes:
    """The pages of skills_get_file joined, checking each page's bookkeeping."""
    pieces: list[bytes] = []
    cursor = None
    while True:
        arguments: dict[str, Any] = {"id": skill_id, "path": path}
        if cursor:
            arguments["cursor"] = cursor
        page = mcp.ok("skills_get_file", **arguments)
        assert page["offset"] == sum(map(len, pieces))
        pieces.append(page["text"].encode("utf-8"))
        cursor = page["next_cursor"]
        if cursor is None:
            data = b"".join(pieces)
            assert page["size"] == len(data)
            return data


def all_resources(mcp: McpClient) -> list[str]:
    uris: list[str] = []
    params: dict[str, Any] = {}
    while True:
        result = mcp.result("resources/list", params)
        uris += [resource["uri"] for resource in result["resources"]]
        if not result.get("nextCursor"):
            return uris
        params = {"cursor": result["nextCursor"]}


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda fixture: fixture.name)
def test_every_text_file_is_served_byte_for_byte_and_nothing_omitted(
    make_repo: Callable[..., SkillRepo], mcp_zdr: McpClient, fixture: OpenFixture
) -> None:
    published(make_repo, fixture)
    uris = set(all_resources(mcp_zdr))
    for skill in fixture.skills:
        got = mcp_zdr.ok("skills_get", id=skill.id)
        served = fixture.served(skill)
        assert {entry["path"] for entry in got["files"]} == set(served)
        assert {entry["path"]: entry["executable"] for entry in got["files"]} == {
            path: path in fixture.executable(skill) for path in served
        }
        assert [entry["path"] for entry in got["omitted"]] == sorted(skill.omitted)
        for entry in got["omitted"]:
            assert skill.omitted[entry["path"]] in entry["reason"]
        skill_md = fixture.raw(skill, "SKILL.md")
        read = mcp_zdr.result("resources/read", {"uri": f"skill://{skill.id}/SKILL.md"})
        assert read["contents"][0]["text"].encode("utf-8") == skill_md
        assert f"skill://{skill.id}/SKILL.md" in uris
        for path, data in served.items():
            assert read_whole_file(mcp_zdr, skill.id, path) == data, (skill.id, path)
            read = mcp_zdr.result("resources/read", {"uri": f"skill://{skill.id}/{path}"})
            assert read["contents"][0]["text"].encode("utf-8") == data
            assert f"skill://{skill.id}/{path}" in uris
        for path in skill.omitted:
            mcp_zdr.fails("skills_get_file", "FILE_NOT_FOUND", id=skill.id, path=path)
            error = mcp_zdr.error("resources/read", {"uri": f"skill://{skill.id}/{path}"})
            assert error["code"] == -32002
            assert f"skill://{skill.id}/{path}" not in uris


def test_an_omitted_file_is_answered_exactly_as_a_missing_one(
    make_repo: Callable[..., SkillRepo], mcp: McpClient
) -> None:
    published(make_repo, EVERYTHING)
    omitted = mcp.fails("skills_get_file", "FILE_NOT_FOUND", id="poster-kit", path="assets/icon.png")
    missing = mcp.fails("skills_get_file", "FILE_NOT_FOUND", id="poster-kit", path="assets/iconX.png")
    assert omitted["error"]["message"].replace("icon.png", "iconX.png") == missing["error"]["message"]
    a = mcp.error("resources/read", {"uri": "skill://poster-kit/assets/icon.png"})
    b = mcp.error("resources/read", {"uri": "skill://poster-kit/assets/iconX.png"})
    assert json.dumps(a).replace("icon.png", "iconX.png") == json.dumps(b)


def test_metadata_carries_path_and_a_null_version(
    make_repo: Callable[..., SkillRepo], mcp: McpClient
) -> None:
    published(make_repo, EVERYTHING)
    listed = {skill["id"]: skill for skill in mcp.ok("skills_list", limit=LIST_MAX)["skills"]}
    for skill in EVERYTHING.skills:
        if skill.required_zdr:
            assert skill.id not in listed
            continue
        assert listed[skill.id]["path"] == skill.path
        assert listed[skill.id]["version"] == skill.version
    got = mcp.ok("skills_get", id="house-tone")
    assert got["metadata"]["version"] is None and got["metadata"]["path"] == "skills/.system/house-tone"


def test_the_frontmatter_is_served_as_written_in_both_dialects(
    make_repo: Callable[..., SkillRepo], mcp_zdr: McpClient
) -> None:
    published(make_repo, EVERYTHING)
    ledger = mcp_zdr.ok("skills_get", id="ledger-export")["frontmatter"]
    assert list(ledger) == ["schema_version", "id", "name", "description", "version", "files", "required_zdr"]
    assert ledger["files"] == ["references/columns.md"] and ledger["required_zdr"] is True
    tone = mcp_zdr.ok("skills_get", id="house-tone")["frontmatter"]
    assert tone["allowed-tools"] == ["Read", "Edit"]
    assert tone["metadata"] == {"short-description": "Keep the house tone"}
    filler = mcp_zdr.ok("skills_get", id="form-filler")
    assert filler["frontmatter"]["license"] == "Proprietary. LICENSE.txt has complete terms"
    assert filler["omitted"] == [
        {"path": "scripts/lib/__pycache__/geometry.cpython-312.pyc", "reason": "binary (it holds a NUL byte)"}
    ]
    assert mcp_zdr.ok("skills_get", id="payroll-notes")["omitted"] == []


def test_vendor_keys_are_served_as_written(make_repo: Callable[..., SkillRepo], mcp: McpClient) -> None:
    published(make_repo, PLUGINS)
    front = mcp.ok("skills_get", id="code-audit")["frontmatter"]
    assert front["argument-hint"] == "<path>"
    assert (front["user-invocable"], front["disable-model-invocation"]) == (False, True)
    assert (front["triggers"], front["date"]) == (["audit", "review"], "2026-01-15")


def test_results_match_the_output_schemas(make_repo: Callable[..., SkillRepo], mcp_zdr: McpClient) -> None:
    published(make_repo, EVERYTHING)
    schemas = {tool["name"]: tool["outputSchema"] for tool in mcp_zdr.result("tools/list")["tools"]}
    for skill in EVERYTHING.skills:
        jsonschema.validate(mcp_zdr.ok("skills_get", id=skill.id), schemas["skills_get"])
    jsonschema.validate(mcp_zdr.ok("skills_list", limit=LIST_MAX), schemas["skills_list"])
    jsonschema.validate(mcp_zdr.ok("skills_search", query="notes"), schemas["skills_search"])
    assert schemas["skills_get"]["properties"]["metadata"]["properties"]["version"]["type"] == [
        "string",
        "null",
    ]


def test_search_treats_both_dialects_alike(make_repo: Callable[..., SkillRepo], mcp: McpClient) -> None:
    published(make_repo, EVERYTHING)
    [first, *_] = mcp.ok("skills_search", query="sketch-notes")["results"]
    assert (
        first["id"] == "sketch-notes" and {"rule": "exact", "term": "sketch-notes"} in first["match_reasons"]
    )
    found = {hit["id"] for hit in mcp.ok("skills_search", query="poster font")["results"]}
    assert "poster-kit" in found


# --- an open-dialect ZDR skill does not exist for an uncleared caller --------------------------


def secrets_of(skill_id: str) -> list[str]:
    """Queries aimed at the skill: its id, description, body and files, and their words."""
    texts = [skill_id, *ZDR_SKILLS[skill_id]]
    return list(dict.fromkeys([*texts, *(word for text in texts for word in text.split()[:6])]))


@pytest.mark.parametrize("skill_id", sorted(ZDR_SKILLS))
def test_an_open_zdr_skill_is_invisible_to_an_uncleared_caller_everywhere(
    make_repo: Callable[..., SkillRepo], mcp: McpClient, mcp_zdr: McpClient, skill_id: str
) -> None:
    published(make_repo, EVERYTHING)
    skill = EVERYTHING.skill(skill_id)
    everyone = mcp_zdr.ok("skills_list", limit=LIST_MAX)["skills"]
    uncleared = mcp.ok("skills_list", limit=LIST_MAX)["skills"]
    assert skill_id in {s["id"] for s in everyone} and skill_id not in {s["id"] for s in uncleared}
    assert len(everyone) - len(uncleared) == len(ZDR_SKILLS)
    answers: list[Any] = [uncleared]
    for query in secrets_of(skill_id):
        answers.append(mcp.ok("skills_search", query=query))
        assert skill_id not in {hit["id"] for hit in answers[-1]["results"]}
    answers.append(mcp.fails("skills_get", "SKILL_NOT_FOUND", id=skill_id))
    for path in [*EVERYTHING.served(skill), "SKILL.md"]:
        answers.append(mcp.call("skills_get_file", id=skill_id, path=path))
        assert answers[-1]["structuredContent"]["error"]["code"] in ("SKILL_NOT_FOUND", "INVALID_PATH")
        answers.append(mcp.error("resources/read", {"uri": f"skill://{skill_id}/{path}"}))
        assert answers[-1]["code"] == -32002
    uris = all_resources(mcp)
    assert not any(uri.startswith(f"skill://{skill_id}/") for uri in uris)
    answers.append(uris)
    # No byte of it in any answer, beyond the id a request itself named.
    text = json.dumps(answers, ensure_ascii=False)
    for secret in ZDR_SKILLS[skill_id]:
        assert json.dumps(secret, ensure_ascii=False)[1:-1] not in text, secret
    digest = mcp_zdr.ok("skills_get", id=skill_id)["metadata"]["content_hash"]
    assert digest not in text
