"""What validation finds: problems, the valid skills, and the report that holds both;
and that report as check_skills prints it (docs/reference.md#validation, #commands)."""

import json
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from catalog.config import RegistryConfig
from catalog.fields import ERROR, WARNING
from catalog.paths import BIDI_CONTROLS
from catalog.skill import Dialect, SkillMetadata

__all__ = ["ERROR", "WARNING", "OmittedFile", "Problem", "ValidatedFile", "ValidatedSkill"]

_NAMED_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


@dataclass(frozen=True, slots=True)
class Problem:
    path: str  # "skills/<id>/SKILL.md", "skills/<id>/references/x.md" or "registry.config.json"
    code: str  # a stable machine-readable code, e.g. "unknown_key", "version_not_bumped"
    message: str
    severity: str = ERROR  # ERROR blocks check_skills and publish; WARNING never does

    @property
    def is_error(self) -> bool:
        return self.severity == ERROR

    def line(self) -> str:
        """`<path>: <message>`, or `<path>: warning: <message>`; always one printable line
        (a line break in a file name is written `\\n`)."""
        label = "warning: " if self.severity == WARNING else ""
        return printable(f"{self.path}: {label}{self.message}")


def printable(text: str) -> str:
    """`text` (a path, or a message that names one) as a person may read it: the bytes of a
    name that is not UTF-8 as \\xNN, control and bidirectional characters as escapes (a
    terminal would act on them rather than show them, and bidi controls can make a name
    read as another). Anything else unchanged."""
    if text.isprintable() and not BIDI_CONTROLS.intersection(text):
        return text
    out = []
    for char in text:
        code = ord(char)
        if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape)
            out.append(f"\\x{code - 0xDC00:02x}")
        elif char in _NAMED_ESCAPES:
            out.append(_NAMED_ESCAPES[char])
        elif char in BIDI_CONTROLS or unicodedata.category(char) in ("Cc", "Cs"):
            out.append(f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}")
        else:
            out.append(char)
    return "".join(out)


@dataclass(frozen=True, slots=True)
class ValidatedFile:
    path: str  # relative to the skill directory, e.g. "references/api.md"
    source: str  # the repository-relative path, to read the bytes again from the tree
    size: int
    sha256: str
    media_type: str
    executable: bool  # true under scripts/


@dataclass(frozen=True, slots=True)
class OmittedFile:
    """A file of an open-dialect skill that is not served, and why (docs/reference.md#skill-format)."""

    path: str  # relative to the skill directory
    reason: str


@dataclass(frozen=True, slots=True)
class ValidatedSkill:
    metadata: SkillMetadata
    dialect: Dialect
    frontmatter: Mapping[str, Any]  # the whole YAML mapping as written, as JSON data
    instructions: str  # the text after the closing '---' line, unchanged
    skill_md_source: str  # "skills/<id>/SKILL.md"
    skill_md_size: int
    skill_md_sha256: str
    content_hash: str
    files: tuple[ValidatedFile, ...]  # sorted by path
    omitted: tuple[OmittedFile, ...] = ()  # sorted by path; not covered by content_hash

    @property
    def id(self) -> str:
        return self.metadata.id


@dataclass(frozen=True, slots=True)
class BaseSkill:
    """A skill of the revision the version rule compares against."""

    content_hash: str
    version: str | None  # None: an open-dialect skill without a version


@dataclass(slots=True)
class ValidationReport:
    config: RegistryConfig | None  # None when registry.config.json is missing or invalid
    skills: list[ValidatedSkill] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    # The skill directories of validate_tree's `known_valid` present in the tree, sorted:
    # part of it, valid on the caller's word, never read. Always empty for check_skills.
    known_valid: list[str] = field(default_factory=list)

    @property
    def errors(self) -> list[Problem]:
        return [problem for problem in self.problems if problem.is_error]

    @property
    def warnings(self) -> list[Problem]:
        return [problem for problem in self.problems if not problem.is_error]

    @property
    def ok(self) -> bool:
        """No error; warnings never change the verdict."""
        return not any(problem.is_error for problem in self.problems)


def report_text(report: ValidationReport) -> tuple[list[str], list[str]]:
    """check_skills' text output: (stdout lines, stderr lines). One line per problem, then
    a one-line summary (on stderr when there are errors, so the problems alone are stdout)."""
    out = [problem.line() for problem in report.problems]
    warnings = len(report.warnings)
    noted = f", {_count(warnings, 'warning')}" if warnings else ""
    if report.ok:
        return [*out, f"OK: {_count(len(report.skills), 'skill')} valid{noted}."], []
    return out, [f"{_count(len(report.errors), 'problem')} found{noted}."]


def report_json(report: ValidationReport, config: str) -> str:
    """check_skills --format json: every problem with its severity, and where the config came
    from (`config`: the file's name, or "defaults" when the repository has none)."""
    document = {
        "ok": report.ok,
        "skills": len(report.skills),
        "problems": [
            {
                "path": printable(problem.path),
                "code": problem.code,
                "severity": problem.severity,
                "message": printable(problem.message),
            }
            for problem in report.problems
        ],
        "config": config,
    }
    return json.dumps(document, indent=2, ensure_ascii=False)


def _count(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"
