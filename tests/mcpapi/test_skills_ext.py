"""The skills extension (skills/list, skills/get) in both eras: native skills only, each with
its frontmatter as written and the digest and size of every file it serves, paginated with
signed cursors, from the same snapshot and through the same visibility as everything else."""

import hashlib
from collections.abc import Callable
from typing import Any

import pytest
import yaml

from tests.support.mcp import McpClient, ModernMcp, publish_head
from tests.support.repos import SkillRepo, config_with_sections
from tests.support.tokens import ZDR_TOKEN

pytestmark = pytest.mark.django_db

EXTENSION = "io.modelcontextprotocol/skills"
GUIDE = "# Guide\n\nünïcödé ✓\n"
SCRIPT = "#!/bin/sh\necho hi\n"


@pytest.fixture
def native(make_repo: Callable[..., SkillRepo]) -> SkillRepo:
    """alpha, beta, delta and the ZDR-only secret-ops are native (name = id); gamma is named
    by a title. Pages of two skills."""
    repo = make_repo(config_with_sections(pagination={"default_limit": 2, "max_limit": 5}))
    repo.add_skill(
        "alpha",
        name="alpha",
        body="Alpha steps.\n",
        files={"references/guide.md": GUIDE, "scripts/run.sh": SCRIPT},
        tags=["review"],
    )
    repo.add_skill("beta", name="beta", body="Beta steps.\n")
    repo.add_skill("gamma", name="Gamma", body="Gamma steps.\n")
    repo.add_skill("delta", name="delta", body="Delta steps.\n", keywords=["d"])
    repo.add_skill(
        "secret-ops",
        name="secret-ops",
        body="Secret steps.\n",
        files={"references/runbook.md": "# Runbook\n"},
        required_zdr=True,
    )
    publish_head(repo)
    return repo


