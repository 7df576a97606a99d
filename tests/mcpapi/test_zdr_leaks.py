"""ZDR leak test: a caller not cleared for ZDR learns nothing of a required_zdr skill.

Every tool, every resource method and the skills extension (in both eras: initialize's
and 2026-07-28's) runs, as one fixed transcript of calls, over a registry with several ZDR
skills (distinctive ids, names, descriptions, bodies, file
contents). For an uncleared caller:

- no response byte (body or header) holds any ZDR skill's id, name, description, body or
  file marker, tag or keyword marker, content_hash or file sha256, unless the request
  itself sent that string (an error message may echo the id asked for);
- the whole transcript, decoded, is identical to the one a registry *without* those
  skills gives (another commit of the same repository, published in their place): same
  results, same pages, same cursor payloads (query digest and position), same errors;
  only registry_sha, published_at and the cursors' revision and signature differ;
- skills_get / skills_get_file / resources/read / skills/get of a ZDR skill are
  byte-for-byte the answer for an id that never existed, modulo that id.

A cleared caller (SKILLS_ZDR_TOKENS) runs the same transcript and sees every ZDR skill.
ZDR skills of both dialects take part: registry ones (`required_zdr: true`) and open ones
in category folders, in each open spelling (top-level `required_zdr: true`, and
`metadata: {required_zdr: "true"}`), with vendor keys and omitted files of their own.
"""

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from catalog.publishing import publish
from tests.mcpapi.zdr_skills import CONFIG, NEVER_EXISTED, ZDR_IDS, ZDR_SKILLS, add_public_skills
from tests.mcpapi.zdr_transcript import (
    Exchange,
    Recorder,
    assert_no_leak,
    forbidden_strings,
    normalised,
    not_found_calls,
    run_transcript,
)
from tests.support.repos import SkillRepo
from tests.support.tokens import READ_TOKEN, ZDR_TOKEN

pytestmark = pytest.mark.django_db


@dataclass(frozen=True)
class Registries:
    repo: SkillRepo
    with_zdr: str  # the commit with the ZDR skills
    without_zdr: str  # the next commit: the same public skills, the ZDR ones removed


@pytest.fixture(scope="module")
def registries(tmp_path_factory: pytest.TempPathFactory) -> Registries:
    """One repository, built once per module: two commits, published per test as needed."""
    repo = SkillRepo(tmp_path_factory.mktemp("zdr") / "repo", config=CONFIG)
    add_public_skills(repo)
    # An open-dialect public skill in the category the second open ZDR skill sits in.
    repo.write(
        "skills/team/juliet/SKILL.md", "---\nname: juliet\ndescription: Review the ops notes.\n---\nSteps.\n"
    )
    for skill in ZDR_SKILLS:
        skill.write(repo)
    with_zdr = repo.commit("public and ZDR skills")
    for skill in ZDR_SKILLS:
        repo.remove(skill.directory)
    without_zdr = repo.commit("public skills only")
    return Registries(repo, with_zdr, without_zdr)


def activate(registries: Registries, sha: str) -> str:
    publish(registries.repo.root, sha)
    return sha


def uncleared_transcript(registries: Registries, sha: str) -> list[Exchange]:
    activate(registries, sha)
    client = Recorder(READ_TOKEN)
    run_transcript(client, sha)
    return client.exchanges


@pytest.fixture
def with_zdr(registries: Registries) -> Iterator[str]:
    yield activate(registries, registries.with_zdr)


def test_no_answer_to_an_uncleared_caller_holds_a_byte_of_a_zdr_skill(
    registries: Registries, with_zdr: str
) -> None:
    forbidden = forbidden_strings()
    exchanges = uncleared_transcript(registries, with_zdr)
    assert len(exchanges) > 300  # every call ran
    assert_no_leak(exchanges, forbidden)


