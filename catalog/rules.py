"""The per-file and per-skill rules (docs/reference.md#skill-format, #validation, #limits):
what may sit where in a skill, with which extension and size, what a SKILL.md must say
about its directory, what the open dialect leaves out rather than refuses, and the media
type each file is served with.

Each rule only answers; catalog.scan decides what to read and applies them in order.
"""

import posixpath
from collections.abc import Collection, Mapping

from catalog.config import RegistryConfig
from catalog.hashing import sha256_hex
from catalog.paths import path_problem, unsafe_name_problem
from catalog.report import WARNING, OmittedFile, Problem, ValidatedFile
from catalog.skill import Dialect
from catalog.skillfile import ParsedSkillFile, text_problem
from catalog.trees import EntryKind, TreeEntry

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
    # Text files the open dialect serves from any folder.
    ".json": "application/json",
    ".yaml": "application/yaml",
    ".yml": "application/yaml",
    ".toml": "application/toml",
    ".xml": "application/xml",
    ".xsd": "application/xml",
    ".html": "text/html",
    ".htm": "text/html",
    ".css": "text/css",
    ".csv": "text/csv",
    ".svg": "image/svg+xml",
}
# The open dialect: an entire skill directory is read to tell text from binary, so the
# listing is bounded first, at this many times the limits on what is served.
OPEN_LISTING_FACTOR = 4
DEFAULT_MEDIA_TYPE = "text/plain"

# Entries that are never content, wherever they are: (code, what the message says).
KIND_PROBLEMS: Mapping[EntryKind, tuple[str, str]] = {
    EntryKind.SYMLINK: ("symlink", "is a symlink; symlinks are not allowed"),
    EntryKind.SUBMODULE: ("submodule", "is a git submodule; submodules are not allowed"),
    EntryKind.OTHER: ("not_regular_file", "is not a regular file"),
}


def media_type_for(path: str) -> str:
    return MEDIA_TYPES.get(posixpath.splitext(path)[1].lower(), DEFAULT_MEDIA_TYPE)


def kind_problem(path: str, kind: EntryKind) -> Problem:
    """The problem of an entry that is not a regular file (a symlink, a submodule, ...)."""
    code, what = KIND_PROBLEMS[kind]
    return Problem(path, code, what)


def unreadable(path: str) -> Problem:
    # Listed a moment ago, gone now: a work tree edited during the check.
    return Problem(path, "unreadable_file", "could not be read")


def content_problem(path: str, data: bytes) -> Problem | None:
    problem = text_problem(data)
    return None if problem is None else Problem(path, problem.code, problem.message)


