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

import itertools
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.core import signing

from catalog.publishing import publish
from mcpapi import cursors
from tests.support.mcp import McpClient, ModernMcp
from tests.support.repos import SkillRepo, config_with_sections
from tests.support.tokens import READ_TOKEN, ZDR_TOKEN

pytestmark = pytest.mark.django_db

VERSION = "2025-11-25"
CLIENT = {"name": "zdr-leak-test", "version": "1"}
# Small pages, so that hidden skills would move page boundaries, counts and cursor positions.
CONFIG = config_with_sections(
    pagination={"default_limit": 2, "max_limit": 3},
    search={"default_limit": 2, "max_limit": 3, "excerpt_chars": 60},
)


@dataclass(frozen=True)
class ZdrSkill:
    id: str
    name: str
    description: str
    body: str
    tags: tuple[str, ...]
    keywords: tuple[str, ...]
    files: dict[str, str]
    markers: tuple[str, ...]  # strings found only in this skill
    # The open dialect: the frontmatter lines besides name, description, tags and keywords
    # ("" for the registry dialect), where the skill sits, and files it omits (not served).
    open_front: str = ""
    path: str = ""
    omitted: tuple[str, ...] = ()

    @property
    def directory(self) -> str:
        return self.path or f"skills/{self.id}"

    def write(self, repo: SkillRepo) -> None:
        if not self.open_front:
            repo.add_skill(
                self.id,
                body=self.body,
                files=dict(self.files),
                name=self.name,
                description=self.description,
                tags=list(self.tags),
                keywords=list(self.keywords),
                required_zdr=True,
            )
            return
        front = (
            f"name: {self.name}\ndescription: {self.description}\n"
            f"tags: [{', '.join(self.tags)}]\nkeywords: [{', '.join(self.keywords)}]\n{self.open_front}"
        )
        repo.write(f"{self.directory}/SKILL.md", f"---\n{front}---\n{self.body}")
        for path, text in self.files.items():
            repo.write(f"{self.directory}/{path}", text)
        for path in self.omitted:
            repo.write(f"{self.directory}/{path}", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")


ZDR_SKILLS = (
    ZdrSkill(
        id="zdr-secret-runbook",
        name="Classified Procedure",
        description="ZDR-DESC-MARKER-51c2 Handle the incident review procedure for ops.",
        body="ZDR-BODY-MARKER-9e1f7 Follow the classified steps to review the incident.\n",
        # "review" and "ops" are shared with public skills; the tag marker is its own.
        tags=("review", "ops", "zdrvaulttag"),
        keywords=("checklist", "ZDR-KEYWORD-MARKER-a41"),
        files={
            "references/playbook.md": "# Playbook\nZDR-FILE-MARKER-3b8d the classified playbook.\n",
            "scripts/purge.sh": "#!/bin/sh\necho ZDR-FILE-MARKER-77aa\n",
        },
        markers=(
            "ZDR-DESC-MARKER-51c2",
            "ZDR-BODY-MARKER-9e1f7",
            "zdrvaulttag",
            "ZDR-KEYWORD-MARKER-a41",
            "ZDR-FILE-MARKER-3b8d",
            "ZDR-FILE-MARKER-77aa",
        ),
    ),
    # Sorts between two public skills: hiding it must not shift anyone's page or position.
    ZdrSkill(
        id="bravo-zdr-vault",
        name="Vault Override",
        description="ZDR-DESC-MARKER-0d9e Rotate the release signing keys.",
        body="ZDR-BODY-MARKER-c0ffee Rotate every key, then review the release.\n",
        tags=("release", "ops"),
        keywords=("ZDR-KEYWORD-MARKER-b52",),
        files={"references/keys.md": "ZDR-FILE-MARKER-k3y5 where the keys live\n"},
        markers=(
            "ZDR-DESC-MARKER-0d9e",
            "ZDR-BODY-MARKER-c0ffee",
            "ZDR-KEYWORD-MARKER-b52",
            "ZDR-FILE-MARKER-k3y5",
        ),
    ),
    # Sorts first of all.
    ZdrSkill(
        id="aaa-zdr-first",
        name="Zeroth Ledger",
        description="ZDR-DESC-MARKER-f1r5 Keep the docs ledger.",
        body="ZDR-BODY-MARKER-0f1a Docs steps nobody uncleared may read.\n",
        tags=("docs",),
        keywords=(),
        files={},
        markers=("ZDR-DESC-MARKER-f1r5", "ZDR-BODY-MARKER-0f1a"),
    ),
    # The open dialect, top-level required_zdr, in a dot-named category; a vendor key and an
    # omitted file whose name is a marker (skills_get lists omitted files).
    ZdrSkill(
        id="open-zdr-vault",
        name="open-zdr-vault",
        description="ZDR-DESC-MARKER-0pen1 Audit the vault access log.",
        body="ZDR-BODY-MARKER-0pen1b Read the access log, then review the grants.\n",
        tags=("ops", "zdropentag"),
        keywords=("ZDR-KEYWORD-MARKER-0pen1",),
        files={"reference/grants.md": "ZDR-FILE-MARKER-0pen1f the grants\n"},
        markers=(
            "ZDR-DESC-MARKER-0pen1",
            "ZDR-BODY-MARKER-0pen1b",
            "zdropentag",
            "ZDR-KEYWORD-MARKER-0pen1",
            "ZDR-FILE-MARKER-0pen1f",
            "ZDR-VENDOR-MARKER-0pen1v",
            "ZDR-OMITTED-MARKER-0pen1o",
        ),
        open_front='required_zdr: true\nargument-hint: "ZDR-VENDOR-MARKER-0pen1v"\nlicense: MIT\n',
        path="skills/.private/open-zdr-vault",
        omitted=("assets/ZDR-OMITTED-MARKER-0pen1o.png",),
    ),
    # The open dialect, metadata.required_zdr, in a plain category; sorts between public skills.
    ZdrSkill(
        id="kilo-open-zdr",
        name="kilo-open-zdr",
        description="ZDR-DESC-MARKER-k1l0 Plan the confidential release.",
        body="ZDR-BODY-MARKER-k1l0b Release steps for the confidential build.\n",
        tags=("release",),
        keywords=(),
        files={"scripts/ship.sh": "#!/bin/sh\necho ZDR-FILE-MARKER-k1l0f\n"},
        markers=(
            "ZDR-DESC-MARKER-k1l0",
            "ZDR-BODY-MARKER-k1l0b",
            "ZDR-FILE-MARKER-k1l0f",
            "ZDR-META-MARKER-k1l0m",
        ),
        open_front='metadata:\n  required_zdr: "true"\n  version: "1.0.0"\n  author: ZDR-META-MARKER-k1l0m\n',
        path="skills/team/kilo-open-zdr",
    ),
    # Native (its name is its id), so the skills extension would list it: it sorts between
    # two public native skills.
    ZdrSkill(
        id="kilo-zdr-native",
        name="kilo-zdr-native",
        description="ZDR-DESC-MARKER-k1l0 Unseal the ops archive.",
        body="ZDR-BODY-MARKER-5ea1 Unseal, then review the archive.\n",
        tags=("ops",),
        keywords=(),
        files={"references/seal.md": "ZDR-FILE-MARKER-5ea1 the seal\n"},
        markers=("ZDR-DESC-MARKER-k1l0", "ZDR-BODY-MARKER-5ea1", "ZDR-FILE-MARKER-5ea1"),
    ),
)
ZDR_IDS = tuple(skill.id for skill in ZDR_SKILLS)
NEVER_EXISTED = "no-such-skill-ever"  # the ghost every ZDR answer must look like


def add_public_skills(repo: SkillRepo) -> None:
    """alpha and delta are named by a title; charlie, lima and omega by their id (native)."""
    repo.add_skill(
        "alpha",
        body="Alpha: review the change, then run the checklist.\n",
        files={"references/notes.md": "# Notes\nAlpha notes.\n", "scripts/check.sh": "#!/bin/sh\necho ok\n"},
        name="Alpha",
        description="Review changes with a checklist.",
        tags=["review", "ops"],
        keywords=["checklist"],
    )
    repo.add_skill(
        "charlie",
        body="Charlie procedure for the on-call handover.\n",
        name="charlie",
        description="Hand over on-call duty.",
        tags=["ops"],
    )
    repo.add_skill(
        "delta",
        body="Delta steps to keep the runbook current.\n",
        name="Delta",
        description="Maintain the docs runbook.",
        tags=["docs", "review"],
        keywords=["runbook"],
    )
    repo.add_skill(
        "lima",
        body="Lima release steps: tag, build, review the notes.\n",
        name="lima",
        description="Cut a release.",
        tags=["release"],
    )
    repo.add_skill(
        "omega",
        body="Omega steps for the incident review.\n",
        files={"references/a.md": "A\n", "references/b.md": "B\n"},
        name="omega",
        description="Write the incident report.",
        tags=["review"],
    )


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


@dataclass(frozen=True)
class Exchange:
    request: bytes
    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def reply(self) -> dict[str, Any]:
        return json.loads(self.body)

    def raw(self) -> bytes:
        """Every byte of the answer: header lines and body."""
        head = "".join(f"{name}: {value}\n" for name, value in self.headers.items())
        return head.encode() + b"\n" + self.body


class Recorder:
    """An MCP client that keeps every request and answer; `modern()` sends a request as a
    2026-07-28 client does (its errors come with 400)."""

    def __init__(self, token: str) -> None:
        self.client = McpClient(token)
        self.modern_client = ModernMcp(token)
        self.ids = itertools.count(1)
        self.exchanges: list[Exchange] = []

    def rpc(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": next(self.ids), "method": method}
        if params is not None:
            message["params"] = params
        response = self.client.post(message)
        self._keep(json.dumps(message).encode(), response, 200)
        return self.exchanges[-1].reply

    def modern(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        response = self.modern_client.send(method, params)
        request = json.dumps({"method": method, "params": params}).encode()
        self._keep(request, response, 400 if "error" in response.json() else 200)
        return self.exchanges[-1].reply

    def _keep(self, request: bytes, response: Any, status: int) -> None:
        exchange = Exchange(
            request=request,
            status=response.status_code,
            headers=dict(response.headers.items()),
            body=response.content,
        )
        self.exchanges.append(exchange)
        assert exchange.status == status, exchange

    def result(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        reply = self.rpc(method, params)
        assert "error" not in reply, reply
        return reply["result"]

    def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        """structuredContent of a tool result (a tool error included)."""
        result = self.result("tools/call", {"name": tool, "arguments": arguments})
        [content] = result["content"]
        assert json.loads(content["text"]) == result["structuredContent"]
        return result["structuredContent"]

    def pages(self, tool: str, key: str, **arguments: Any) -> list[list[dict[str, Any]]]:
        """Every page of a paginated tool, following next_cursor to the end."""
        pages = []
        cursor = None
        for _ in range(50):
            args = dict(arguments, cursor=cursor) if cursor else arguments
            structured = self.call(tool, **args)
            assert "error" not in structured, structured
            pages.append(structured[key])
            cursor = structured["next_cursor"]
            if cursor is None:
                return pages
        raise AssertionError(f"{tool} {arguments}: more than 50 pages")

    def skill_pages(self, send: Any) -> list[list[dict[str, Any]]]:
        """Every page of skills/list, sent by `send` (rpc or modern)."""
        pages = []
        params: dict[str, Any] = {}
        for _ in range(50):
            result = send("skills/list", params)["result"]
            pages.append(result["skills"])
            if "nextCursor" not in result:
                return pages
            params = {"cursor": result["nextCursor"]}
        raise AssertionError("skills/list: more than 50 pages")

    def resource_pages(self) -> list[list[dict[str, Any]]]:
        pages = []
        params: dict[str, Any] = {}
        for _ in range(50):
            result = self.result("resources/list", params)
            pages.append(result["resources"])
            if "nextCursor" not in result:
                return pages
            params = {"cursor": result["nextCursor"]}
        raise AssertionError("resources/list: more than 50 pages")


ALL_TAGS = ("review", "ops", "docs", "release", "zdrvaulttag")
TAG_FILTERS = (
    *([tag] for tag in ALL_TAGS),
    ["review", "ops"],
    ["REVIEW", "Ops"],  # compared case-insensitively
    ["review", "ops", "zdrvaulttag"],  # the first ZDR skill's whole tag set
    ["release", "ops"],  # the second's
)


def search_queries() -> list[str]:
    """The ZDR skills' ids, names, tags, keywords, description and body words, and markers;
    and queries that also match public skills."""
    queries = ["review", "ops incident", "checklist runbook", "steps"]
    for skill in ZDR_SKILLS:
        queries += [
            skill.id,
            skill.id.upper(),
            f"  {skill.id}  ",
            skill.name,
            skill.name.lower(),
            *skill.tags,
            " ".join(skill.tags),
            *skill.keywords,
            skill.description,
            skill.body,
            *skill.body.split()[1:4],
            *skill.markers,
            *skill.id.split("-"),
        ]
    return list(dict.fromkeys(query for query in queries if query.strip()))


def run_transcript(client: Recorder, sha: str) -> None:
    """Every method and tool, the same calls whatever the registry holds."""
    client.result("initialize", {"protocolVersion": VERSION, "capabilities": {}, "clientInfo": CLIENT})
    client.result("ping")
    client.result("tools/list")

    for limit in (None, 1, 2, 3):
        extra = {} if limit is None else {"limit": limit}
        client.pages("skills_list", "skills", **extra)
        client.pages("skills_list", "skills", revision=sha, **extra)
        for tags in TAG_FILTERS:
            client.pages("skills_list", "skills", tags=tags, **extra)

    for query in search_queries():
        client.pages("skills_search", "results", query=query)
        client.pages("skills_search", "results", query=query, limit=1)
    for tags in TAG_FILTERS:
        client.pages("skills_search", "results", query="review steps", tags=tags, limit=1)
        client.pages("skills_search", "results", query=ZDR_IDS[0], tags=tags)

    for skill_id in [*ZDR_IDS, NEVER_EXISTED, "alpha"]:
        for call in not_found_calls(skill_id, sha):
            call(client)

    client.resource_pages()
    client.result("resources/templates/list")

    for send in (client.rpc, client.modern):
        for page in client.skill_pages(send):
            for skill in page:
                send("skills/get", {"uri": skill["uri"]})
    client.modern("server/discover")


def not_found_calls(skill_id: str, sha: str) -> list[Any]:
    """Every call naming one skill: for a ZDR or unknown id, each must be 'not found'."""
    paths = ["SKILL.md", "references/notes.md", "references/a.md", "scripts/check.sh"]
    for skill in ZDR_SKILLS:
        paths += [*skill.files, *skill.omitted]
    calls: list[Any] = [
        lambda c: c.call("skills_get", id=skill_id),
        lambda c: c.call("skills_get", id=skill_id, revision=sha),
        lambda c: c.call("skills_get", id=skill_id, revision=sha[:7]),
    ]
    for path in dict.fromkeys(paths):
        calls += [
            lambda c, path=path: c.call("skills_get_file", id=skill_id, path=path),
            lambda c, path=path: c.call("skills_get_file", id=skill_id, path=path, revision=sha),
            lambda c, path=path: c.rpc("resources/read", {"uri": f"skill://{skill_id}/{path}"}),
        ]
    for send in ("rpc", "modern"):
        calls += [
            lambda c, send=send: getattr(c, send)("skills/get", {"uri": f"skill://{skill_id}/SKILL.md"}),
            lambda c, send=send: getattr(c, send)("skills/get", {"uri": f"skill://{skill_id}/"}),
            lambda c, send=send: getattr(c, send)("resources/read", {"uri": f"skill://{skill_id}/SKILL.md"}),
        ]
    calls += [
        lambda c: c.call("skills_get_file", id=skill_id, path="references/nothing-here.md"),
        lambda c: c.call("skills_get_file", id=skill_id, path="../SKILL.md"),
        lambda c: c.call("skills_get_file", id=skill_id, path="SKILL.md", cursor="not-a-cursor"),
        lambda c: c.rpc("resources/read", {"uri": f"skill://{skill_id}"}),
        lambda c: c.rpc("resources/read", {"uri": f"skill://{skill_id}/"}),
        lambda c: c.rpc("resources/read", {"uri": f"skill://{skill_id}/references/nothing-here.md"}),
    ]
    return calls


def cleared_facts(registries: Registries) -> dict[str, list[str]]:
    """What a cleared caller learns of each ZDR skill: its content_hash and file digests
    (to look for in uncleared answers), read from the registry itself."""
    client = Recorder(ZDR_TOKEN)
    facts = {}
    for skill in ZDR_SKILLS:
        got = client.call("skills_get", id=skill.id)
        assert "error" not in got, got
        facts[skill.id] = [got["metadata"]["content_hash"], *(entry["sha256"] for entry in got["files"])]
    return facts


def forbidden_strings(registries: Registries) -> list[str]:
    strings = []
    for skill in ZDR_SKILLS:
        strings += [skill.id, skill.name, skill.description, *skill.markers]
    for digests in cleared_facts(registries).values():
        strings += digests
    return strings


def assert_no_leak(exchanges: list[Exchange], forbidden: list[str]) -> None:
    for exchange in exchanges:
        sent = exchange.request.lower()
        raw = exchange.raw().lower()
        for secret in forbidden:
            needle = secret.lower().encode()
            if needle in sent:
                continue  # an echo of the caller's own words is checked against the ghost id below
            assert needle not in raw, (secret, exchange.request, exchange.body[:2000])


def decoded_cursor(cursor: str, sha: str) -> tuple[str, str, int]:
    revision, query, position = signing.Signer(salt=cursors._SALT).unsign_object(cursor)
    assert revision == sha
    return ("cursor", query, position)


def normalised(value: Any, sha: str) -> Any:
    """A message with what must differ between two registries (their SHA, publish time,
    the cursors' revision and signature) replaced by placeholders."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if not isinstance(item, str):  # (tools/list schemas have such keys too)
                out[key] = normalised(item, sha)
            elif key in ("registry_sha", "active_sha"):
                assert item == sha, (key, item)
                out[key] = "<sha>"
            elif key == "published_at":
                out[key] = "<published_at>"
            elif key in ("next_cursor", "nextCursor", "cursor"):
                out[key] = item if item == "not-a-cursor" else decoded_cursor(item, sha)
            elif key == "revision":
                out[key] = {sha: "<sha>", sha[:7]: "<sha7>"}[item]
            elif key == "text" and value.get("type") == "text":
                out[key] = normalised(json.loads(item), sha)
            else:
                out[key] = normalised(item, sha)
        return out
    if isinstance(value, list):
        return [normalised(item, sha) for item in value]
    return value


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
    forbidden = forbidden_strings(registries)
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
    for secret in forbidden_strings(registries):
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
