"""Random paths never escape a skill's allowlist (docs/reference.md#skill-format, #tools).
Whatever `path` reaches skills_get_file and whatever URI reaches resources/read, a successful
read returns exactly the bytes of a file the skill lists (or its SKILL.md, for resources), of a
skill the caller may see; everything else is INVALID_PATH, FILE_NOT_FOUND, SKILL_NOT_FOUND or
-32002. Nothing is ever looked up on a file system: the allowlist is the only way in. In the
open dialect the allowlist is what the skill serves: a file it omitted (binary, a dot-name)
is as absent as one that never existed."""

import io
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from django.core.management import call_command
from hypothesis import HealthCheck, example, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from catalog.paths import BIDI_CONTROLS
from catalog.report import printable
from tests.support.hostile import examples
from tests.support.mcp import McpClient, Registry
from tests.support.skillmd import skill_md

pytestmark = pytest.mark.reliability

SETTINGS = examples(300, function_scoped_fixtures=True)
Test = TypeVar("Test", bound=Callable[..., None])

SKILL_IDS = [
    "alpha",
    "beta",
    "secret-ops",
    "ALPHA",
    "alpha ",
    "",
    "../alpha",
    "alpha/..",
    "nope",
    # The open-dialect registry (open_registry): ZDR skills, one with omitted files.
    "staff-handbook",
    "ledger-export",
    "poster-kit",
    "form-filler",
    ".curated/poster-kit",
    "skills/.curated/poster-kit",
]
LISTED = [
    "references/guide.md",
    "references/api/auth.md",
    "scripts/run.sh",
    "templates/note.txt",
    "references/runbook.md",
    "assets/fonts/Quillon-OFL.txt",
    "assets/fonts/Quillon-Regular.ttf",
    "assets/icon.png",
    "assets/empty/.gitkeep",
    "scripts/lib/__pycache__/geometry.cpython-312.pyc",
    "rules/leave.md",
    "references/columns.md",
    "FORMS.md",
]
SEGMENTS = [
    "",
    ".",
    "..",
    "...",
    "references",
    "api",
    "scripts",
    "templates",
    "guide.md",
    "auth.md",
    "run.sh",
    "SKILL.md",
    "skills",
    "alpha",
    "secret-ops",
    "registry.config.json",
    "README.md",
    "etc",
    "passwd",
    "%2e%2e",
    "%2F",
    "..%2f",
    "\\..",
    "\x00",
    "~",
    "guide.md\x00.txt",
    "ｒｅｆｅｒｅｎｃｅｓ",  # fullwidth: never folded to ASCII
    "guide.md ",
    "Guide.md",
    "assets",
    "fonts",
    ".gitkeep",
    "icon.png",
    "FORMS.md",
    ".curated",
]


@st.composite
def paths(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["segments", "mutated", "text"]))
    if kind == "segments":
        parts = draw(st.lists(st.sampled_from(SEGMENTS), min_size=0, max_size=6))
        path = draw(st.sampled_from(["/", "//", "\\"])).join(parts)
        return draw(st.sampled_from(["", "/", "./", "../"])) + path
    if kind == "mutated":
        # A listed path, with something inserted, replaced or cut somewhere.
        path = draw(st.sampled_from(LISTED))
        at = draw(st.integers(0, len(path)))
        insert = draw(st.sampled_from(["/", "./", "../", "//", "%", "\\", "\x00", ".", " ", "/..", "A"]))
        cut = draw(st.integers(0, 2))
        return path[:at] + insert + path[at + cut :]
    return draw(st.text(max_size=40))


def resource_uri(skill_id: str, path: str) -> str:
    return f"skill://{skill_id}/{path}"


@st.composite
def uris(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["skill", "skill", "scheme", "text"]))
    if kind == "skill":
        return resource_uri(draw(st.sampled_from(SKILL_IDS)), draw(paths() | st.just("SKILL.md")))
    if kind == "scheme":
        scheme = draw(
            st.sampled_from(["skill:/", "skill:", "SKILL://", "file://", "skill:///", "skill://./"])
        )
        return scheme + draw(st.sampled_from(SKILL_IDS)) + "/" + draw(paths())
    return draw(st.text(max_size=60))


