"""Alias bombs and list bounds in hostile frontmatter (docs/reference.md#skill-format, #limits):
a bomb is answered at once, every list is refused exactly past its bounds, and the reported
keyword bomb is refused fast and in little memory by parse_skill_file, check_skills and publish."""

import json
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from catalog.fields import MAX_ITEM_CHARS, MAX_LIST_ITEMS
from catalog.publishing import PublishError, publish
from catalog.skillfile import parse_skill_file
from tests.reliability.frontmatter_support import _alias_bomb, check_problem
from tests.support.hostile import check_skills_json, examples
from tests.support.project import PROJECT_DIR
from tests.support.repos import SkillRepo
from tests.support.skillmd import skill_md

pytestmark = pytest.mark.reliability

FAST = examples(400)


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
