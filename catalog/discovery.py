"""Which directories of a tree are skills (docs/reference.md#skill-format, both dialects).

Every directory under skills_dir, at most MAX_SKILL_DEPTH folders down, that holds a
SKILL.md is a skill; a folder without one is a category that groups skills (dot-named
ones such as `.curated` included). Everything below a skill's directory belongs to it,
and a SKILL.md further down is an error. What lies outside every skill (a README, plugin
manifests, archives, symlinks) is never served, never followed, and reported as a warning.
A skill's id is its directory's name: two skills with the same id are both refused.
"""

import posixpath
from collections import defaultdict
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field

from catalog.registry_dialect import SKILL_MD
from catalog.report import WARNING, Problem
from catalog.rules import Rules
from catalog.trees import EntryKind, Tree, TreeEntry

MAX_SKILL_DEPTH = 4
# Above this many directories to read, one recursive listing beats one listing each.
_LIST_EACH_MAX = 64


@dataclass(slots=True)
class SkillDir:
    """One skill directory, as listed."""

    path: str  # relative to the repository root, e.g. "skills/.curated/pdf"
    entries: list[tuple[str, TreeEntry]] = field(default_factory=list)  # (relative to path, entry)
    problems: list[Problem] = field(default_factory=list)  # what discovery found wrong with it

    @property
    def name(self) -> str:
        """The directory's name: the skill's id."""
        return posixpath.basename(self.path)


@dataclass(slots=True)
class TreeListing:
    skill_dirs: list[SkillDir]  # sorted by path
    problems: list[Problem]  # those that belong to no single skill
    known_valid: list[str]  # skill directories counted but never listed (list_skills' known_valid)


def list_skills(tree: Tree, rules: Rules, known_valid: Collection[str] = ()) -> TreeListing:
    """Every skill directory under skills_dir with its entries, and the tree-wide problems.

    Skill directories (repository-relative) named in `known_valid` are counted and take
    part in the tree-wide rules but are never listed. If one of them is no longer a skill
    of its own (a SKILL.md above it, an id clash), the tree is listed whole instead.
    """
    wanted = frozenset(known_valid)
    entries, skipped = _listing(tree, rules, wanted) if wanted else (tree.entries(rules.top), [])
    listing = _discover(entries, skipped, rules)
    if listing is None:
        return list_skills(tree, rules)
    return listing


# --- listing ---------------------------------------------------------------------------


def _listing(tree: Tree, rules: Rules, known_valid: frozenset[str]) -> tuple[list[TreeEntry], list[str]]:
    """What tree.entries(skills_dir) would list minus the entries inside known-valid skill
    directories, and those directories (sorted).

    Categories that hold a known-valid skill are walked one level at a time; any other
    directory is listed whole, one listing each when there are few (a one-skill change
    reads one directory, not the 40,000 files of 10,000 skills), else in one recursive
    listing of skills_dir.
    """
    above: set[str] = set()  # the directories that hold a known-valid skill, skills_dir included
    for path in known_valid:
        directory = posixpath.dirname(path)
        while directory == rules.top or directory.startswith(rules.prefix):
            above.add(directory)
            directory = posixpath.dirname(directory)
    if rules.top not in above:
        return tree.entries(rules.top), []
    listed: list[TreeEntry] = []
    skipped: list[str] = []
    whole: list[str] = []
    walk = [rules.top]
    while walk:
        directory = walk.pop()
        for child in tree.children(directory):
            if child.kind is not EntryKind.DIRECTORY:
                listed.append(child)
            elif child.path in known_valid:
                skipped.append(child.path)
            elif child.path in above:
                walk.append(child.path)
            else:
                whole.append(child.path)
    if not skipped:
        # Nothing to skip (or skills_dir is no directory at all): the plain listing.
        return tree.entries(rules.top), []
    if len(whole) > _LIST_EACH_MAX:
        inside = tuple(path + "/" for path in skipped)
        everything = tree.entries(rules.top)
        return [entry for entry in everything if not entry.path.startswith(inside)], sorted(skipped)
    for directory in whole:
        listed.extend(tree.entries(directory + "/"))
    listed.sort(key=lambda entry: entry.path)
    return listed, sorted(skipped)


# --- discovery --------------------------------------------------------------------------


