"""Random frontmatter never crashes validation (docs/reference.md#skill-format, #validation):
whatever bytes a SKILL.md holds (random bytes, random YAML documents, YAML's sharp corners:
aliases and alias bombs, tags, huge numbers, impossible dates, deep nesting), in either
dialect, parse_skill_file, validate_tree and check_skills answer with clean, bounded problems
with a stable code, never an exception and never a hang; what the open dialect serves as
written is JSON, and bounded. A malicious skill author can fail CI, but not break or stall it."""

import json
import re
import subprocess
import sys
import tempfile
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import example, given
from hypothesis import strategies as st

from catalog import frontmatter_json, validation
from catalog.fields import MAX_ITEM_CHARS, MAX_LIST_ITEMS
from catalog.open_dialect import OPEN_KEYS
from catalog.publishing import PublishError, publish
from catalog.registry_dialect import KNOWN_KEYS
from catalog.report import printable
from catalog.skillfile import parse_skill_file
from catalog.trees import WorkingTree
from catalog.validation import validate_tree
from tests.support.hostile import check_skills_json, examples
from tests.support.project import PROJECT_DIR
from tests.support.repos import DEFAULT_CONFIG, SkillRepo
from tests.support.skillmd import skill_md

pytestmark = pytest.mark.reliability

FAST = examples(400)
SLOW = examples(60)
# A problem message names the problem; it never echoes a whole hostile value.
MAX_MESSAGE_CHARS = 2000


def documented_codes() -> set[str]:
    """The stable problem codes listed in catalog.validation's docstring."""
    doc = validation.__doc__ or ""
    listing = doc.split("Problem codes", 1)[1]
    codes: set[str] = set()
    for line in listing.splitlines()[1:]:
        parts = re.split(r"\s{2,}", line.strip(), maxsplit=1)
        if len(parts) == 2:
            codes.update(code.strip() for code in parts[1].split(","))
        elif line.startswith(" " * 20):
            codes.update(code.strip() for code in line.split(","))
    return {code for code in codes if re.fullmatch(r"[a-z][a-z0-9_]*", code)}


CODES = documented_codes()


def _alias_bomb(levels: int = 8, width: int = 9) -> str:
    lines = ["l0: &l0 [" + ", ".join(["lol"] * width) + "]"]
    for n in range(1, levels + 1):
        lines.append(f"l{n}: &l{n} [" + ", ".join([f"*l{n - 1}"] * width) + "]")
    return "\n".join(lines)


# Small enough to fail fast (a message of 6,561 items) if values were ever echoed whole.
BOMB = _alias_bomb(levels=4)
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


def check_problem(code: str, message: str, severity: str = "error") -> None:
    assert code in CODES, f"undocumented problem code {code!r}"
    assert severity in ("error", "warning")
    assert isinstance(message, str) and message.strip()
    assert len(message) <= MAX_MESSAGE_CHARS, message[:200]
    assert "Traceback" not in message


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


BOMB_TARGETS = [
    "required_zdr: *l8",
    "tags: [*l8]",
    "files: [*l8]",
    "*l8 : x",
    "schema_version: *l8",
    "id: [*l8]",
    "name: x\ndescription: D\nvendor-key: *l8",
    "name: x\ndescription: D\nmetadata: {a: *l8}",
    "name: x\ndescription: D\nallowed-tools: *l8",
]
# In a child process, bounded in time and memory: an expanded bomb would hold the GIL inside
# repr() (no thread can time it out) and grow by gigabytes.
_PARSE_BOMBS = """
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
from catalog.skillfile import parse_skill_file
answers = []
for raw in json.load(sys.stdin):
    parsed = parse_skill_file(raw.encode())
    answers.append([[problem.code, problem.message, problem.severity] for problem in parsed.problems])
print(json.dumps(answers))
"""