def test_an_uncleared_caller_gets_what_a_registry_without_zdr_skills_gives(registries: Registries) -> None:
    hidden = uncleared_transcript(registries, registries.with_zdr)
    absent = uncleared_transcript(registries, registries.without_zdr)

    # The same calls, the same number of pages followed, with the same cursor payloads.
    assert [normalised(json.loads(x.request), registries.with_zdr) for x in hidden] == [
        normalised(json.loads(x.request), registries.without_zdr) for x in absent
    ]
    for seen, expected in zip(hidden, absent, strict=True):
        assert seen.status == expected.status
        assert seen.headers.get("Content-Type") == expected.headers.get("Content-Type")
        assert normalised(seen.reply, registries.with_zdr) == normalised(
            expected.reply, registries.without_zdr
        ), seen.request
    # Not vacuous: lists and searches did run over several pages of public skills.
    multi_page = [exchange for exchange in hidden if has_next_page(exchange.reply)]
    assert len(multi_page) > 20


def has_next_page(reply: dict[str, Any]) -> bool:
    result = reply.get("result", {})
    return bool(result.get("nextCursor") or result.get("structuredContent", {}).get("next_cursor"))


def test_a_zdr_skill_is_not_found_exactly_as_a_skill_that_never_existed(
    registries: Registries, with_zdr: str
) -> None:
    client = Recorder(READ_TOKEN)
    checked = 0
    for skill_id in ZDR_IDS:
        for hidden_call, ghost_call in zip(
            not_found_calls(skill_id, with_zdr), not_found_calls(NEVER_EXISTED, with_zdr), strict=True
        ):
            hidden_call(client)
            hidden = client.exchanges[-1]
            ghost_call(client)
            ghost = client.exchanges[-1]
            assert hidden.status == ghost.status
            # The whole answer (error code, message, data, registry fields), modulo the id.
            as_ghost = json.loads(hidden.body.replace(skill_id.encode(), NEVER_EXISTED.encode()))
            expected = json.loads(ghost.body)
            del as_ghost["id"], expected["id"]
            assert as_ghost == expected, hidden.request
            checked += 1

    # What those answers are: SKILL_NOT_FOUND for the tools, -32002 for resources/read.
    got = client.call("skills_get", id=ZDR_IDS[0])
    assert got["error"]["code"] == "SKILL_NOT_FOUND"
    got = client.call("skills_get_file", id=ZDR_IDS[0], path="references/playbook.md")
    assert got["error"]["code"] == "SKILL_NOT_FOUND"
    error = client.rpc("resources/read", {"uri": f"skill://{ZDR_IDS[0]}/SKILL.md"})["error"]
    assert error["code"] == -32002
    native = "skill://kilo-zdr-native/SKILL.md"
    for send in (client.rpc, client.modern):
        assert send("skills/get", {"uri": native})["error"] == {
            "code": -32602,
            "message": "Skill not found.",
            "data": {"uri": native},
        }
    assert client.modern("resources/read", {"uri": native})["error"]["code"] == -32602
    assert checked > 4 * 20


