"""Reading one registry-dialect SKILL.md in the skill-file tests: parse it from fields or from
frontmatter text, and name its problems."""

from typing import Any

from catalog.skillfile import ParsedSkillFile, parse_skill_file
from tests.support.skillmd import skill_md

VALID_FRONT = "schema_version: 1\nid: demo\nname: Demo\ndescription: Does demo things.\nversion: 1.0.0\n"


def parse(**fields: Any) -> ParsedSkillFile:
    return parse_skill_file(skill_md("demo", **fields).encode("utf-8"))


def parse_front(extra: str, front: str = VALID_FRONT, body: str = "Body.\n") -> ParsedSkillFile:
    return parse_skill_file(f"---\n{front}{extra}---\n{body}".encode())


def problem_codes(parsed: ParsedSkillFile) -> list[str]:
    return [problem.code for problem in parsed.problems]


def only_problem(parsed: ParsedSkillFile) -> str:
    """The message of the single problem, asserting there is exactly one."""
    assert len(parsed.problems) == 1, parsed.problems
    return parsed.problems[0].message
