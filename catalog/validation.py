"""Every rule of SPEC §2–3 over a Tree; returns all problems, not just the first.

CONTRACT (implemented by the validation work; publishing and check_skills rely on it):

    validate_tree(tree: Tree, base: Mapping[str, BaseSkill] | None = None) -> ValidationReport

`base` maps skill id -> BaseSkill(content_hash, version) of the revision the
version rule compares against (None: no version rule).  The report carries the
parsed config (None if it was invalid), every valid skill, and every problem.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field

from catalog.config import RegistryConfig
from catalog.trees import Tree


@dataclass(frozen=True, slots=True)
class Problem:
    path: str  # "skills/<id>/SKILL.md", "skills/<id>/references/x.md" or "registry.config.json"
    code: str  # a stable machine-readable code, e.g. "unknown_key", "version_not_bumped"
    message: str


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
    content_hash: str
    version: str


@dataclass(slots=True)
class ValidationReport:
    config: RegistryConfig | None
    skills: list[ValidatedSkill] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def validate_tree(tree: Tree, base: Mapping[str, BaseSkill] | None = None) -> ValidationReport:
    raise NotImplementedError


def base_skills_from_tree(tree: Tree) -> dict[str, BaseSkill]:
    """The (content_hash, version) of every skill in `tree` that parses, for the version rule."""
    raise NotImplementedError
