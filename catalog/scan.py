"""Read one skill directory found by catalog.discovery, with every read bounded by a limit
checked beforehand (docs/reference.md#limits), and decide what its content hash covers.

The rules themselves are catalog.rules; this decides what is read, in which order: the
registry dialect's files are its allowlist, the open dialect's directory is, and what
the open dialect cannot serve is omitted rather than refused.
"""

from dataclasses import dataclass, field
from typing import Any

from catalog.discovery import SkillDir
from catalog.hashing import content_hash, sha256_hex
from catalog.report import OmittedFile, Problem, ValidatedFile, ValidatedSkill
from catalog.rules import OPEN_LISTING_FACTOR, Rules, content_problem, kind_problem, unreadable
from catalog.skill import Dialect
from catalog.skillfile import SKILL_MD, ParsedSkillFile, parse_skill_file
from catalog.trees import EntryKind, Tree, TreeEntry

# A skill's supporting entries: (path inside the skill, entry).
Listing = list[tuple[str, TreeEntry]]


@dataclass(slots=True)
class SkillScan:
    """Everything learnt about one skill directory, valid or not."""

    path: str  # the skill directory, relative to the repository root
    skill_md_path: str
    problems: list[Problem] = field(default_factory=list)
    parsed: ParsedSkillFile | None = None
    skill_md_size: int = 0
    skill_md_sha256: str = ""
    files: list[ValidatedFile] = field(default_factory=list)
    omitted: list[OmittedFile] = field(default_factory=list)
    content_hash: str | None = None  # None when some content could not be read

    def valid_value(self, key: str, default: Any = None) -> Any:
        return default if self.parsed is None else self.parsed.valid.get(key, default)

    def has(self, key: str) -> bool:
        return self.parsed is not None and key in self.parsed.valid

    def validated(self) -> ValidatedSkill | None:
        if any(problem.is_error for problem in self.problems) or self.content_hash is None:
            return None
        parsed = self.parsed
        if parsed is None or parsed.metadata is None or parsed.instructions is None:
            return None
        assert parsed.dialect is not None and parsed.frontmatter is not None
        return ValidatedSkill(
            metadata=parsed.metadata,
            dialect=parsed.dialect,
            frontmatter=parsed.frontmatter,
            instructions=parsed.instructions,
            skill_md_source=self.skill_md_path,
            skill_md_size=self.skill_md_size,
            skill_md_sha256=self.skill_md_sha256,
            content_hash=self.content_hash,
            files=tuple(sorted(self.files, key=lambda f: f.path)),
            omitted=tuple(sorted(self.omitted, key=lambda f: f.path)),
        )


def scan_skill(tree: Tree, skill_dir: SkillDir, rules: Rules) -> SkillScan:
    """Read and check one skill directory. Nothing is read past a limit: the skill-wide
    limits come from the listing, so a skill over them has none of its files read."""
    scan = SkillScan(skill_dir.path, f"{skill_dir.path}/{SKILL_MD}", list(skill_dir.problems))
    skill_md: TreeEntry | None = None
    supporting: Listing = []
    for rel, entry in skill_dir.entries:
        if rel == SKILL_MD:
            skill_md = entry
        elif rel.rpartition("/")[2] != SKILL_MD:  # a nested SKILL.md: discovery reported it
            supporting.append((rel, entry))

    skill_md_bytes = _read_skill_md(tree, scan, skill_md, skill_dir.name, rules)
    dialect = scan.parsed.dialect if scan.parsed is not None else None
    # More entries than the skill may hold: that one problem, and no entry looked at, so
    # 100,001 files are one line, not 100,001 (the open dialect, which omits what it cannot
    # serve, at OPEN_LISTING_FACTOR times max_files_per_skill).
    factor = 1 if dialect is Dialect.REGISTRY else OPEN_LISTING_FACTOR
    too_many = rules.too_many_files(scan.skill_md_path, len(supporting), factor)
    if too_many is not None:
        scan.problems.append(too_many)
        return scan
    if dialect is Dialect.REGISTRY:
        complete = _registry_files(tree, scan, supporting, _listed_size(skill_md), rules)
    elif dialect is Dialect.OPEN:
        complete = _open_files(tree, scan, supporting, _listed_size(skill_md), rules)
    else:
        # Without a frontmatter there is no telling which dialect's file rules apply:
        # only the rules of both, and no file is read.
        complete = False
        for rel, entry in supporting:
            _common_problem(scan, rel, entry, rules)
    if complete and skill_md_bytes is not None:
        scan.content_hash = content_hash(skill_md_bytes, ((f.path, f.sha256) for f in scan.files))
    return scan


def _read_skill_md(
    tree: Tree, scan: SkillScan, entry: TreeEntry | None, dir_name: str, rules: Rules
) -> bytes | None:
    path = scan.skill_md_path
    if entry is None:
        scan.problems.append(rules.missing_skill_md(path))
        return None
    if entry.kind is not EntryKind.FILE:
        scan.problems.append(kind_problem(path, entry.kind))
        return None
    data = _read_bounded(tree, path, entry.size, rules.limits.max_skill_md_bytes)
    if not isinstance(data, bytes):
        scan.problems.append(unreadable(path) if data is None else rules.skill_md_too_large(path, data))
        return None
    scan.skill_md_size = len(data)
    scan.skill_md_sha256 = sha256_hex(data)
    scan.parsed = parse_skill_file(data, scan.path, rules.limits.max_files_per_skill)
    scan.problems.extend(rules.skill_md_problems(path, scan.parsed, dir_name))
    return data


