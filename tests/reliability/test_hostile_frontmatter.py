"""Random frontmatter never crashes validation (docs/reference.md#skill-format, #validation):
whatever bytes a SKILL.md holds (random bytes, random YAML documents, YAML's sharp corners:
aliases and alias bombs, tags, huge numbers, impossible dates, deep nesting), in either
dialect, parse_skill_file, validate_tree and check_skills answer with clean, bounded problems
with a stable code, never an exception and never a hang; what the open dialect serves as
written is JSON, and bounded. A malicious skill author can fail CI, but not break or stall it."""

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import example, given
from hypothesis import strategies as st

from catalog import frontmatter_json
from catalog.open_dialect import OPEN_KEYS
from catalog.registry_dialect import KNOWN_KEYS
from catalog.report import printable
from catalog.skillfile import parse_skill_file
from catalog.trees import WorkingTree
from catalog.validation import validate_tree
from tests.reliability.frontmatter_support import BOMB, check_problem
from tests.support.hostile import check_skills_json, examples
from tests.support.repos import DEFAULT_CONFIG

pytestmark = pytest.mark.reliability

FAST = examples(400)
SLOW = examples(60)
NASTY_VALUES = [
    "&a [*a]",
    "*undefined",
    "!!python/object/apply:os.system ['true']",
    "!!python/name:os.system",
    "!!binary AAAA",
    "!!binary '@@@'",
    "!!timestamp 2001-13-45",
    "2001-02-30",
    "!!float x",
    "!!int x",
    "!!bool maybe",
    "!!set {a, b}",
    "!!omap [a: 1]",
    "9" * 5000,
    "0x" + "f" * 5000,
    "1e99999",
    ".nan",
    "-.inf",
    "1:20:30",
    "0o777",
    "yes",
    "~",
    "'unterminated",
    '"\\ud800"',
    "[" * 200 + "]" * 200,
    "{" * 2000,
    "[" * 5000 + "]" * 5000,
    "? [a, b]\n  : c",
    "{[a]: b}",
    "{? {a: b}: c}",
    "|\n  multi\n  line",
    ">-\n  folded",
    "&x 1",
    "!<tag:yaml.org,2002:str> 1",
    "!custom 1",
    "\t1",
]
KEYS = [
    *KNOWN_KEYS,
    *OPEN_KEYS,
    "required_zrd",
    "Required_ZDR",
    "versoin",
    "licence",
    "argument-hint",
    "date",
    "<<",
    "? x",
    "1",
    "null",
    "true",
    "id ",
    "'quoted'",
]


@st.composite
def yaml_texts(draw: st.DrawFn) -> str:
    """Frontmatter text: a YAML document of random structure, or lines of sharp YAML."""
    kind = draw(st.sampled_from(["dumped", "lines", "lines", "text", "bomb"]))
    if kind == "dumped":
        values = st.recursive(
            st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
            lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=5), c, max_size=3),
            max_leaves=10,
        )
        document = draw(st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=8), values, max_size=8))
        return yaml.safe_dump(document, allow_unicode=draw(st.booleans()))
    if kind == "lines":
        lines = draw(
            st.lists(
                st.tuples(st.sampled_from(KEYS), st.sampled_from(NASTY_VALUES) | st.text(max_size=20)),
                max_size=8,
            )
        )
        return "\n".join(f"{key}: {value}" for key, value in lines)
    if kind == "bomb":
        key = draw(st.sampled_from(KEYS))
        tail = draw(
            st.sampled_from(
                ["", "tags: [*l4]", "files: *l4", "? *l4\n: x", "metadata: {a: *l4}", "allowed-tools: *l4"]
            )
        )
        return f"{BOMB}\n{key}: *l4\n{tail}"
    return draw(st.text(max_size=200))


@st.composite
def skill_md_bytes(draw: st.DrawFn) -> bytes:
    kind = draw(st.sampled_from(["frontmatter", "frontmatter", "frontmatter", "bytes", "framing"]))
    if kind == "bytes":
        return draw(st.binary(max_size=300))
    front = draw(yaml_texts())
    body = draw(st.sampled_from(["Steps.\n", "", "   \n", "---\n", "\x00"]) | st.text(max_size=30))
    if kind == "framing":
        opening = draw(st.sampled_from(["---\n", "---\r\n", "\ufeff---\n", "--- \n", "", "---"]))
        closing = draw(st.sampled_from(["\n---\n", "\n---", "\n--- \n", "\n...\n", ""]))
        return (opening + front + closing + body).encode("utf-8", "surrogatepass")
    return ("---\n" + front + "\n---\n" + body).encode("utf-8", "surrogatepass")


