"""The files of an open-dialect skill (docs/reference.md#skill-format): the directory
is the allowlist, what cannot be served is omitted with a warning, the limits count what is
served; and the names no skill may hold, in either dialect, refused without a traceback."""

import io
import json
import os
import subprocess

import pytest
from django.core.management import call_command

from catalog.config import config_from_dict
from catalog.discovery import list_skills
from catalog.report import OmittedFile, ValidationReport
from catalog.rules import Rules
from catalog.scan import scan_skill
from catalog.trees import WorkingTree
from tests.catalog.publish_support import publish_refusal
from tests.catalog.tree_support import codes, symlink, validate, validate_commit
from tests.support.repos import SkillRepo, config_with_limits

OPEN_MD = "---\nname: demo\ndescription: The demo skill.\n---\nSteps.\n"
BASE = "skills/demo"


def open_skill(repo: SkillRepo, files: dict[str, str | bytes], skill: str = OPEN_MD) -> None:
    repo.write(f"{BASE}/SKILL.md", skill)
    for path, content in files.items():
        repo.write(f"{BASE}/{path}", content)


def only_skill(report: ValidationReport):
    assert report.ok, report.problems
    [skill] = report.skills
    return skill


def test_any_folder_and_any_text_file_is_served(skill_repo: SkillRepo) -> None:
    files = {
        "FORMS.md": "# Forms\n",
        "LICENSE.txt": "terms\n",
        "reference/a.md": "a\n",
        "assets/icon.svg": "<svg/>\n",
        "rules/_sections.md": "s\n",
        "agents/openai.yaml": "a: 1\n",
        "scripts/run": "#!/bin/sh\n",
        "scripts/lib/x.py": "x = 1\n",
        "examples/scripts/not-top.sh": "echo\n",
        "Makefile": "all:\n",
    }
    open_skill(skill_repo, files)
    skill = only_skill(validate(skill_repo))
    assert {f.path: f.executable for f in skill.files} == {
        path: path.startswith("scripts/") for path in files
    }
    assert skill.omitted == ()
    assert {f.path: f.media_type for f in skill.files}["assets/icon.svg"] == "image/svg+xml"


@pytest.mark.parametrize(
    ("path", "content", "reason"),
    [
        ("assets/font.ttf", b"\x00\x01\x00\x00OS/2", "binary (it holds a NUL byte)"),
        ("assets/icon.png", b"\x89PNG\r\n\x1a\n\x00\x00", "binary (it holds a NUL byte)"),
        ("notes/latin1.txt", b"caf\xe9\n", "not UTF-8 text"),
        ("scripts/__pycache__/x.pyc", b"\xcb\r\r\n\x00", "binary (it holds a NUL byte)"),
        (".hidden.md", "text\n", "its name starts with '.'"),
        ("assets/empty/.gitkeep", "", "its name starts with '.'"),
        (".github/workflows/ci.yml", "on: push\n", "its name starts with '.'"),
    ],
)
def test_what_cannot_be_served_is_omitted_with_a_warning_naming_it(
    skill_repo: SkillRepo, path: str, content: str | bytes, reason: str
) -> None:
    open_skill(skill_repo, {path: content, "kept.md": "kept\n"})
    report = validate(skill_repo)
    skill = only_skill(report)
    assert [f.path for f in skill.files] == ["kept.md"]
    assert skill.omitted == (OmittedFile(path, reason),)
    [warning] = report.problems
    assert (warning.path, warning.code, warning.severity) == (f"{BASE}/{path}", "omitted_file", "warning")
    assert warning.line() == f"{BASE}/{path}: warning: not served: {reason}"


def test_a_file_at_max_file_bytes_is_served_and_one_byte_more_omitted_unread(make_repo) -> None:
    repo = make_repo(config_with_limits(max_file_bytes=100))
    open_skill(repo, {"at.md": "a" * 100, "over.md": "b" * 101})
    reads: list[str] = []

    class Spy(WorkingTree):
        def read(self, path: str, max_bytes: int) -> bytes | None:
            reads.append(path)
            return super().read(path, max_bytes)

    rules = Rules(config_from_dict(config_with_limits(max_file_bytes=100)))
    [skill_dir] = list_skills(Spy(repo.root), rules).skill_dirs
    scan = scan_skill(Spy(repo.root), skill_dir, rules)
    assert [f.path for f in scan.files] == ["at.md"]
    assert scan.omitted == [OmittedFile("over.md", "larger than max_file_bytes (101 > 100 bytes)")]
    assert f"{BASE}/over.md" not in reads