def _common_problem(scan: SkillScan, rel: str, entry: TreeEntry, rules: Rules) -> bool:
    """The rules of both dialects for one entry; True when it broke one (it is not read)."""
    path = f"{scan.path}/{rel}"
    problem = rules.unsafe_name(rel, path)
    if problem is None and entry.kind is not EntryKind.FILE:
        problem = kind_problem(path, entry.kind)
    if problem is None:
        return False
    scan.problems.append(problem)
    return True


def _listed_size(skill_md: TreeEntry | None) -> int:
    """SKILL.md's size as the listing gives it (0 for none, or for one that is not a file)."""
    return skill_md.size if skill_md is not None and skill_md.kind is EntryKind.FILE else 0


def _sizes(listed_md: int, files: Listing) -> int:
    return listed_md + sum(entry.size for _, entry in files if entry.kind is EntryKind.FILE)


def _registry_files(tree: Tree, scan: SkillScan, supporting: Listing, listed_md: int, rules: Rules) -> bool:
    """`files` is the allowlist; every entry is a supporting file and must pass."""
    limits = rules.limits
    listed = rules.listed_files(scan.parsed)
    over_budget = rules.budget_problems(scan.skill_md_path, len(supporting), _sizes(listed_md, supporting))
    scan.problems.extend(over_budget)
    complete = scan.parsed is not None and not over_budget
    for rel, entry in supporting:
        path = f"{scan.path}/{rel}"
        if _common_problem(scan, rel, entry, rules):
            complete = False
            continue
        scan.problems.extend(rules.placement_problems(rel, path, listed))
        if entry.size > limits.max_file_bytes:
            complete = False
            scan.problems.append(rules.file_too_large(path, entry.size))
            continue
        if over_budget:
            continue
        data = _read_file(tree, scan, path, entry, rules)
        if data is None:
            complete = False
            continue
        problem = content_problem(path, data)
        if problem is not None:
            scan.problems.append(problem)
        scan.files.append(rules.validated_file(rel, path, data))
    if listed is not None:
        present = {rel for rel, _ in supporting}
        scan.problems.extend(rules.missing_listed_files(scan.skill_md_path, listed, present))
    return complete


def _open_files(tree: Tree, scan: SkillScan, supporting: Listing, listed_md: int, rules: Rules) -> bool:
    """The directory is the allowlist: each text file is served, the rest omitted."""
    candidates: Listing = []
    complete = True
    for rel, entry in supporting:
        path = f"{scan.path}/{rel}"
        problem = _common_problem(scan, rel, entry, rules)
        malformed = None if problem else rules.malformed_path(rel, path)
        if problem or malformed is not None:
            if malformed is not None:
                scan.problems.append(malformed)
            complete = False
            continue
        if not _omitted(scan, path, rules.omitted_by_listing(rel, entry), rules):
            candidates.append((rel, entry))
    # Before reading: bounded at OPEN_LISTING_FACTOR times the limits, as every candidate
    # is read to tell text from binary.
    over = rules.budget_problems(
        scan.skill_md_path, len(candidates), _sizes(listed_md, candidates), factor=OPEN_LISTING_FACTOR
    )
    if over:
        scan.problems.extend(over)
        return False
    for rel, entry in candidates:
        path = f"{scan.path}/{rel}"
        data = _read_file(tree, scan, path, entry, rules)
        if data is None:
            complete = False
            continue
        if not _omitted(scan, path, rules.omitted_by_content(rel, data), rules):
            scan.files.append(rules.validated_file(rel, path, data))
    served = sum(f.size for f in scan.files) + scan.skill_md_size
    over = rules.budget_problems(scan.skill_md_path, len(scan.files), served, served="served ")
    scan.problems.extend(over)
    return complete and not over


def _omitted(scan: SkillScan, path: str, omitted: OmittedFile | None, rules: Rules) -> bool:
    """Records a file the open dialect leaves out, with its warning; False when it is kept."""
    if omitted is None:
        return False
    scan.omitted.append(omitted)
    scan.problems.append(rules.omitted_warning(path, omitted))
    return True


def _read_file(tree: Tree, scan: SkillScan, path: str, entry: TreeEntry, rules: Rules) -> bytes | None:
    """A supporting file's bytes, or None with the problem that says why not (recorded)."""
    data = _read_bounded(tree, path, entry.size, rules.limits.max_file_bytes)
    if isinstance(data, bytes):
        return data
    scan.problems.append(unreadable(path) if data is None else rules.file_too_large(path, data))
    return None


def _read_bounded(tree: Tree, path: str, listed_size: int, limit: int) -> bytes | int | None:
    """The bytes of the file at `path`; its size instead when that is over `limit` (known
    from the listing first, so such a file is never read, and checked again on what was
    read, in case it grew since); None when it could not be read."""
    if listed_size > limit:
        return listed_size
    data = tree.read(path, limit)
    if data is None:
        return None
    return len(data) if len(data) > limit else data