def read_file(mcp: McpClient, skill_id: str, path: str) -> dict[str, Any]:
    result = mcp.call("skills_get_file", id=skill_id, path=path)
    return result["structuredContent"] | {"isError": result["isError"]}


def check_file_answer(
    registry: Registry, client: McpClient, zdr_cleared: bool, skill_id: str, path: str
) -> None:
    answer = read_file(client, skill_id, path)
    allowed = registry.visible(zdr_cleared)
    if not answer["isError"]:
        assert path != "SKILL.md" and path in allowed.get(skill_id, {}), (skill_id, path)
        data = allowed[skill_id][path]
        # The whole file fits one page here: exactly its bytes.
        assert answer["text"].encode() == data and answer["next_cursor"] is None
        assert (answer["id"], answer["path"]) == (skill_id, path)
    else:
        code = answer["error"]["code"]
        assert code in ("INVALID_PATH", "FILE_NOT_FOUND", "SKILL_NOT_FOUND"), answer
        # Refused only when it is not a listed file of a visible skill.
        assert path == "SKILL.md" or path not in allowed.get(skill_id, {}), (skill_id, path, answer)
        if code == "FILE_NOT_FOUND":
            assert skill_id in allowed
        if skill_id in registry.zdr_ids and not zdr_cleared:
            assert code in ("SKILL_NOT_FOUND", "INVALID_PATH"), answer  # hidden, not forbidden


def either_token(given_arguments: dict[str, Any], *cases: dict[str, str]) -> Callable[[Test], Test]:
    """A property run with the read token and with the ZDR token (`zdr_cleared`), on random
    `given_arguments`, the `cases` first."""

    def decorate(test: Test) -> Test:
        for case in reversed(cases):
            test = example(**case)(test)
        test = given(**given_arguments)(SETTINGS(test))
        return pytest.mark.parametrize("zdr_cleared", [False, True], ids=["read-token", "zdr-token"])(test)

    return decorate


def file_cases(*cases: tuple[str, str]) -> Callable[[Test], Test]:
    """skills_get_file's property: any skill id, any path, (skill id, path) `cases` first."""
    arguments = {"skill_id": st.sampled_from(SKILL_IDS), "path": paths()}
    return either_token(arguments, *({"skill_id": skill_id, "path": path} for skill_id, path in cases))


def uri_cases(*cases: str) -> Callable[[Test], Test]:
    """resources/read's property: any URI, `cases` first."""
    return either_token({"uri": uris()}, *({"uri": uri} for uri in cases))


@file_cases(
    ("alpha", "../beta/templates/note.txt"),
    ("alpha", "references/../../beta/SKILL.md"),
    ("alpha", "references/./guide.md"),
    ("alpha", "references//guide.md"),
    ("alpha", "SKILL.md"),
    ("secret-ops", "references/runbook.md"),
    ("alpha", "references/api/auth.md"),
    ("beta", "templates/note.txt"),
)
def test_skills_get_file_serves_exactly_the_listed_files(
    registry: Registry, mcp: McpClient, mcp_zdr: McpClient, zdr_cleared: bool, skill_id: str, path: str
) -> None:
    check_file_answer(registry, mcp_zdr if zdr_cleared else mcp, zdr_cleared, skill_id, path)


@file_cases(
    ("poster-kit", "assets/fonts/Quillon-OFL.txt"),
    ("poster-kit", "assets/fonts/Quillon-Regular.ttf"),
    ("poster-kit", "assets/icon.png"),
    ("poster-kit", "assets/empty/.gitkeep"),
    ("form-filler", "scripts/lib/__pycache__/geometry.cpython-312.pyc"),
    ("form-filler", "FORMS.md"),
    ("staff-handbook", "rules/leave.md"),
    ("ledger-export", "references/columns.md"),
)
def test_an_open_skill_serves_exactly_what_it_does_not_omit(
    open_registry: Registry, mcp: McpClient, mcp_zdr: McpClient, zdr_cleared: bool, skill_id: str, path: str
) -> None:
    check_file_answer(open_registry, mcp_zdr if zdr_cleared else mcp, zdr_cleared, skill_id, path)


