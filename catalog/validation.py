"""validate_tree(): every rule over a Tree (docs/reference.md#validation), every problem at
once rather than the first; the version rule against a base revision; the base skills of a
revision; and check_skills' run over a working tree.

`known_valid` (publish only; check_skills never passes it) names skill directories
(repository-relative) the caller vouches for: they are counted and listed for the tree-wide
rules but never read, parsed or hashed, and end up in `report.known_valid` instead of
`report.skills`. The caller must be able to prove, for each of them, that
  - the directory is identical (names, modes, bytes) to one that passed validate_tree
    with no problem,
  - under the same registry.config.json bytes,
  - under the same rules (catalog.fingerprint.rules_fingerprint() unchanged), and
  - with the content hash of base[id], so the version rule has nothing to say.
Then a full validation would find nothing in it either. catalog.reuse proves it with git
tree ids against the active snapshot's commit; anything less is a weakened rule.

Problem codes (stable; check_skills --format json prints them):
  registry.config.json   invalid_config
  skills/                skills_dir_not_directory, too_many_skills, skill_too_deep,
                         missing_skill_md
  skills/<id>/SKILL.md   skill_md_too_large, not_utf8, binary_content, missing_skill_md,
                         missing_frontmatter, unterminated_frontmatter, invalid_yaml, duplicate_key,
                         frontmatter_not_mapping, frontmatter_too_large, unknown_key, missing_key,
                         invalid_type, unsupported_schema_version, invalid_id, id_mismatch,
                         invalid_name, invalid_description, invalid_version, invalid_tag,
                         duplicate_tag, invalid_keyword, too_many_items, item_too_long,
                         duplicate_item, invalid_path, duplicate_path,
                         invalid_required_zdr, invalid_compatibility, conflicting_keys,
                         empty_body, listed_file_missing, too_many_files, skill_too_large,
                         nested_skill, duplicate_id, version_not_bumped, version_decreased,
                         version_removed, symlink, submodule, not_regular_file
  skills/<id>/<file>     symlink, submodule, not_regular_file, invalid_path, unsafe_file_name,
                         disallowed_location, disallowed_extension, unlisted_file, file_too_large,
                         not_utf8, binary_content, unreadable_file
  warnings (any path)    stray_entry, vendor_key, metadata_not_string,
                         unversioned_metadata_version, omitted_file, not_native_name
"""

import dataclasses
import os
from collections.abc import Collection, Mapping

from catalog.config import (
    CEILING_LIMITS,
    CONFIG_FILENAME,
    DEFAULTS,
    MAX_CONFIG_BYTES,
    ConfigError,
    RegistryConfig,
    parse_config,
)
from catalog.discovery import list_skills
from catalog.fields import parse_version
from catalog.report import BaseSkill, Problem, ValidationReport
from catalog.rules import KIND_PROBLEMS, Rules
from catalog.scan import SkillScan, scan_skill
from catalog.trees import EntryKind, GitTree, Tree, WorkingTree, open_repo, resolve_commit

# A base revision whose own config is invalid is still read, under this one: its skills
# still get a content hash, so the version rule is not silently skipped. Only skills_dir
# and the limits matter (they bound what is read and hashed): the ceilings, the most any
# config could allow. The problems found under it are never reported.
_BASE_FALLBACK_CONFIG = dataclasses.replace(DEFAULTS, limits=CEILING_LIMITS)


def validate_tree(
    tree: Tree, base: Mapping[str, BaseSkill] | None = None, known_valid: Collection[str] = ()
) -> ValidationReport:
    """Validate every skill of `tree` (and the version rule against `base`, if given).

    Skill directories named in `known_valid` are taken as valid without being read: see
    the module docstring for what the caller must prove first. Tree-wide rules still see them.
    """
    config, config_problems = read_config(tree)
    report = ValidationReport(config=config, problems=config_problems)
    if config is None:
        # Without the config there are no limits, extensions or skills_dir to check against.
        return report
    rules = Rules(config)
    listing = list_skills(tree, rules, known_valid)
    for skill_dir in listing.skill_dirs:
        scan = scan_skill(tree, skill_dir, rules)
        if base is not None:
            scan.problems.extend(version_rule(scan, base))
        report.problems.extend(scan.problems)
        skill = scan.validated()
        if skill is not None:
            report.skills.append(skill)
    report.problems.extend(listing.problems)
    report.problems.sort(key=lambda p: (p.path, p.message, p.code))
    report.skills.sort(key=lambda s: s.metadata.id)
    report.known_valid = listing.known_valid
    return report


