"""Parse one SKILL.md: YAML frontmatter between `---` lines, then the Markdown body
(docs/reference.md#skill-format).

Two dialects, told apart by one key: a frontmatter with `schema_version` is the registry
dialect (catalog.registry_dialect), one without it the open Agent Skills dialect
(catalog.open_dialect). Both map onto one SkillMetadata, and both keep the whole mapping
as written (catalog.frontmatter_json). Problems are collected, not raised, so an author
sees every one of them in a single run of check_skills.
"""

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from catalog import frontmatter_json
from catalog.config import CEILING_LIMITS
from catalog.fields import ERROR, FieldProblem, type_name
from catalog.open_dialect import OpenChecker
from catalog.registry_dialect import SKILL_MD, RegistryChecker
from catalog.skill import Dialect, SkillMetadata
from catalog.strict_yaml import load_yaml

__all__ = ["SKILL_MD", "ParsedSkillFile", "parse_skill_file", "text_problem"]

DIALECT_KEY = "schema_version"
BYTE_ORDER_MARK = "\ufeff"
_OPENING = re.compile(r"---\r?\n")
# The closing delimiter: a line that is exactly `---` (CRLF tolerated, as git may check
# files out that way on Windows), possibly the last line of the file.
_CLOSING = re.compile(r"^---\r?(?:\n|\Z)", re.MULTILINE)
# When the YAML does not load, its dialect is still told from the text, so that the
# problems of the skill's files are those of the dialect the author meant.
_DIALECT_LINE = re.compile(rf"^{DIALECT_KEY}\s*:", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class ParsedSkillFile:
    """What one SKILL.md says.

    `metadata` is set only when there is no error (warnings allowed). `valid` holds each
    key whose value passed its own rules even when others failed, so that the caller can
    still cross-check the `files` list or apply the version rule and report everything.
    `dialect` is None only when the file has no frontmatter at all.
    """

    metadata: SkillMetadata | None
    instructions: str | None
    problems: tuple[FieldProblem, ...]
    valid: Mapping[str, Any] = field(default_factory=dict)
    dialect: Dialect | None = None
    frontmatter: Mapping[str, Any] | None = None  # the whole mapping as written, as JSON data

    @property
    def errors(self) -> tuple[FieldProblem, ...]:
        return tuple(problem for problem in self.problems if problem.severity == ERROR)


def text_problem(raw: bytes) -> FieldProblem | None:
    """Every served file must be UTF-8 text without NUL bytes (docs/reference.md#skill-format)."""
    nul = raw.find(b"\0")
    if nul >= 0:
        return FieldProblem(
            "binary_content", f"contains a NUL byte at offset {nul}; only text files are allowed"
        )
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return FieldProblem("not_utf8", f"is not valid UTF-8 (bad byte at offset {exc.start})")
    return None


def parse_skill_file(
    raw: bytes, path: str = "", max_files: int = CEILING_LIMITS.max_files_per_skill
) -> ParsedSkillFile:
    """Parse the bytes of one SKILL.md of the skill directory `path` (repository-relative,
    recorded in the metadata); a registry-dialect `files` holds at most `max_files` paths.
    Never raises for bad content: problems are returned."""
    problem = text_problem(raw)
    if problem is not None:
        return ParsedSkillFile(None, None, (problem,))
    text = raw.decode("utf-8")
    # The open dialect tolerates a leading byte-order mark (editors on Windows write one);
    # the bytes are stored and served unchanged all the same. The registry dialect keeps
    # its rule: the first line is exactly `---`.
    unmarked = text.removeprefix(BYTE_ORDER_MARK)
    marked = len(unmarked) != len(text)

    opening = _OPENING.match(unmarked)
    if opening is None:
        return ParsedSkillFile(None, None, (_no_frontmatter(marked),))
    closing = _CLOSING.search(unmarked, opening.end())
    if closing is None:
        return ParsedSkillFile(
            None, None, (FieldProblem("unterminated_frontmatter", "frontmatter has no closing '---' line"),)
        )
    front = unmarked[opening.end() : closing.start()]
    instructions = unmarked[closing.end() :]

    problems: list[FieldProblem] = []
    if not instructions.strip():
        problems.append(
            FieldProblem("empty_body", "the body (the instructions after the frontmatter) is empty")
        )

    data: Any = None
    try:
        data = load_yaml(front)
    except yaml.MarkedYAMLError as exc:
        problems.append(FieldProblem(*_yaml_problem(exc)))
    except (yaml.YAMLError, RecursionError, ValueError, OverflowError):
        # ValueError/OverflowError: a scalar YAML resolves but Python cannot build, e.g. a
        # 2001-13-45 timestamp, `!!float x` or an integer of more than 4300 digits.
        problems.append(FieldProblem("invalid_yaml", "frontmatter is not valid YAML"))
    else:
        if not isinstance(data, dict):
            what = "empty" if data is None else f"a {type_name(data)}"
            problems.append(
                FieldProblem("frontmatter_not_mapping", f"frontmatter must be a YAML mapping, not {what}")
            )
    if isinstance(data, dict):
        dialect = Dialect.REGISTRY if DIALECT_KEY in data else Dialect.OPEN
    else:
        dialect = Dialect.REGISTRY if _DIALECT_LINE.search(front) else Dialect.OPEN
    if marked and dialect is Dialect.REGISTRY:
        return ParsedSkillFile(None, None, (_no_frontmatter(marked),), dialect=dialect)
    if not isinstance(data, dict):
        return ParsedSkillFile(None, instructions, tuple(problems), dialect=dialect)

    # The key rules run even on a frontmatter whose aliases expand too far: they never
    # expand a value (a list is refused by its length before its items are looked at), and
    # so an alias bomb in a list is named by its key, its count and the limit.
    written, why = _as_written(data, len(front))
    checker = RegistryChecker(max_files) if dialect is Dialect.REGISTRY else OpenChecker()
    valid = checker.check(data)
    problems.extend(checker.problems)
    if why is not None:
        problems.append(why)
        return ParsedSkillFile(None, instructions, tuple(problems), valid, dialect)
    metadata = None
    if not any(problem.severity == ERROR for problem in problems):
        metadata = SkillMetadata.from_values({**valid, "path": path})
    return ParsedSkillFile(metadata, instructions, tuple(problems), valid, dialect, written)


def _no_frontmatter(marked: bool) -> FieldProblem:
    hint = " (remove the byte-order mark)" if marked else ""
    return FieldProblem("missing_frontmatter", f"must start with a '---' line, then YAML frontmatter{hint}")


def _as_written(data: dict[Any, Any], written_chars: int) -> tuple[Any, FieldProblem | None]:
    try:
        frontmatter_json.check_expansion(data, frontmatter_json.expansion_budget(written_chars))
        return frontmatter_json.render(data), None
    except frontmatter_json.RecursiveFrontmatter:
        return None, FieldProblem("invalid_yaml", "frontmatter is not valid YAML: an alias refers to itself")
    except RecursionError:
        return None, FieldProblem("invalid_yaml", "frontmatter is not valid YAML: nested too deeply")
    except frontmatter_json.FrontmatterTooLarge:
        return None, FieldProblem(
            "frontmatter_too_large",
            "frontmatter expands (through YAML aliases) to more than four times its written size "
            f"or more than {frontmatter_json.MAX_FRONTMATTER_COST} characters",
        )
    except frontmatter_json.Unservable as exc:
        return None, FieldProblem("invalid_yaml", f"frontmatter is not valid YAML here: it holds {exc}")
    except frontmatter_json.KeyClash as exc:
        return None, FieldProblem("duplicate_key", f"frontmatter has {exc} (a key that is not a string)")


def _yaml_problem(exc: yaml.MarkedYAMLError) -> tuple[str, str]:
    mark = exc.problem_mark or exc.context_mark
    # +2: the mark counts from 0 within the frontmatter, which starts on line 2 of SKILL.md.
    where = f" at line {mark.line + 2}" if mark is not None else ""
    what = exc.problem or exc.context or "syntax error"
    if what.startswith("duplicate key"):
        return "duplicate_key", f"frontmatter has a {what}{where}"
    return "invalid_yaml", f"frontmatter is not valid YAML{where}: {what}"