def test_the_file_limit_counts_served_files_only(make_repo) -> None:
    repo = make_repo(config_with_limits(max_files_per_skill=2))
    open_skill(repo, {"a.md": "a\n", "b.md": "b\n", "c.png": b"\x00", ".d": "d\n"})
    assert only_skill(validate(repo)).omitted  # 4 files, 2 served: within the limit
    repo.write(f"{BASE}/e.md", "e\n")
    report = validate(repo)
    assert codes(report) >= {(f"{BASE}/SKILL.md", "too_many_files")} and not report.ok
    assert "3 served supporting files" in next(
        p.message for p in report.problems if p.code == "too_many_files"
    )


def test_the_total_counts_skill_md_and_served_files_only(make_repo) -> None:
    total = len(OPEN_MD) + 10
    repo = make_repo(config_with_limits(max_skill_total_bytes=total))
    open_skill(repo, {"a.md": "x" * 10, "big.bin": b"\x00" * 150})
    assert only_skill(validate(repo)).omitted == (OmittedFile("big.bin", "binary (it holds a NUL byte)"),)
    repo.write(f"{BASE}/b.md", "y")
    assert (f"{BASE}/SKILL.md", "skill_too_large") in codes(validate(repo))


def test_the_listing_is_bounded_before_anything_is_read(make_repo) -> None:
    repo = make_repo(config_with_limits(max_files_per_skill=1))
    open_skill(repo, {f"f{n}.bin": b"\x00" for n in range(5)})
    report = validate(repo)
    [problem] = [p for p in report.problems if p.is_error]
    assert problem.code == "too_many_files" and "4 times max_files_per_skill (4)" in problem.message


def test_the_path_rule_holds_for_open_skills(skill_repo: SkillRepo) -> None:
    open_skill(skill_repo, {"100%.md": "x\n", "a\\b.md": "y\n"})
    assert {code for _, code in codes(validate(skill_repo))} == {"invalid_path"}


def test_a_symlink_or_submodule_inside_an_open_skill_is_an_error(skill_repo: SkillRepo) -> None:
    open_skill(skill_repo, {"real.md": "r\n"})
    symlink(skill_repo, f"{BASE}/link.md", "real.md")
    report = validate(skill_repo)
    assert codes(report) == {(f"{BASE}/link.md", "symlink")} and not report.ok