def base_skills_from_tree(tree: Tree) -> dict[str, BaseSkill]:
    """The (content_hash, version) of every skill in `tree` that parses, for the version rule.

    A skill counts when its id and version parse (an open-dialect skill without a version
    counts, as None) and all its files could be read, even if it broke some other rule: the
    rule compares content, and that content was there.
    """
    config, _ = read_config(tree)
    rules = Rules(config or _BASE_FALLBACK_CONFIG)
    result: dict[str, BaseSkill] = {}
    for skill_dir in list_skills(tree, rules).skill_dirs:
        scan = scan_skill(tree, skill_dir, rules)
        skill_id = scan.valid_value("id")
        if skill_id is not None and scan.has("version") and scan.content_hash is not None:
            result[skill_id] = BaseSkill(content_hash=scan.content_hash, version=scan.valid_value("version"))
    return result


def check_working_tree(repo_path: str | os.PathLike[str], base_rev: str | None = None) -> ValidationReport:
    """check_skills: the working tree at `repo_path` (uncommitted edits included), with the
    version rule against revision `base_rev` when given. TreeError if either cannot be read."""
    tree = WorkingTree(repo_path)
    base = None
    if base_rev is not None:
        repo = open_repo(repo_path)
        try:
            with GitTree(repo, resolve_commit(repo, base_rev)) as base_tree:
                base = base_skills_from_tree(base_tree)
        finally:
            repo.close()
    return validate_tree(tree, base)


def read_config(tree: Tree) -> tuple[RegistryConfig | None, list[Problem]]:
    """The tree's registry.config.json, DEFAULTS when it has none, or None and the
    problem that says why not (docs/reference.md#registryconfigjson)."""
    kind = config_entry_kind(tree)
    if kind is None:
        return DEFAULTS, []
    if kind is not EntryKind.FILE:
        what = "is a directory" if kind is EntryKind.DIRECTORY else KIND_PROBLEMS[kind][1]
        return None, [Problem(CONFIG_FILENAME, "invalid_config", f"{what}; it must be a regular file")]
    raw = tree.read(CONFIG_FILENAME, MAX_CONFIG_BYTES)
    if raw is None:  # listed a moment ago, gone now: a work tree edited during the check
        return None, [Problem(CONFIG_FILENAME, "invalid_config", "could not be read")]
    try:
        return parse_config(raw), []
    except ConfigError as exc:
        # The problem's path already names the file; do not repeat it in the message.
        message = str(exc).removeprefix(f"{CONFIG_FILENAME}: ")
        return None, [Problem(CONFIG_FILENAME, "invalid_config", f"invalid config: {message}")]


def config_entry_kind(tree: Tree) -> EntryKind | None:
    """What the tree holds at registry.config.json (DIRECTORY for a folder of that name),
    or None when nothing: then the built-in defaults govern it."""
    for entry in tree.entries(CONFIG_FILENAME):
        if entry.path == CONFIG_FILENAME:
            return entry.kind
        if entry.path.startswith(CONFIG_FILENAME + "/"):
            return EntryKind.DIRECTORY
    return None


def version_rule(scan: SkillScan, base: Mapping[str, BaseSkill]) -> list[Problem]:
    """Changed content needs a greater version; a lower one is always an error; a version
    once given never disappears (docs/reference.md#validation). A skill without a version
    on either side has no rule to follow: its content hash identifies its content."""
    skill_id = scan.valid_value("id")
    if skill_id is None or not scan.has("version") or scan.content_hash is None:
        return []
    version: str | None = scan.valid_value("version")
    prior = base.get(skill_id)
    if prior is None or prior.content_hash == scan.content_hash or prior.version is None:
        return []  # a new skill, unchanged content, or no version before
    if version is None:
        return [
            Problem(
                scan.skill_md_path,
                "version_removed",
                f"the base revision gives version {prior.version}; a version once given must not "
                f"disappear (give it a version greater than {prior.version})",
            )
        ]
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
