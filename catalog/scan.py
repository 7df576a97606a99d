"""Walk a tree: find the skill directories under skills_dir, group their entries, and read
each skill with every read bounded by a limit checked beforehand (docs/reference.md#limits).

The rules themselves are catalog.rules; this decides what is read, in which order, and
what a skill's content hash covers.
"""

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from catalog.hashing import content_hash, sha256_hex
from catalog.report import Problem, ValidatedFile, ValidatedSkill
from catalog.rules import Rules, content_problem, kind_problem, unreadable
from catalog.skillfile import SKILL_MD, ParsedSkillFile, parse_skill_file
from catalog.trees import EntryKind, Tree, TreeEntry

# Above this many directories to read, one recursive listing beats one listing each.
_LIST_EACH_MAX = 64


@dataclass(frozen=True, slots=True)
class SkillDir:
    """One directory under skills_dir, as listed."""

    name: str
    entries: list[tuple[str, TreeEntry]]  # (path relative to the skill directory, entry)


@dataclass(slots=True)
class TreeListing:
    skill_dirs: list[SkillDir]  # sorted by name
    problems: list[Problem]  # those that belong to no single skill
    known_valid: list[str]  # directories counted but never listed (list_skills' known_valid)


@dataclass(slots=True)
class SkillScan:
    """Everything learnt about one directory under skills_dir, valid or not."""

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


# --- the tree ----------------------------------------------------------------------------


def list_skills(tree: Tree, rules: Rules, known_valid: Collection[str] = ()) -> TreeListing:
    """Every directory under skills_dir with its entries, and the tree-wide problems.

    Directories named in `known_valid` are counted (max_skills sees them) but never listed.
    """
    skip: list[str] = []
    if known_valid:
        entries, skip = _listing(tree, rules, frozenset(known_valid))
    else:
        entries = tree.entries(rules.top)
    problems: list[Problem] = []
    groups: dict[str, list[tuple[str, TreeEntry]]] = {}
    for entry in entries:
        if entry.path == rules.top:
            problems.append(rules.skills_dir_not_directory())
            continue
        if not entry.path.startswith(rules.prefix):
            continue
        dir_name, sep, rel = entry.path[len(rules.prefix) :].partition("/")
        if not sep:
            problems.append(rules.stray_entry(entry))
            continue
        groups.setdefault(dir_name, []).append((rel, entry))
    too_many = rules.skill_count_problem(len(groups) + len(skip))
    if too_many is not None:
        problems.append(too_many)
    skill_dirs = [SkillDir(name, items) for name, items in sorted(groups.items())]
    return TreeListing(skill_dirs, problems, skip)


def _listing(tree: Tree, rules: Rules, known_valid: frozenset[str]) -> tuple[list[TreeEntry], list[str]]:
    """What tree.entries(skills_dir) would list minus the files inside known-valid
    directories, and those directories (sorted).

    The rest is listed directory by directory when there are few (a one-skill change reads
    one directory, not the 40,000 files of 10,000 skills), else in one recursive listing.
    """
    prefix = rules.prefix
    children = tree.children(rules.top)
    directories = [child.path[len(prefix) :] for child in children if child.kind is EntryKind.DIRECTORY]
    skip = {name for name in directories if name in known_valid}
    if not skip:
        # Nothing to skip (or the skills dir is no directory at all): the plain listing.
        return tree.entries(rules.top), []
    to_list = [name for name in directories if name not in skip]
    if len(to_list) > _LIST_EACH_MAX:
        listed = [entry for entry in tree.entries(rules.top) if not _inside(entry.path[len(prefix) :], skip)]
        return listed, sorted(skip)
    # A non-directory child is a stray entry; entries() would list it just the same.
    listed = [child for child in children if child.kind is not EntryKind.DIRECTORY]
    for name in to_list:
        listed.extend(tree.entries(f"{prefix}{name}/"))
    listed.sort(key=lambda entry: entry.path)
    return listed, sorted(skip)


def _inside(rel: str, directories: Collection[str]) -> bool:
    """Whether `rel` (relative to the skills dir) lies inside one of `directories`."""
    name, sep, _ = rel.partition("/")
    return bool(sep) and name in directories


# --- one skill ---------------------------------------------------------------------------


def scan_skill(tree: Tree, skill_dir: SkillDir, rules: Rules) -> SkillScan:
    """Read and check one skill directory. Nothing is read past a limit: the skill-wide
    limits come from the listing, so a skill over them has none of its files read."""
    base = rules.prefix + skill_dir.name
    scan = SkillScan(dir_name=skill_dir.name, skill_md_path=f"{base}/{SKILL_MD}")
    limits = rules.limits
    skill_md: TreeEntry | None = None
    supporting: list[tuple[str, TreeEntry]] = []
    for rel, entry in skill_dir.entries:
        if rel == SKILL_MD:
            skill_md = entry
        else:
            supporting.append((rel, entry))

    skill_md_bytes = _read_skill_md(tree, scan, skill_md, rules)
    listed = rules.listed_files(scan.parsed)

    total = sum(entry.size for _, entry in supporting if entry.kind is EntryKind.FILE)
    if skill_md is not None and skill_md.kind is EntryKind.FILE:
        total += skill_md.size
    over_budget = rules.budget_problems(scan.skill_md_path, len(supporting), total)
    scan.problems.extend(over_budget)

    complete = skill_md_bytes is not None and not over_budget
    for rel, entry in supporting:
        path = f"{base}/{rel}"
        if entry.kind is not EntryKind.FILE:
            scan.problems.append(kind_problem(path, entry.kind))
            continue
        scan.problems.extend(rules.placement_problems(rel, path, listed))
        if entry.size > limits.max_file_bytes:
            complete = False
            scan.problems.append(rules.file_too_large(path, entry.size))
            continue
        if over_budget:
            continue
        data = _read_bounded(tree, path, entry.size, limits.max_file_bytes)
        if not isinstance(data, bytes):
            complete = False
            scan.problems.append(unreadable(path) if data is None else rules.file_too_large(path, data))
            continue
        problem = content_problem(path, data)
        if problem is not None:
            scan.problems.append(problem)
        scan.files.append(rules.validated_file(rel, path, data))

    if listed is not None:
        present = {rel for rel, _ in supporting}
        scan.problems.extend(rules.missing_listed_files(scan.skill_md_path, listed, present))

    if complete and skill_md_bytes is not None:
        scan.content_hash = content_hash(skill_md_bytes, ((f.path, f.sha256) for f in scan.files))
    return scan


def _read_skill_md(tree: Tree, scan: SkillScan, entry: TreeEntry | None, rules: Rules) -> bytes | None:
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
    scan.parsed = parse_skill_file(data)
    scan.problems.extend(rules.skill_md_problems(path, scan.parsed, scan.dir_name))
    return data


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
