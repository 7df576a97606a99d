"""Every rule of SPEC §2-3 over a Tree; returns all problems, not just the first.

CONTRACT (implemented by the validation work; publishing and check_skills rely on it):

    validate_tree(tree: Tree, base: Mapping[str, BaseSkill] | None = None,
                  known_valid: Collection[str] = ()) -> ValidationReport

`base` maps skill id -> BaseSkill(content_hash, version) of the revision the
version rule compares against (None: no version rule).  The report carries the
parsed config (None if it was invalid), every valid skill, and every problem.

`known_valid` (publish only; check_skills never passes it) names skill directories
the caller vouches for: they are counted and listed for the tree-wide rules but
never read, parsed or hashed, and end up in `report.known_valid` instead of
`report.skills`. The caller must be able to prove, for each of them, that
  - the directory is identical (names, modes, bytes) to one that passed
    validate_tree with no problem,
  - under the same registry.config.json bytes,
  - under the same rules (rules_fingerprint() unchanged), and
  - with the content hash of base[id], so the version rule has nothing to say.
Then a full validation would find nothing in it either. catalog.publishing proves
it with git tree ids against the active snapshot's commit; anything less is a
weakened rule.

Problem codes (stable; check_skills --format json prints them):
  registry.config.json   missing_config, invalid_config
  skills/                skills_dir_not_directory, too_many_skills, not_a_skill_directory
  skills/<id>/SKILL.md   missing_skill_md, skill_md_too_large, not_utf8, binary_content,
                         missing_frontmatter, unterminated_frontmatter, invalid_yaml, duplicate_key,
                         frontmatter_not_mapping, unknown_key, missing_key, invalid_type,
                         unsupported_schema_version, invalid_id, id_mismatch, invalid_name,
                         invalid_description, invalid_version, invalid_tag, duplicate_tag,
                         invalid_keyword, invalid_path, duplicate_path, invalid_required_zdr,
                         empty_body, listed_file_missing, too_many_files, skill_too_large,
                         version_not_bumped, version_decreased
  skills/<id>/<file>     symlink, submodule, not_regular_file, invalid_path, disallowed_location,
                         disallowed_extension, unlisted_file, file_too_large, not_utf8,
                         binary_content, unreadable_file
"""

import functools
import hashlib
import posixpath
import sys
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import semver
import yaml

from catalog import config as config_module
from catalog import hashing, skillfile, trees
from catalog.config import (
    CONFIG_FILENAME,
    MAX_CONFIG_BYTES,
    ConfigError,
    Limits,
    RegistryConfig,
    parse_config,
)
from catalog.hashing import content_hash, sha256_hex
from catalog.skillfile import (
    SKILL_MD,
    ParsedSkillFile,
    parse_skill_file,
    parse_version,
    path_problem,
    text_problem,
)
from catalog.trees import EntryKind, Tree, TreeEntry


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
    # The skills of validate_tree's `known_valid` present in the tree, sorted: part of it,
    # valid on the caller's word, never read. Always empty for check_skills.
    known_valid: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


# --- rules ------------------------------------------------------------------------------

# Supporting files live only in these folders (nested folders inside them are fine).
SUPPORT_DIRS = ("references", "templates", "scripts")
SCRIPTS_DIR = "scripts"
MEDIA_TYPES: Mapping[str, str] = {
    ".md": "text/markdown",
    ".txt": "text/plain",
    ".sh": "text/x-shellscript",
    ".py": "text/x-python",
    ".js": "text/javascript",
    ".ts": "text/typescript",
    ".rb": "text/x-ruby",
}
DEFAULT_MEDIA_TYPE = "text/plain"

# Used only to read a *base* revision whose own config is missing or invalid: its skills
# still get a content hash, so the version rule is not silently skipped.
_FALLBACK_SKILLS_DIR = "skills"
_FALLBACK_LIMITS = Limits(
    max_skills=1_000_000,
    max_files_per_skill=100_000,
    max_skill_md_bytes=16 * 1024 * 1024,
    max_file_bytes=16 * 1024 * 1024,
    max_skill_total_bytes=256 * 1024 * 1024,
)

_KIND_PROBLEMS: Mapping[EntryKind, tuple[str, str]] = {
    EntryKind.SYMLINK: ("symlink", "is a symlink; symlinks are not allowed"),
    EntryKind.SUBMODULE: ("submodule", "is a git submodule; submodules are not allowed"),
    EntryKind.OTHER: ("not_regular_file", "is not a regular file"),
}