@given(raw=skill_md_bytes())
@example(raw=f"---\nschema_version: 1\n{BOMB}\nrequired_zdr: *l4\n---\nSteps.\n".encode())
@example(raw=f"---\n{BOMB}\ntags: [*l4]\n---\nSteps.\n".encode())
@example(raw=b"---\nschema_version: " + b"9" * 5000 + b"\n---\nSteps.\n")
@example(raw=b"---\nschema_version: 0x" + b"f" * 5000 + b"\n---\nSteps.\n")
@example(raw=b"---\nversion: 2001-13-45\n---\nSteps.\n")
@example(raw=b"---\nid: !!float x\n---\nSteps.\n")
@example(raw=f"---\nname: x\ndescription: D\n{BOMB}\nvendor: *l4\n---\nSteps.\n".encode())
@example(raw=b"---\nname: x\ndescription: D\nbig: 0x" + b"f" * 5000 + b"\n---\nSteps.\n")
@example(raw=b"\xef\xbb\xbf---\nname: x\ndescription: D\nwhen: 2026-01-01\n---\nSteps.\n")
@example(raw=b"---\nname: x\ndescription: D\nmetadata: {required_zdr: yes}\n---\nSteps.\n")
@FAST
def test_parse_skill_file_answers_any_bytes_with_clean_problems(raw: bytes) -> None:
    parsed = parse_skill_file(raw)
    for problem in parsed.problems:
        check_problem(problem.code, problem.message, problem.severity)
    assert (parsed.metadata is None) == bool(parsed.errors)
    if parsed.frontmatter is not None:
        # What is served as written is JSON, and no alias makes it much larger than the file.
        encoded = frontmatter_json.encode(parsed.frontmatter)
        assert json.loads(encoded) == parsed.frontmatter
        assert len(encoded) <= 16 * len(raw) + 4096


FILE_NAMES = [
    "references/a.md",
    "scripts/run.sh",
    "templates/t.txt",
    "notes.md",
    "references/x.exe",
    "a b.md",
    "assets/font.ttf",
    "reference/deep/er/x.xsd",
    ".hidden",
    "assets/.gitkeep",
    "bidi\u202egnp.md",
    "tab\there.md",
    "nested/SKILL.md",
    "skill.md",
    "100%.md",
]


@st.composite
def skill_dirs(draw: st.DrawFn) -> dict[str, Any]:
    """One skill directory: its SKILL.md (maybe valid-looking, maybe hostile) and some files."""
    skill_id = draw(st.sampled_from(["good", "x", "a-b"]))
    files = draw(
        st.dictionaries(
            st.sampled_from(FILE_NAMES),
            st.binary(max_size=40) | st.text(max_size=40).map(str.encode),
            max_size=3,
        )
    )
    kind = draw(st.sampled_from(["registry", "open", "bytes"]))
    if kind == "open":
        meta: dict[str, Any] = {"name": skill_id, "description": "D"}
        extra = draw(
            st.dictionaries(
                st.sampled_from(["version", "metadata", "required_zdr", "allowed-tools", "license", "x-key"]),
                st.sampled_from(["1.0.0", "1.0", "true", True, ["Read"], {"version": "2.0.0"}, None]),
                max_size=3,
            )
        )
        head = yaml.safe_dump({**meta, **extra}) + draw(yaml_texts())
        skill_md = ("---\n" + head + "\n---\nSteps.\n").encode("utf-8", "surrogatepass")
    elif kind == "registry":
        listed = draw(st.lists(st.sampled_from([*files, "../escape.md", "/abs.md", "references/none.md"])))
        meta = {
            "schema_version": 1,
            "id": skill_id,
            "name": "N",
            "description": "D",
            "version": draw(st.sampled_from(["1.0.0", "1.0", "01.0.0", "1.0.0-rc.1+b"])),
            "files": listed,
        }
        head = yaml.safe_dump(meta) + draw(yaml_texts())
        skill_md = ("---\n" + head + "\n---\nSteps.\n").encode("utf-8", "surrogatepass")
    else:
        skill_md = draw(skill_md_bytes())
    return {"id": skill_id, "skill_md": skill_md, "files": files}


def write_tree(root: Path, skills: list[dict[str, Any]]) -> None:
    (root / "registry.config.json").write_text(json.dumps(DEFAULT_CONFIG))
    for skill in skills:
        directory = root / "skills" / skill["id"]
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "SKILL.md").write_bytes(skill["skill_md"])
        for path, data in skill["files"].items():
            (directory / path).parent.mkdir(parents=True, exist_ok=True)
            (directory / path).write_bytes(data)


@given(skills=st.lists(skill_dirs(), min_size=1, max_size=3))
@SLOW
def test_validate_tree_and_check_skills_answer_any_skill_with_clean_problems(
    skills: list[dict[str, Any]],
) -> None:
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        write_tree(root, skills)
        report = validate_tree(WorkingTree(root))
        for problem in report.problems:
            check_problem(problem.code, problem.message, problem.severity)
            assert problem.path == "registry.config.json" or problem.path.startswith("skills/"), problem
        assert report.ok == (not report.errors)

        code, out = check_skills_json(root)
        out.encode("utf-8")  # what a terminal or a pipe can take, whatever the names
        document = json.loads(out)
        assert code == (0 if document["ok"] else 1)
        assert document["ok"] == report.ok
        assert [(p["path"], p["code"], p["severity"]) for p in document["problems"]] == [
            (printable(p.path), p.code, p.severity) for p in report.problems
        ]
        for problem in report.problems:
            line = problem.line()
            assert line.isprintable() and "\n" not in line
            line.encode("utf-8")
