"""Reading one open-dialect SKILL.md in the open-dialect tests: parse it from keys or from
frontmatter text, and name its errors and its warnings apart."""

from typing import Any

import yaml

from catalog.skillfile import ParsedSkillFile, parse_skill_file

BASE = {"name": "demo", "description": "Does demo things."}


def parse(front: dict[str, Any] | str, body: str = "Steps.\n", path: str = "skills/demo") -> ParsedSkillFile:
    text = front if isinstance(front, str) else yaml.safe_dump(front, sort_keys=False, allow_unicode=True)
    return parse_skill_file(f"---\n{text}---\n{body}".encode(), path)


def with_keys(**fields: Any) -> ParsedSkillFile:
    return parse({**BASE, **fields})


def errors(parsed: ParsedSkillFile) -> list[str]:
    return [problem.code for problem in parsed.problems if problem.severity == "error"]


def warnings(parsed: ParsedSkillFile) -> list[str]:
    return [problem.code for problem in parsed.problems if problem.severity == "warning"]