def test_a_cleared_caller_sees_every_zdr_skill_through_the_same_calls(
    registries: Registries, with_zdr: str
) -> None:
    client = Recorder(ZDR_TOKEN)
    run_transcript(client, with_zdr)
    everything = b"\n".join(exchange.body for exchange in client.exchanges)
    for secret in forbidden_strings():
        assert json.dumps(secret)[1:-1].encode() in everything, secret

    listed = [skill["id"] for page in client.pages("skills_list", "skills") for skill in page]
    assert set(ZDR_IDS) <= set(listed)
    assert listed == sorted(listed)
    for skill in ZDR_SKILLS:
        [first, *_] = client.call("skills_search", query=skill.id)["results"]
        assert first["id"] == skill.id
        assert {"rule": "exact", "term": skill.id} in first["match_reasons"]
        got = client.call("skills_get", id=skill.id)
        assert got["instructions"] == skill.body
        assert got["metadata"]["required_zdr"] is True
        assert got["metadata"]["path"] == skill.directory
        assert [entry["path"] for entry in got["omitted"]] == list(skill.omitted)
        for path in skill.omitted:
            assert client.call("skills_get_file", id=skill.id, path=path)["error"]["code"] == "FILE_NOT_FOUND"
        for path, text in skill.files.items():
            assert client.call("skills_get_file", id=skill.id, path=path)["text"] == text
            read = client.result("resources/read", {"uri": f"skill://{skill.id}/{path}"})
            assert read["contents"][0]["text"] == text
        read = client.result("resources/read", {"uri": f"skill://{skill.id}/SKILL.md"})
        assert skill.name in read["contents"][0]["text"]
    uris = {resource["uri"] for page in client.resource_pages() for resource in page}
    for skill in ZDR_SKILLS:
        assert f"skill://{skill.id}/SKILL.md" in uris
        assert {f"skill://{skill.id}/{path}" for path in skill.files} <= uris
    tagged = client.call("skills_list", tags=["zdrvaulttag"])["skills"]
    assert [skill["id"] for skill in tagged] == [ZDR_IDS[0]]
    native = "skill://kilo-zdr-native/SKILL.md"
    for send in (client.rpc, client.modern):
        listed_uris = [skill["uri"] for page in client.skill_pages(send) for skill in page]
        assert listed_uris == [
            f"skill://{sid}/SKILL.md"
            for sid in (
                "charlie",
                "juliet",
                "kilo-open-zdr",
                "kilo-zdr-native",
                "lima",
                "omega",
                "open-zdr-vault",
            )
        ]
        assert send("skills/get", {"uri": native})["result"]["skill"]["uri"] == native


def test_a_cleared_callers_cursors_open_no_zdr_page_to_an_uncleared_one(with_zdr: str) -> None:
    cleared = Recorder(ZDR_TOKEN)
    uncleared = Recorder(READ_TOKEN)
    cursor_list = cleared.call("skills_list", limit=1)["next_cursor"]
    cursor_tags = cleared.call("skills_list", limit=1, tags=["ops"])["next_cursor"]
    cursor_search = cleared.call("skills_search", query="review", limit=1)["next_cursor"]
    cursor_resources = cleared.result("resources/list")["nextCursor"]
    cursor_skills = cleared.rpc("skills/list")["result"]["nextCursor"]
    assert None not in (cursor_list, cursor_tags, cursor_search, cursor_resources, cursor_skills)

    for got in (
        uncleared.call("skills_list", limit=1, cursor=cursor_list),
        uncleared.call("skills_list", limit=1, tags=["ops"], cursor=cursor_tags),
        uncleared.call("skills_search", query="review", limit=1, cursor=cursor_search),
    ):
        assert got.get("error", {}).get("code") == "INVALID_CURSOR", got
    reply = uncleared.rpc("resources/list", {"cursor": cursor_resources})
    assert reply.get("error", {}).get("code") == -32602, reply
    for send in (uncleared.rpc, uncleared.modern):
        reply = send("skills/list", {"cursor": cursor_skills})
        assert reply.get("error", {}).get("code") == -32602, reply


def test_the_fixture_has_zdr_skills_the_uncleared_list_does_not_show(
    registries: Registries, with_zdr: str
) -> None:
    """The ZDR skills really are in the published registry (the tests above are not vacuous)."""
    cleared = [s["id"] for page in Recorder(ZDR_TOKEN).pages("skills_list", "skills") for s in page]
    uncleared = [s["id"] for page in Recorder(READ_TOKEN).pages("skills_list", "skills") for s in page]
    assert sorted(set(cleared) - set(uncleared)) == sorted(ZDR_IDS)
    assert uncleared == ["alpha", "charlie", "delta", "juliet", "lima", "omega"]
    reader = Recorder(READ_TOKEN)
    native = [s["uri"] for page in reader.skill_pages(reader.rpc) for s in page]
    assert native == [f"skill://{sid}/SKILL.md" for sid in ("charlie", "juliet", "lima", "omega")]
