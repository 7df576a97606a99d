"""What validation finds: problems, the valid skills, and the report that holds both;
and that report as check_skills prints it (docs/reference.md#validation, #commands)."""

import json
from dataclasses import dataclass, field

from catalog.config import RegistryConfig


@dataclass(frozen=True, slots=True)
class Problem:
    path: str  # "skills/<id>/SKILL.md", "skills/<id>/references/x.md" or "registry.config.json"
    code: str  # a stable machine-readable code, e.g. "unknown_key", "version_not_bumped"
    message: str

    def line(self) -> str:
        return f"{self.path}: {self.message}"


@dataclass(frozen=True, slots=True)
class ValidatedFile:
    path: str  # relative to the skill directory, e.g. "references/api.md"
    source: str  # the repository-relative path, to read the bytes again from the tree
    size: int
    sha256: str
    media_type: str
    executable: bool  # true under scripts/


@dataclass(frozen=True, slots=True)
class ValidatedSkill:
    id: str
    name: str
    description: str
    version: str
    tags: tuple[str, ...]
    keywords: tuple[str, ...]
    requires: tuple[str, ...]
    required_zdr: bool
    instructions: str  # the text after the closing '---' line, unchanged
    skill_md_source: str  # "skills/<id>/SKILL.md"
    skill_md_size: int
    skill_md_sha256: str
    content_hash: str
    files: tuple[ValidatedFile, ...]  # sorted by path


@dataclass(frozen=True, slots=True)
class BaseSkill:
    """A skill of the revision the version rule compares against."""

    content_hash: str
    version: str


@dataclass(slots=True)
class ValidationReport:
    config: RegistryConfig | None  # None when registry.config.json is missing or invalid
    skills: list[ValidatedSkill] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    # The skills of validate_tree's `known_valid` present in the tree, sorted: part of it,
    # valid on the caller's word, never read. Always empty for check_skills.
    known_valid: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def report_text(report: ValidationReport) -> tuple[list[str], list[str]]:
    """check_skills' text output: (stdout lines, stderr lines). One line per problem, then
    a one-line summary (on stderr when there are problems, so the problems alone are stdout)."""
    out = [_one_line(problem.line()) for problem in report.problems]
    if report.ok:
        count = len(report.skills)
        return [*out, f"OK: {count} skill{'' if count == 1 else 's'} valid."], []
    count = len(report.problems)
    return out, [f"{count} problem{'' if count == 1 else 's'} found."]


def report_json(report: ValidationReport) -> str:
    """check_skills --format json."""
    document = {
        "ok": report.ok,
        "skills": len(report.skills),
        "problems": [
            {"path": problem.path, "code": problem.code, "message": problem.message}
            for problem in report.problems
        ],
    }
    return json.dumps(document, indent=2, ensure_ascii=False)


def _one_line(text: str) -> str:
    # A file name may contain a line break; each problem must still be exactly one line.
    return text.replace("\r", "\\r").replace("\n", "\\n")