def test_a_registry_skill_keeps_its_extension_and_folder_rules(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("demo", files={"assets/icon.svg": "<svg/>\n"})
    assert {code for _, code in codes(validate(skill_repo))} == {
        "disallowed_location",
        "disallowed_extension",
    }


# --- names no skill may hold ----------------------------------------------------------------------

UNSAFE_NAMES = [
    ("tab\there.md", "U+0009"),
    ("bell\x07.md", "U+0007"),
    ("line\nbreak.md", "U+000A"),
    ("evil\u202etxt.md", "U+202E"),
    ("iso\u2066late.md", "U+2066"),
    ("mark\u200f.md", "U+200F"),
    ("arabic\u061cmark.md", "U+061C"),
]


@pytest.mark.parametrize(("name", "char"), UNSAFE_NAMES)
@pytest.mark.parametrize("dialect", ["open", "registry"])
def test_a_name_with_control_or_bidi_characters_is_an_error_in_both_dialects(
    skill_repo: SkillRepo, name: str, char: str, dialect: str
) -> None:
    if dialect == "open":
        open_skill(skill_repo, {f"references/{name}": "x\n"})
    else:
        skill_repo.add_skill("demo", files={f"references/{name}": "x\n"})
    report = validate(skill_repo)
    assert codes(report) == {(f"{BASE}/references/{name}", "unsafe_file_name")}
    assert char in report.problems[0].message
    line = report.problems[0].line()
    assert line.isprintable() and "\u202e" not in line and "\u2066" not in line


def latin1_repo(repo: SkillRepo, inside: bool) -> bytes:
    """A real git repository holding a file whose name is latin-1 bytes, not UTF-8."""
    name = b"caf\xe9.md"
    directory = os.fsencode(repo.root / (BASE if inside else "skills/cat"))
    os.makedirs(directory, exist_ok=True)
    if inside:
        (repo.root / BASE / "SKILL.md").write_text(OPEN_MD)
    with open(os.path.join(directory, name), "wb") as handle:
        handle.write(b"text\n")
    repo.commit("a latin-1 name")
    listed = subprocess.run(
        ["git", "-C", str(repo.root), "ls-files", "-z"], check=True, capture_output=True
    ).stdout
    assert b"caf\xe9.md" in listed
    return name


def check(repo: SkillRepo, *args: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("check_skills", "--repo", str(repo.root), *args, stdout=out, stderr=err)
        code = 0
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    assert "Traceback" not in err.getvalue()
    return code, out.getvalue()


def test_a_name_that_is_not_utf8_inside_a_skill_is_an_error_naming_it(skill_repo: SkillRepo) -> None:
    latin1_repo(skill_repo, inside=True)
    for report in (validate(skill_repo), validate_commit(skill_repo)):
        [problem] = report.problems
        assert problem.code == "unsafe_file_name" and not report.ok
        assert problem.line() == f"{BASE}/caf\\xe9.md: the file name is not UTF-8; rename it"
    code, out = check(skill_repo)
    assert code == 1 and out == f"{BASE}/caf\\xe9.md: the file name is not UTF-8; rename it\n"
    code, out = check(skill_repo, "--format", "json")
    document = json.loads(out)
    assert code == 1 and document["problems"] == [
        {
            "path": f"{BASE}/caf\\xe9.md",
            "code": "unsafe_file_name",
            "severity": "error",
            "message": "the file name is not UTF-8; rename it",
        }
    ]


def test_a_name_that_is_not_utf8_outside_every_skill_is_a_stray(skill_repo: SkillRepo) -> None:
    latin1_repo(skill_repo, inside=False)
    skill_repo.write("skills/ok/SKILL.md", OPEN_MD.replace("demo", "ok"))
    skill_repo.commit()
    for report in (validate(skill_repo), validate_commit(skill_repo)):
        assert report.ok and codes(report) == {("skills/cat", "stray_entry")}
    code, out = check(skill_repo, "--format", "json")
    assert code == 0 and json.loads(out)["ok"] is True


@pytest.mark.django_db(transaction=True)
def test_publish_refuses_a_name_that_is_not_utf8_without_a_traceback(skill_repo: SkillRepo) -> None:

    latin1_repo(skill_repo, inside=True)
    message = publish_refusal(skill_repo.root, "HEAD")
    assert f"{BASE}/caf\\xe9.md: the file name is not UTF-8; rename it" in message
    message.encode("utf-8")  # printable as it is


@pytest.mark.django_db(transaction=True)
def test_publish_serves_past_a_stray_name_that_is_not_utf8(skill_repo: SkillRepo) -> None:
    from catalog.publishing import publish

    latin1_repo(skill_repo, inside=False)
    skill_repo.write("skills/ok/SKILL.md", OPEN_MD.replace("demo", "ok"))
    result = publish(skill_repo.root, skill_repo.commit())
    assert result.skill_count == 1
    assert result.warnings == (
        "skills/cat: warning: a folder outside every skill (no SKILL.md in it or "
        "above it; 1 entry): not served",
    )
    result.summary().encode("utf-8")


def test_a_skill_directory_whose_name_is_not_utf8_is_refused_by_name(skill_repo: SkillRepo) -> None:
    directory = os.fsencode(skill_repo.root / "skills") + b"/d\xe9mo"
    os.makedirs(directory)
    with open(directory + b"/SKILL.md", "wb") as handle:
        handle.write(OPEN_MD.encode())
    skill_repo.commit()
    for report in (validate(skill_repo), validate_commit(skill_repo)):
        assert not report.ok
        lines = [problem.line() for problem in report.problems]
        assert lines == [
            "skills/d\\xe9mo/SKILL.md: name 'demo' must equal the directory name 'd\\xe9mo' "
            "(the name is the skill's id)"
        ]


def test_more_entries_than_four_times_max_files_per_skill_are_one_problem(tmp_path) -> None:
    # Dot-named files are omitted by name without being read, each with its warning: over
    # four times the limit, the skill is refused in one line instead.
    repo = SkillRepo(tmp_path / "repo", config_with_limits(max_files_per_skill=2))
    open_skill(repo, {f".hidden-{n}": "x\n" for n in range(8)})
    assert codes(validate(repo)) == {(f"{BASE}/.hidden-{n}", "omitted_file") for n in range(8)}
    open_skill(repo, {".hidden-8": "x\n"})
    report = validate(repo)
    assert [(p.path, p.code, p.message) for p in report.problems] == [
        (
            f"{BASE}/SKILL.md",
            "too_many_files",
            "the skill has 9 supporting files, more than 4 times max_files_per_skill (8)",
        )
    ]