class Legacy:
    """skills/* as an initialize-era client sends them (no per-request _meta)."""

    def __init__(self, token: str | None = None) -> None:
        self.client = McpClient(token) if token else McpClient()

    def result(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.client.result(method, params)

    def error(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.client.error(method, params)


class Modern:
    def __init__(self, token: str | None = None) -> None:
        self.client = ModernMcp(token) if token else ModernMcp()

    def result(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.client.result(method, params)

    def error(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.client.error(method, params, status=400)


ERAS = {"legacy": Legacy, "modern": Modern}


@pytest.fixture(params=list(ERAS))
def era(request: pytest.FixtureRequest) -> type:
    return ERAS[request.param]


def list_all(client: Any) -> tuple[list[dict[str, Any]], int]:
    skills, cursor, pages = [], None, 0
    while True:
        page = client.result("skills/list", {"cursor": cursor} if cursor else {})
        assert (page["ttlMs"], page["cacheScope"]) == (60_000, "private")
        skills += page["skills"]
        pages += 1
        cursor = page.get("nextCursor")
        if cursor is None:
            return skills, pages
        assert isinstance(cursor, str)


def frontmatter_of(repo: SkillRepo, skill_id: str) -> dict[str, Any]:
    text = (repo.root / "skills" / skill_id / "SKILL.md").read_text()
    return yaml.safe_load(text.split("---\n")[1])


def test_both_eras_declare_the_extension(era: type) -> None:
    if era is Legacy:
        capabilities = Legacy().result("initialize", {"protocolVersion": "2025-11-25"})["capabilities"]
    else:
        capabilities = Modern().result("server/discover")["capabilities"]
    assert capabilities["extensions"] == {EXTENSION: {"directoryRead": False}}
    assert "resources" in capabilities  # the extension needs the resources it names


def test_skills_list_pages_through_the_native_skills_by_id(native: SkillRepo, era: type) -> None:
    skills, pages = list_all(era())
    assert [skill["uri"] for skill in skills] == [
        "skill://alpha/SKILL.md",
        "skill://beta/SKILL.md",
        "skill://delta/SKILL.md",
    ]
    assert pages == 2


def test_a_skill_gives_its_frontmatter_as_written_and_every_file_it_serves(
    native: SkillRepo, era: type
) -> None:
    [alpha] = [skill for skill in list_all(era())[0] if skill["uri"] == "skill://alpha/SKILL.md"]
    assert set(alpha) == {"uri", "frontmatter", "resources"}
    assert alpha["frontmatter"] == frontmatter_of(native, "alpha")
    assert [entry["uri"] for entry in alpha["resources"]] == [
        "skill://alpha/SKILL.md",
        "skill://alpha/references/guide.md",
        "skill://alpha/scripts/run.sh",
    ]
    for entry in alpha["resources"]:
        assert set(entry) == {"uri", "digest", "size"}
        path = entry["uri"].removeprefix("skill://alpha/")
        data = (native.root / "skills/alpha" / path).read_bytes()
        assert entry == {
            "uri": entry["uri"],
            "digest": f"sha256:{hashlib.sha256(data).hexdigest()}",
            "size": len(data),
        }


def test_each_digest_and_size_is_of_the_bytes_resources_read_returns(native: SkillRepo, era: type) -> None:
    client = era()
    for skill in list_all(client)[0]:
        for entry in skill["resources"]:
            [content] = client.result("resources/read", {"uri": entry["uri"]})["contents"]
            data = content["text"].encode("utf-8")
            assert entry["digest"] == "sha256:" + hashlib.sha256(data).hexdigest()
            assert entry["size"] == len(data)


def test_skills_get_gives_the_skill_as_listed(native: SkillRepo, era: type) -> None:
    client = era()
    listed = {skill["uri"]: skill for skill in list_all(client)[0]}
    for uri, skill in listed.items():
        got = client.result("skills/get", {"uri": uri})
        assert got["skill"] == skill
        assert "nextCursor" not in got
        assert (got["ttlMs"], got["cacheScope"]) == (60_000, "private")


def test_a_cleared_caller_sees_the_zdr_skill_too(native: SkillRepo, era: type) -> None:
    client = era(ZDR_TOKEN)
    uris = [skill["uri"] for skill in list_all(client)[0]]
    assert uris == [
        "skill://alpha/SKILL.md",
        "skill://beta/SKILL.md",
        "skill://delta/SKILL.md",
        "skill://secret-ops/SKILL.md",
    ]
    secret = client.result("skills/get", {"uri": "skill://secret-ops/SKILL.md"})["skill"]
    assert [entry["uri"] for entry in secret["resources"]][1:] == ["skill://secret-ops/references/runbook.md"]


@pytest.mark.parametrize(
    "uri",
    [
        "skill://secret-ops/SKILL.md",  # hidden from this caller
        "skill://nope/SKILL.md",  # never existed
        "skill://gamma/SKILL.md",  # not native: named by a title
        "skill://alpha/references/guide.md",  # not a SKILL.md
        "skill://alpha",
        "skill://alpha/",
        "skill:///SKILL.md",
        "skill://x/alpha/SKILL.md",
        "skill://ALPHA/SKILL.md",
        "skill://alpha /SKILL.md",
        "alpha",
        "",
    ],
)
def test_skills_get_of_anything_but_a_served_skill_is_one_invalid_params(
    native: SkillRepo, era: type, uri: str
) -> None:
    assert era().error("skills/get", {"uri": uri}) == {
        "code": -32602,
        "message": "Skill not found.",
        "data": {"uri": uri},
    }


@pytest.mark.parametrize("params", [{}, {"uri": 5}, {"uri": None}])
def test_skills_get_without_a_uri_string_is_invalid_params(
    native: SkillRepo, era: type, params: dict
) -> None:
    assert era().error("skills/get", params)["code"] == -32602


def test_a_skill_not_listed_here_is_still_a_resource(native: SkillRepo, era: type) -> None:
    [content] = era().result("resources/read", {"uri": "skill://gamma/SKILL.md"})["contents"]
    assert "Gamma steps." in content["text"]


def test_a_bad_or_foreign_cursor_is_invalid_params(native: SkillRepo, era: type) -> None:
    client = era()
    cursor = client.result("skills/list")["nextCursor"]
    for bad in ("junk", cursor + "x", cursor[:-2]):
        assert client.error("skills/list", {"cursor": bad})["code"] == -32602
    # A cursor made for another clearance, or for another list, is not this list's.
    zdr_cursor = era(ZDR_TOKEN).result("skills/list")["nextCursor"]
    assert client.error("skills/list", {"cursor": zdr_cursor})["code"] == -32602
    resources_cursor = McpClient().result("resources/list").get("nextCursor")
    assert (
        resources_cursor is None
        or client.error("skills/list", {"cursor": resources_cursor})["code"] == -32602
    )


def test_a_cursor_from_an_older_snapshot_is_invalid_params(native: SkillRepo, era: type) -> None:
    client = era()
    cursor = client.result("skills/list")["nextCursor"]
    native.add_skill("epsilon", name="epsilon")
    publish_head(native)
    assert client.error("skills/list", {"cursor": cursor})["code"] == -32602


def test_before_the_first_publish_there_is_no_skill(era: type) -> None:
    client = era()
    assert client.result("skills/list")["skills"] == []
    assert "nextCursor" not in client.result("skills/list")
    assert client.error("skills/list", {"cursor": "x"})["code"] == -32602
    assert client.error("skills/get", {"uri": "skill://alpha/SKILL.md"})["data"] == {
        "uri": "skill://alpha/SKILL.md"
    }


def test_open_and_registry_dialects_alike_only_name_equal_to_id_counts(make_repo) -> None:
    repo = make_repo()
    repo.add_skill("zeta", name="zeta")
    repo.add_skill("eta", name="Eta")
    repo.add_skill("theta", name="theta ")  # not the id: names are compared exactly
    publish_head(repo)
    assert [skill["uri"] for skill in Modern().result("skills/list")["skills"]] == ["skill://zeta/SKILL.md"]


def test_a_skill_is_encoded_once_per_snapshot(native: SkillRepo, monkeypatch) -> None:
    from mcpapi import wire

    calls: list[str] = []
    real = wire._encode_extension_skill

    def counting(skill):  # type: ignore[no-untyped-def]
        calls.append(skill.id)
        return real(skill)

    monkeypatch.setattr(wire, "_encode_extension_skill", counting)
    client = Modern()
    list_all(client)
    list_all(client)
    client.result("skills/get", {"uri": "skill://alpha/SKILL.md"})
    assert sorted(calls) == ["alpha", "beta", "delta"]