def _discover(entries: list[TreeEntry], skipped: list[str], rules: Rules) -> TreeListing | None:
    """The skills among `entries` (and the known-valid `skipped` directories); None when a
    skipped directory turns out not to be a skill of its own."""
    problems: list[Problem] = []
    files: list[TreeEntry] = []
    for entry in entries:
        if entry.path == rules.top:
            problems.append(rules.skills_dir_not_directory())
        elif entry.path.startswith(rules.prefix):
            files.append(entry)

    candidates = sorted({posixpath.dirname(e.path) for e in files if _is_skill_md(e.path)} | set(skipped))
    skills: dict[str, SkillDir] = {}
    refused: list[str] = []  # too deep: named by their own error, not again as strays
    for directory in candidates:
        if directory == rules.top:
            continue  # a SKILL.md directly in skills_dir: a stray entry, reported below
        outer = _enclosing(directory, skills)
        if outer is not None:
            if directory in skipped:
                return None
            outer.problems.append(_nested_skill(directory, outer.path))
        elif _depth(directory, rules) > MAX_SKILL_DEPTH:
            problems.append(_too_deep(directory, rules))
            refused.append(directory + "/")
        else:
            skills[directory] = SkillDir(directory)

    too_many = rules.skill_count_problem(len(skills))
    if too_many is not None:
        # Refused whole before any skill is read or any entry assigned to one: 100,000
        # directories cost one listing, not 100,000 SKILL.md parses (docs/reference.md#limits).
        return TreeListing([], [*problems, too_many], sorted(skipped))

    strays: list[TreeEntry] = []
    for entry in files:
        owner = _enclosing(posixpath.dirname(entry.path), skills, inclusive=True)
        if owner is None:
            if not entry.path.startswith(tuple(refused)):
                strays.append(entry)
        else:
            owner.entries.append((entry.path[len(owner.path) + 1 :], entry))

    by_id: dict[str, list[SkillDir]] = defaultdict(list)
    for skill in skills.values():
        by_id[skill.name].append(skill)
    for same in by_id.values():
        if len(same) > 1:
            if any(skill.path in skipped for skill in same):
                return None
            for skill in same:
                skill.problems.append(_duplicate_id(skill, same))

    problems.extend(_stray_problems(strays, skills, rules))
    kept = set(skipped)
    return TreeListing(
        [skill for path, skill in sorted(skills.items()) if path not in kept], problems, sorted(kept)
    )


def _is_skill_md(path: str) -> bool:
    return posixpath.basename(path) == SKILL_MD


def _depth(directory: str, rules: Rules) -> int:
    return directory[len(rules.prefix) :].count("/") + 1


def _ancestors(path: str) -> Iterable[str]:
    """`path`'s ancestor directories, shallowest first ("a/b/c" -> "a", "a/b")."""
    parts = path.split("/")
    return ("/".join(parts[:n]) for n in range(1, len(parts)))


def _enclosing(directory: str, skills: dict[str, SkillDir], inclusive: bool = False) -> SkillDir | None:
    """The skill whose directory holds `directory` (or is it, when `inclusive`)."""
    for ancestor in _ancestors(directory):
        if ancestor in skills:
            return skills[ancestor]
    return skills.get(directory) if inclusive else None


# --- what discovery reports ---------------------------------------------------------------


def _nested_skill(directory: str, outer: str) -> Problem:
    return Problem(
        f"{directory}/{SKILL_MD}",
        "nested_skill",
        f"a SKILL.md inside the skill at {outer}: a skill cannot hold another one "
        "(move this folder out of it, or rename this file)",
    )


def _too_deep(directory: str, rules: Rules) -> Problem:
    return Problem(
        f"{directory}/{SKILL_MD}",
        "skill_too_deep",
        f"is {_depth(directory, rules)} folders below {rules.prefix}; a skill directory may be at most "
        f"{MAX_SKILL_DEPTH} folders down (move it up, or set skills_dir closer to it)",
    )


def _duplicate_id(skill: SkillDir, same: list[SkillDir]) -> Problem:
    others = ", ".join(other.path for other in same if other is not skill)
    return Problem(
        f"{skill.path}/{SKILL_MD}",
        "duplicate_id",
        f"id {skill.name!r} is used by the skills at {skill.path} and {others}; ids are unique across "
        "the repository, so both are refused (rename one of the directories)",
    )


def _stray_problems(strays: list[TreeEntry], skills: dict[str, SkillDir], rules: Rules) -> list[Problem]:
    """One warning per stray file directly in skills_dir or a category, and one per folder
    that holds no skill at all (its files together); an error for a misnamed SKILL.md."""
    categories = {ancestor for path in skills for ancestor in _ancestors(path)}
    misnamed = {
        posixpath.dirname(entry.path)
        for entry in strays
        if posixpath.basename(entry.path).lower() == SKILL_MD.lower() and not _is_skill_md(entry.path)
    }
    problems: list[Problem] = []
    folders: dict[str, int] = defaultdict(int)
    for entry in strays:
        directory = posixpath.dirname(entry.path)
        if directory in misnamed:
            if posixpath.basename(entry.path).lower() == SKILL_MD.lower():
                problems.append(_misnamed_skill_md(entry.path))
            continue
        folder = next(
            (
                path
                for path in _ancestors(entry.path)
                if path.startswith(rules.prefix) and path not in categories
            ),
            None,
        )
        if folder is None:
            problems.append(_stray_entry(entry))
        else:
            folders[folder] += 1
    for folder, count in sorted(folders.items()):
        if not any(folder == path or folder.startswith(path + "/") for path in misnamed):
            problems.append(_stray_folder(folder, count))
    return problems


def _misnamed_skill_md(path: str) -> Problem:
    found = posixpath.basename(path)
    return Problem(
        path,
        "missing_skill_md",
        f"found {found}; rename it to SKILL.md (in capitals) to make this folder a skill",
    )


def _stray_entry(entry: TreeEntry) -> Problem:
    what = {
        EntryKind.SYMLINK: "a symlink outside every skill: never followed",
        EntryKind.SUBMODULE: "a submodule outside every skill: never read",
        EntryKind.OTHER: "a special file outside every skill: never read",
    }.get(entry.kind, "a file outside every skill")
    return Problem(entry.path, "stray_entry", f"{what}, not served", WARNING)


def _stray_folder(folder: str, count: int) -> Problem:
    files = f"{count} entr{'y' if count == 1 else 'ies'}"
    return Problem(
        folder,
        "stray_entry",
        f"a folder outside every skill (no SKILL.md in it or above it; {files}): not served",
        WARNING,
    )