# Above this many directories to read, one recursive listing beats one listing each.
_LIST_EACH_MAX = 64


def _inside(rel: str, directories: Collection[str]) -> bool:
    """Whether `rel` (relative to the skills dir) lies inside one of `directories`."""
    name, sep, _ = rel.partition("/")
    return bool(sep) and name in directories


def media_type_for(path: str) -> str:
    return MEDIA_TYPES.get(posixpath.splitext(path)[1].lower(), DEFAULT_MEDIA_TYPE)


def validate_tree(
    tree: Tree, base: Mapping[str, BaseSkill] | None = None, known_valid: Collection[str] = ()
) -> ValidationReport:
    """Validate every skill of `tree` against SPEC §2-3 (and the version rule against `base`).

    Skills named in `known_valid` are taken as valid without being read: see the module
    docstring for what the caller must prove first. Tree-wide rules still see them.
    """
    config, config_problems = _read_config(tree)
    report = ValidationReport(config=config, problems=config_problems)
    if config is None:
        # Without the config there are no limits, extensions or skills_dir to check against.
        return report
    scanner = _Scanner(tree, config.skills_dir, config.limits, config)
    for scan in scanner.scan(frozenset(known_valid)):
        if base is not None:
            scan.problems.extend(_version_rule(scan, base))
        report.problems.extend(scan.problems)
        skill = scan.validated()
        if skill is not None:
            report.skills.append(skill)
    report.problems.extend(scanner.problems)
    report.problems.sort(key=lambda p: (p.path, p.message, p.code))
    report.skills.sort(key=lambda s: s.id)
    report.known_valid = sorted(scanner.known_valid)
    return report


# The code and libraries whose behaviour decides a verdict: a verdict reached by other code
# is not reused (see rules_fingerprint).
_RULE_MODULES = (config_module, hashing, skillfile, trees, sys.modules[__name__])


@functools.cache
def rules_fingerprint() -> str:
    """An id of the rules this process applies: a SHA-256 over the source of the modules
    that implement them and the versions of the parsers they use ("" if a source cannot be
    read). A publish reuses an earlier verdict only when this is unchanged, so a fix that
    tightens a rule reaches every skill at the next publish. Any edit of those modules, even
    a comment, changes it: the next publish then simply validates everything once.
    """
    digest = hashlib.sha256()
    for module in _RULE_MODULES:
        try:
            source = Path(module.__file__ or "").read_bytes()
        except OSError:
            return ""
        digest.update(f"{module.__name__}\0{len(source)}\0".encode() + source)
    versions = (
        f"python {sys.version_info.major}.{sys.version_info.minor}; yaml {yaml.__version__} "
        f"{skillfile._BaseLoader.__name__}; semver {semver.__version__}"
    )
    digest.update(versions.encode())
    return digest.hexdigest()


def base_skills_from_tree(tree: Tree) -> dict[str, BaseSkill]:
    """The (content_hash, version) of every skill in `tree` that parses, for the version rule.

    A skill counts when its id and version parse and all its files could be read, even if
    it broke some other rule: the rule compares content, and that content was there.
    """
    config, _ = _read_config(tree)
    if config is None:
        scanner = _Scanner(tree, _FALLBACK_SKILLS_DIR, _FALLBACK_LIMITS, None)
    else:
        scanner = _Scanner(tree, config.skills_dir, config.limits, config)
    result: dict[str, BaseSkill] = {}
    for scan in scanner.scan():
        skill_id, version = scan.valid_value("id"), scan.valid_value("version")
        if skill_id is not None and version is not None and scan.content_hash is not None:
            result[skill_id] = BaseSkill(content_hash=scan.content_hash, version=version)
    return result


# --- config -----------------------------------------------------------------------------


def _read_config(tree: Tree) -> tuple[RegistryConfig | None, list[Problem]]:
    raw = tree.read(CONFIG_FILENAME, MAX_CONFIG_BYTES)
    if raw is None:
        for entry in tree.entries(CONFIG_FILENAME):
            if entry.path == CONFIG_FILENAME and entry.kind is not EntryKind.FILE:
                _, what = _KIND_PROBLEMS[entry.kind]
                return None, [
                    Problem(CONFIG_FILENAME, "invalid_config", f"{what}; it must be a regular file")
                ]
        return None, [
            Problem(CONFIG_FILENAME, "missing_config", "missing from the repository root (it is required)")
        ]
    try:
        return parse_config(raw), []
    except ConfigError as exc:
        # The problem's path already names the file; do not repeat it in the message.
        message = str(exc).removeprefix(f"{CONFIG_FILENAME}: ")
        return None, [Problem(CONFIG_FILENAME, "invalid_config", f"invalid config: {message}")]