def check_read(registry: Registry, client: McpClient, zdr_cleared: bool, uri: str) -> None:
    reply = client.rpc("resources/read", {"uri": uri})
    allowed = registry.visible(zdr_cleared)
    served = {resource_uri(sid, path): data for sid, files in allowed.items() for path, data in files.items()}
    if "result" in reply:
        assert uri in served, uri
        [content] = reply["result"]["contents"]
        assert content["uri"] == uri
        assert content["text"].encode() == served[uri]
    else:
        assert reply["error"]["code"] == -32002, reply
        assert uri not in served, uri


@uri_cases(
    "skill://alpha/../beta/SKILL.md",
    "skill://alpha/references/../SKILL.md",
    "skill://alpha//SKILL.md",
    "skill://alpha/%53KILL.md",
    "skill://secret-ops/SKILL.md",
    "skill://alpha/SKILL.md",
)
def test_resources_read_serves_exactly_the_listed_files(
    registry: Registry, mcp: McpClient, mcp_zdr: McpClient, zdr_cleared: bool, uri: str
) -> None:
    check_read(registry, mcp_zdr if zdr_cleared else mcp, zdr_cleared, uri)


@uri_cases(
    "skill://poster-kit/assets/icon.png",
    "skill://poster-kit/assets/empty/.gitkeep",
    "skill://poster-kit/SKILL.md",
    "skill://staff-handbook/SKILL.md",
    "skill://payroll-notes/SKILL.md",
    "skill://staff-handbook/rules/_index.md",
    "skill://skills/.curated/poster-kit/SKILL.md",
)
def test_resources_of_open_skills_are_exactly_the_served_files(
    open_registry: Registry, mcp: McpClient, mcp_zdr: McpClient, zdr_cleared: bool, uri: str
) -> None:
    check_read(open_registry, mcp_zdr if zdr_cleared else mcp, zdr_cleared, uri)


# --- names no skill may hold (docs/reference.md#skill-format), on disk ----------------------

# One unit that makes a name unsafe: a control character (Cc, NUL and "/" aside: no file
# system holds them), a bidirectional control, or a byte that is not UTF-8.
_CONTROLS = [chr(code) for code in [*range(1, 0x20), *range(0x7F, 0xA0)] if chr(code) != "/"]
UNSAFE_UNITS = st.one_of(
    st.sampled_from(_CONTROLS),
    st.sampled_from(sorted(BIDI_CONTROLS)),
    st.integers(0x80, 0xFF).map(lambda byte: chr(0xDC00 + byte)),  # surrogateescape: a raw byte
)
OPEN_SKILL_MD = "---\nname: demo\ndescription: The demo skill.\n---\nSteps.\n"


@given(
    stem=st.text(alphabet="abcxyz-_. ", min_size=1, max_size=12),
    unit=UNSAFE_UNITS,
    at=st.integers(0, 12),
    dialect=st.sampled_from(["open", "registry"]),
)
@hsettings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_an_unsafe_file_name_is_one_clean_problem_in_both_dialects(
    stem: str, unit: str, at: int, dialect: str
) -> None:
    name = stem[:at] + unit + stem[at:]
    rel = f"references/{name}.md"
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        skill = root / "skills" / "demo"
        (skill / "references").mkdir(parents=True)
        front = skill_md("demo", files=[rel]) if dialect == "registry" else OPEN_SKILL_MD
        (skill / "SKILL.md").write_text(front)
        with open(os.fsencode(skill / rel), "wb") as handle:
            handle.write(b"text\n")
        out = io.StringIO()
        with pytest.raises(SystemExit) as exit_:
            call_command(
                "check_skills", "--repo", str(root), "--format", "json", stdout=out, stderr=io.StringIO()
            )
        assert exit_.value.code == 1
        document = json.loads(out.getvalue())
    problems = [p for p in document["problems"] if p["code"] == "unsafe_file_name"]
    assert [p["path"] for p in problems] == [printable(f"skills/demo/{rel}")]
    for problem in document["problems"]:
        assert problem["path"].isprintable() and not BIDI_CONTROLS.intersection(problem["path"])