class Rules:
    """The rules under one registry.config.json."""

    def __init__(self, config: RegistryConfig) -> None:
        self.config = config
        self.limits = config.limits
        self.top = config.skills_dir
        self.prefix = config.skills_dir + "/"
        self._file_exts = frozenset(config.allowed_file_extensions)
        self._script_exts = self._file_exts | frozenset(config.allowed_script_extensions)

    # --- the layout of skills_dir ------------------------------------------------------

    def skills_dir_not_directory(self) -> Problem:
        return Problem(self.top, "skills_dir_not_directory", "must be a directory of skill directories")

    def skill_count_problem(self, count: int) -> Problem | None:
        if count <= self.limits.max_skills:
            return None
        return Problem(
            self.top,
            "too_many_skills",
            f"holds {count} skills, more than max_skills ({self.limits.max_skills})",
        )

    # --- SKILL.md ------------------------------------------------------------------------

    @staticmethod
    def missing_skill_md(path: str) -> Problem:
        return Problem(path, "missing_skill_md", "missing SKILL.md")

    def skill_md_too_large(self, path: str, size: int) -> Problem:
        return Problem(
            path,
            "skill_md_too_large",
            f"is {size} bytes, more than max_skill_md_bytes ({self.limits.max_skill_md_bytes})",
        )

    @staticmethod
    def skill_md_problems(path: str, parsed: ParsedSkillFile, dir_name: str) -> list[Problem]:
        """What the SKILL.md at `path` says wrong, its directory's name included."""
        problems = [Problem(path, p.code, p.message, p.severity) for p in parsed.problems]
        skill_id = parsed.valid.get("id")
        if skill_id is not None and skill_id != dir_name:
            key, why = (
                ("name", " (the name is the skill's id)") if parsed.dialect is Dialect.OPEN else ("id", "")
            )
            problems.append(
                Problem(
                    path,
                    "id_mismatch",
                    f"{key} {skill_id!r} must equal the directory name '{dir_name}'{why}",
                )
            )
        name = parsed.valid.get("name")
        if parsed.dialect is Dialect.REGISTRY and skill_id is not None and name not in (None, skill_id):
            # The MCP skills extension names a skill by its id and lists only skills whose name
            # is that id; a title still serves everything else (docs/reference.md#mcp-methods).
            problems.append(
                Problem(
                    path,
                    "not_native_name",
                    f"name {name!r} is not the id {skill_id!r}: MCP hosts loading skills natively "
                    f"(skills/list) get only skills named by their id; set name: {skill_id}",
                    WARNING,
                )
            )
        return problems

    @staticmethod
    def listed_files(parsed: ParsedSkillFile | None) -> frozenset[str] | None:
        """The `files` allowlist, or None when it is unknown (SKILL.md unusable)."""
        if parsed is None:
            return None
        listed = parsed.valid.get("files")
        return None if listed is None else frozenset(listed)

    # --- the skill as a whole ------------------------------------------------------------

    def budget_problems(
        self, skill_md_path: str, file_count: int, total_bytes: int, factor: int = 1, served: str = ""
    ) -> list[Problem]:
        """The skill-wide limits: on the listing (before any supporting file is read), at
        `factor` times the limits for the open dialect; then on what it serves (`served`
        names those files in the message)."""
        max_bytes = self.limits.max_skill_total_bytes * factor
        scale = f"{factor} times " if factor > 1 else ""
        problems = []
        too_many = self.too_many_files(skill_md_path, file_count, factor, served)
        if too_many is not None:
            problems.append(too_many)
        if total_bytes > max_bytes:
            problems.append(
                Problem(
                    skill_md_path,
                    "skill_too_large",
                    f"the skill is {total_bytes} bytes in all{' served' if served else ''}, more than "
                    f"{scale}max_skill_total_bytes ({max_bytes})",
                )
            )
        return problems

    def too_many_files(
        self, skill_md_path: str, file_count: int, factor: int = 1, served: str = ""
    ) -> Problem | None:
        max_files = self.limits.max_files_per_skill * factor
        if file_count <= max_files:
            return None
        scale = f"{factor} times " if factor > 1 else ""
        return Problem(
            skill_md_path,
            "too_many_files",
            f"the skill has {file_count} {served}supporting files, "
            f"more than {scale}max_files_per_skill ({max_files})",
        )

    @staticmethod
    def missing_listed_files(
        skill_md_path: str, listed: Collection[str], present: Collection[str]
    ) -> list[Problem]:
        return [
            Problem(
                skill_md_path,
                "listed_file_missing",
                f"files lists {rel!r}, which does not exist in the skill directory",
            )
            for rel in listed
            if rel not in present
        ]

    # --- one supporting file -------------------------------------------------------------

    @staticmethod
    def unsafe_name(rel: str, path: str) -> Problem | None:
        """Both dialects: a name that is not UTF-8 or holds control or bidi characters."""
        why = unsafe_name_problem(rel)
        if why is None:
            return None
        return Problem(path, "unsafe_file_name", f"the file name {why}; rename it")

    @staticmethod
    def malformed_path(rel: str, path: str) -> Problem | None:
        why = path_problem(rel)
        return None if why is None else Problem(path, "invalid_path", f"the path {why}")

    def omitted_by_listing(self, rel: str, entry: TreeEntry) -> OmittedFile | None:
        """The open dialect: a file left out before it is read (a dot-name, too large)."""
        if any(segment.startswith(".") for segment in rel.split("/")):
            return OmittedFile(rel, "its name starts with '.'")
        if entry.size > self.limits.max_file_bytes:
            return OmittedFile(
                rel, f"larger than max_file_bytes ({entry.size} > {self.limits.max_file_bytes} bytes)"
            )
        return None

    @staticmethod
    def omitted_by_content(rel: str, data: bytes) -> OmittedFile | None:
        """The open dialect: a file left out for what it holds (binary, not UTF-8)."""
        problem = text_problem(data)
        if problem is None:
            return None
        reason = "binary (it holds a NUL byte)" if problem.code == "binary_content" else "not UTF-8 text"
        return OmittedFile(rel, reason)

    @staticmethod
    def omitted_warning(path: str, omitted: OmittedFile) -> Problem:
        return Problem(path, "omitted_file", f"not served: {omitted.reason}", WARNING)

    def placement_problems(self, rel: str, path: str, listed: frozenset[str] | None) -> list[Problem]:
        """Path shape, folder, extension and listing of the supporting file `rel`."""
        problems = []
        malformed = self.malformed_path(rel, path)
        if malformed is not None:
            problems.append(malformed)
        folder, sep, _ = rel.partition("/")
        if not sep or folder not in SUPPORT_DIRS:
            problems.append(
                Problem(
                    path,
                    "disallowed_location",
                    "supporting files must live under references/, templates/ or scripts/",
                )
            )
        allowed = self._script_exts if folder == SCRIPTS_DIR else self._file_exts
        ext = posixpath.splitext(rel)[1].lower()
        if ext not in allowed:
            problems.append(
                Problem(
                    path,
                    "disallowed_extension",
                    f"extension {ext or '(none)'} is not allowed here "
                    f"(allowed: {', '.join(sorted(allowed))})",
                )
            )
        if listed is not None and rel not in listed:
            problems.append(Problem(path, "unlisted_file", "is not listed in the files of SKILL.md"))
        return problems

    def file_too_large(self, path: str, size: int) -> Problem:
        return Problem(
            path,
            "file_too_large",
            f"is {size} bytes, more than max_file_bytes ({self.limits.max_file_bytes})",
        )

    @staticmethod
    def validated_file(rel: str, path: str, data: bytes) -> ValidatedFile:
        """How a supporting file is stored and served: media type from its extension,
        executable under scripts/ (served as text all the same, never run)."""
        return ValidatedFile(
            path=rel,
            source=path,
            size=len(data),
            sha256=sha256_hex(data),
            media_type=media_type_for(rel),
            executable=rel.startswith(SCRIPTS_DIR + "/"),
        )