def test_an_alias_bomb_is_answered_at_once() -> None:
    """9^8 = 43 million list items behind a few hundred bytes of YAML: never expanded."""
    bomb = _alias_bomb(levels=8)
    raws = [f"---\n{bomb}\n{where}\n---\nSteps.\n" for where in BOMB_TARGETS]
    done = subprocess.run(
        [sys.executable, "-c", _PARSE_BOMBS],
        input=json.dumps(raws),
        capture_output=True,
        text=True,
        timeout=60,
        cwd=PROJECT_DIR,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    answers = json.loads(done.stdout)
    assert len(answers) == len(BOMB_TARGETS)
    for problems in answers:
        assert any(severity == "error" for _, _, severity in problems), "a bomb must not validate"
        for code, message, severity in problems:
            check_problem(code, message, severity)


# --- the list bounds (docs/reference.md#skill-format, #limits) ---------------------------


@st.composite
def written_lists(draw: st.DrawFn) -> tuple[list[str], str]:
    """A list of strings around the bounds (count near 64, lengths near 200, repeats), and
    its YAML flow text, where a repeated item is written as an alias of its first use."""
    count = draw(st.one_of(st.integers(0, 3), st.integers(60, 70), st.integers(120, 200)))
    lengths = st.one_of(st.integers(1, 8), st.integers(195, 205))
    items: list[str] = []
    text: list[str] = []
    anchors: dict[str, str] = {}
    for n in range(count):
        if items and draw(st.integers(0, 9)) == 0:
            item = draw(st.sampled_from(items))  # a repeat, written as an alias when it has one
        else:
            item = f"i{n}-" + "x" * draw(lengths)
        if item in anchors:
            text.append(f"*{anchors[item]}")
        elif draw(st.booleans()):
            anchors[item] = f"a{n}"
            text.append(f'&a{n} "{item}"')
        else:
            text.append(f'"{item}"')
        items.append(item)
    return items, "[" + ", ".join(text) + "]"


def list_verdict(items: list[str]) -> set[str]:
    """The codes the list rule owes `items`, whatever else the list holds."""
    if len(items) > MAX_LIST_ITEMS:
        return {"too_many_items"}
    owed = set()
    if any(len(item) > MAX_ITEM_CHARS for item in items):
        owed.add("item_too_long")
    if len(set(items)) < len(items):
        owed.add("duplicate_item")
    return owed


LIST_FRONTS = {
    "keywords": "schema_version: 1\nid: demo\nname: demo\ndescription: D\nversion: 1.0.0\nkeywords: {}\n",
    "requires": "schema_version: 1\nid: demo\nname: demo\ndescription: D\nversion: 1.0.0\nrequires: {}\n",
    "allowed-tools": "name: demo\ndescription: D\nallowed-tools: {}\n",
}


@given(written=written_lists(), key=st.sampled_from(sorted(LIST_FRONTS)))
@FAST
def test_every_list_is_refused_exactly_past_its_bounds(written: tuple[list[str], str], key: str) -> None:
    """At most 64 items of at most 200 characters, no repeats; an alias counts as the item it
    stands for, so a list passes or fails on what it expands to, however it is written."""
    items, text = written
    parsed = parse_skill_file(f"---\n{LIST_FRONTS[key].format(text)}---\nSteps.\n".encode())
    assert {problem.code for problem in parsed.errors} == list_verdict(items)
    if parsed.metadata is not None and key != "allowed-tools":
        assert list(getattr(parsed.metadata, key)) == items


def test_the_reported_keyword_bomb_is_refused_in_bounded_time_and_memory() -> None:
    """Issue 15, finding 2: 20,000 characters anchored once, 11,000 aliases to them."""
    uses = ", ".join(["*s"] * 11_000)
    raw = f'---\nname: x\ndescription: D\nkeywords: [&s "{"x" * 20_000}", {uses}]\n---\nSteps.\n'
    done = subprocess.run(
        [sys.executable, "-c", _PARSE_BOMBS],
        input=json.dumps([raw]),
        capture_output=True,
        text=True,
        timeout=30,
        cwd=PROJECT_DIR,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    [problems] = json.loads(done.stdout)
    assert ["too_many_items", "keywords holds 11001 items, more than 64", "error"] in problems


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


@pytest.mark.django_db
def test_check_skills_and_publish_refuse_the_reported_keyword_bomb_fast_in_little_memory(
    tmp_path: Path,
) -> None:
    """Issue 15, finding 2, end to end: before the list bound, this 64 KiB SKILL.md's
    five-character variant published into every skills_list; now both commands refuse it,
    naming keywords, its count and the limit, in a few MiB."""
    uses = ", ".join(["*s"] * 11_000)
    repo = SkillRepo(tmp_path / "repo")
    for skill_id, keyword in (("bomb", "x" * 20_000), ("short", "xxxxx")):
        text = skill_md(skill_id).replace("---\nDo", f'keywords: [&s "{keyword}", {uses}]\n---\nDo', 1)
        repo.write(f"skills/{skill_id}/SKILL.md", text)
    sha = repo.commit("two keyword bombs")
    expected = {"bomb", "short"}
    tracemalloc.start()
    try:
        code, printed = check_skills_json(repo.root)
        with pytest.raises(PublishError) as refused:
            publish(repo.root, sha)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # Memory, not time, is the bound that holds on a busy machine: the expansion never happens.
    assert peak < 32 * 1024 * 1024
    assert code == 1
    named = {
        problem["path"].split("/")[1]
        for problem in json.loads(printed)["problems"]
        if problem["message"] == "keywords holds 11001 items, more than 64"
    }
    assert named == expected
    assert str(refused.value).count("keywords holds 11001 items, more than 64") == 2