# --- the scan ---------------------------------------------------------------------------


@dataclass(slots=True)
class _SkillScan:
    """Everything learnt about one directory under skills/, valid or not."""

    dir_name: str
    skill_md_path: str
    problems: list[Problem] = field(default_factory=list)
    parsed: ParsedSkillFile | None = None
    skill_md_size: int = 0
    skill_md_sha256: str = ""
    files: list[ValidatedFile] = field(default_factory=list)
    content_hash: str | None = None  # None when some content could not be read

    def valid_value(self, key: str) -> Any:
        return None if self.parsed is None else self.parsed.valid.get(key)

    def validated(self) -> ValidatedSkill | None:
        if self.problems or self.parsed is None or self.content_hash is None:
            return None
        front = self.parsed.frontmatter
        if front is None or self.parsed.instructions is None:
            return None
        return ValidatedSkill(
            id=front.id,
            name=front.name,
            description=front.description,
            version=front.version,
            tags=front.tags,
            keywords=front.keywords,
            requires=front.requires,
            required_zdr=front.required_zdr,
            instructions=self.parsed.instructions,
            skill_md_source=self.skill_md_path,
            skill_md_size=self.skill_md_size,
            skill_md_sha256=self.skill_md_sha256,
            content_hash=self.content_hash,
            files=tuple(sorted(self.files, key=lambda f: f.path)),
        )


class _Scanner:
    """Walks skills_dir once; every read is bounded by a limit checked beforehand.

    `config` is None only when scanning a base revision with no usable config: then
    the folder, extension and listing rules are not checked, only content is hashed.
    """

    def __init__(self, tree: Tree, skills_dir: str, limits: Limits, config: RegistryConfig | None) -> None:
        self.tree = tree
        self.top = skills_dir
        self.prefix = skills_dir + "/"
        self.limits = limits
        self.config = config
        self.problems: list[Problem] = []  # problems that belong to no single skill
        self.known_valid: list[str] = []  # directories counted but not read (scan's known_valid)
        if config is not None:
            self.file_exts = frozenset(config.allowed_file_extensions)
            self.script_exts = self.file_exts | frozenset(config.allowed_script_extensions)

    def scan(self, known_valid: frozenset[str] = frozenset()) -> list[_SkillScan]:
        """Every skill directory, scanned; those in `known_valid` only counted (self.known_valid)."""
        entries = self._listing(known_valid) if known_valid else self.tree.entries(self.top)
        groups: dict[str, list[tuple[str, TreeEntry]]] = {}
        for entry in entries:
            if entry.path == self.top:
                self.problems.append(
                    Problem(
                        entry.path, "skills_dir_not_directory", "must be a directory of skill directories"
                    )
                )
                continue
            if not entry.path.startswith(self.prefix):
                continue
            dir_name, sep, rel = entry.path[len(self.prefix) :].partition("/")
            if not sep:
                self.problems.append(self._stray(entry))
                continue
            groups.setdefault(dir_name, []).append((rel, entry))
        count = len(groups) + len(self.known_valid)
        if count > self.limits.max_skills:
            self.problems.append(
                Problem(
                    self.top,
                    "too_many_skills",
                    f"holds {count} skills, more than max_skills ({self.limits.max_skills})",
                )
            )
        return [self._scan_skill(name, items) for name, items in sorted(groups.items())]

    def _listing(self, known_valid: frozenset[str]) -> list[TreeEntry]:
        """What tree.entries(top) would list, minus the files inside known-valid directories.

        Those directories are recorded in self.known_valid and never listed. The rest is
        listed directory by directory when there are few (a one-skill change reads one
        directory, not the 40,000 files of 10,000 skills), else in one recursive listing.
        """
        children = self.tree.children(self.top)
        directories = [
            child.path[len(self.prefix) :] for child in children if child.kind is EntryKind.DIRECTORY
        ]
        skip = {name for name in directories if name in known_valid}
        if not skip:
            # Nothing to skip (or the skills dir is no directory at all): the plain listing.
            return self.tree.entries(self.top)
        self.known_valid = sorted(skip)
        to_list = [name for name in directories if name not in skip]
        if len(to_list) > _LIST_EACH_MAX:
            return [
                entry
                for entry in self.tree.entries(self.top)
                if not _inside(entry.path[len(self.prefix) :], skip)
            ]
        # A non-directory child is a stray entry; entries() would list it just the same.
        listed = [child for child in children if child.kind is not EntryKind.DIRECTORY]
        for name in to_list:
            listed.extend(self.tree.entries(f"{self.prefix}{name}/"))
        listed.sort(key=lambda entry: entry.path)
        return listed

    def _stray(self, entry: TreeEntry) -> Problem:
        if entry.kind in _KIND_PROBLEMS:
            code, what = _KIND_PROBLEMS[entry.kind]
            return Problem(entry.path, code, what)
        return Problem(
            entry.path,
            "not_a_skill_directory",
            f"every entry under {self.prefix} must be a skill directory with a SKILL.md",
        )

    def _scan_skill(self, dir_name: str, items: list[tuple[str, TreeEntry]]) -> _SkillScan:
        skill_dir = self.prefix + dir_name
        scan = _SkillScan(dir_name=dir_name, skill_md_path=f"{skill_dir}/{SKILL_MD}")
        limits = self.limits
        skill_md: TreeEntry | None = None
        supporting: list[tuple[str, TreeEntry]] = []
        for rel, entry in items:
            if rel == SKILL_MD:
                skill_md = entry
            else:
                supporting.append((rel, entry))

        skill_md_bytes = self._read_skill_md(scan, skill_md)
        listed = self._listed_files(scan)

        # Skill-wide limits come from the listing, before any supporting file is read;
        # a skill over them is reported without reading its files at all.
        file_total = sum(entry.size for _, entry in supporting if entry.kind is EntryKind.FILE)
        total = file_total + (
            skill_md.size if skill_md is not None and skill_md.kind is EntryKind.FILE else 0
        )
        within_budget = True
        if len(supporting) > limits.max_files_per_skill:
            within_budget = False
            scan.problems.append(
                Problem(
                    scan.skill_md_path,
                    "too_many_files",
                    f"the skill has {len(supporting)} supporting files, "
                    f"more than max_files_per_skill ({limits.max_files_per_skill})",
                )
            )
        if total > limits.max_skill_total_bytes:
            within_budget = False
            scan.problems.append(
                Problem(
                    scan.skill_md_path,
                    "skill_too_large",
                    f"the skill is {total} bytes in all, more than max_skill_total_bytes "
                    f"({limits.max_skill_total_bytes})",
                )
            )

        complete = skill_md_bytes is not None and within_budget
        for rel, entry in supporting:
            path = f"{skill_dir}/{rel}"
            if entry.kind is not EntryKind.FILE:
                code, what = _KIND_PROBLEMS[entry.kind]
                scan.problems.append(Problem(path, code, what))
                continue
            self._check_placement(scan, rel, path, listed)
            if entry.size > limits.max_file_bytes:
                complete = False
                scan.problems.append(self._too_large(path, entry.size))
                continue
            if not within_budget:
                continue
            data = self.tree.read(path, limits.max_file_bytes)
            if data is None:
                # Listed a moment ago, gone now: a work tree edited during the check.
                complete = False
                scan.problems.append(Problem(path, "unreadable_file", "could not be read"))
                continue
            if len(data) > limits.max_file_bytes:
                complete = False
                scan.problems.append(self._too_large(path, len(data)))
                continue
            if self.config is not None:
                problem = text_problem(data)
                if problem is not None:
                    scan.problems.append(Problem(path, problem.code, problem.message))
            scan.files.append(
                ValidatedFile(
                    path=rel,
                    source=path,
                    size=len(data),
                    sha256=sha256_hex(data),
                    media_type=media_type_for(rel),
                    executable=rel.startswith(SCRIPTS_DIR + "/"),
                )
            )

        if listed is not None:
            present = {rel for rel, _ in supporting}
            for rel in listed:
                if rel not in present:
                    scan.problems.append(
                        Problem(
                            scan.skill_md_path,
                            "listed_file_missing",
                            f"files lists {rel!r}, which does not exist in the skill directory",
                        )
                    )

        if complete and skill_md_bytes is not None:
            scan.content_hash = content_hash(skill_md_bytes, ((f.path, f.sha256) for f in scan.files))
        return scan

    def _read_skill_md(self, scan: _SkillScan, entry: TreeEntry | None) -> bytes | None:
        path = scan.skill_md_path
        limit = self.limits.max_skill_md_bytes
        if entry is None:
            scan.problems.append(
                Problem(
                    path,
                    "missing_skill_md",
                    f"missing SKILL.md: every directory under {self.prefix} must be a skill directory",
                )
            )
            return None
        if entry.kind is not EntryKind.FILE:
            code, what = _KIND_PROBLEMS[entry.kind]
            scan.problems.append(Problem(path, code, what))
            return None
        if entry.size > limit:
            scan.problems.append(self._skill_md_too_large(path, entry.size))
            return None
        data = self.tree.read(path, limit)
        if data is None:
            scan.problems.append(Problem(path, "unreadable_file", "could not be read"))
            return None
        if len(data) > limit:
            scan.problems.append(self._skill_md_too_large(path, len(data)))
            return None
        scan.skill_md_size = len(data)
        scan.skill_md_sha256 = sha256_hex(data)
        scan.parsed = parse_skill_file(data)
        if self.config is not None:
            scan.problems.extend(Problem(path, p.code, p.message) for p in scan.parsed.problems)
            skill_id = scan.parsed.valid.get("id")
            if skill_id is not None and skill_id != scan.dir_name:
                scan.problems.append(
                    Problem(
                        path,
                        "id_mismatch",
                        f"id {skill_id!r} must equal the directory name {scan.dir_name!r}",
                    )
                )
        return data

    def _listed_files(self, scan: _SkillScan) -> frozenset[str] | None:
        """The `files` allowlist, or None when it is unknown (SKILL.md unusable)."""
        if self.config is None or scan.parsed is None:
            return None
        listed = scan.parsed.valid.get("files")
        return None if listed is None else frozenset(listed)

    def _check_placement(self, scan: _SkillScan, rel: str, path: str, listed: frozenset[str] | None) -> None:
        """Path shape, folder, extension and listing of one supporting file."""
        if self.config is None:
            return
        why = path_problem(rel)
        if why is not None:
            scan.problems.append(Problem(path, "invalid_path", f"the path {why}"))
        folder, sep, _ = rel.partition("/")
        if not sep or folder not in SUPPORT_DIRS:
            scan.problems.append(
                Problem(
                    path,
                    "disallowed_location",
                    "supporting files must live under references/, templates/ or scripts/",
                )
            )
        allowed = self.script_exts if folder == SCRIPTS_DIR else self.file_exts
        ext = posixpath.splitext(rel)[1].lower()
        if ext not in allowed:
            scan.problems.append(
                Problem(
                    path,
                    "disallowed_extension",
                    f"extension {ext or '(none)'} is not allowed here "
                    f"(allowed: {', '.join(sorted(allowed))})",
                )
            )
        if listed is not None and rel not in listed:
            scan.problems.append(Problem(path, "unlisted_file", "is not listed in the files of SKILL.md"))

    def _too_large(self, path: str, size: int) -> Problem:
        return Problem(
            path,
            "file_too_large",
            f"is {size} bytes, more than max_file_bytes ({self.limits.max_file_bytes})",
        )

    def _skill_md_too_large(self, path: str, size: int) -> Problem:
        return Problem(
            path,
            "skill_md_too_large",
            f"is {size} bytes, more than max_skill_md_bytes ({self.limits.max_skill_md_bytes})",
        )


# --- the version rule -------------------------------------------------------------------


def _version_rule(scan: _SkillScan, base: Mapping[str, BaseSkill]) -> list[Problem]:
    """Changed content needs a greater version; a lower one is always an error (SPEC §2)."""
    skill_id, version = scan.valid_value("id"), scan.valid_value("version")
    if skill_id is None or version is None or scan.content_hash is None:
        return []
    prior = base.get(skill_id)
    if prior is None or prior.content_hash == scan.content_hash:
        return []  # a new skill, or unchanged content
    old, new = parse_version(prior.version), parse_version(version)
    if old is None or new is None:
        return []
    order = new.compare(old)
    if order < 0:
        return [
            Problem(
                scan.skill_md_path,
                "version_decreased",
                f"version {version} is lower than {prior.version} in the base revision; "
                "versions never decrease",
            )
        ]
    if order == 0:
        return [
            Problem(
                scan.skill_md_path,
                "version_not_bumped",
                f"content changed since the base revision but version {version} is not greater than "
                f"{prior.version}; bump it (e.g. to {old.bump_patch()})",
            )
        ]
    return []
