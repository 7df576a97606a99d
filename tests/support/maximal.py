"""Skills as large as the skill format lets their answers be, for the answer-size tests and
bench/answer_sizes.py (docs/reference.md#answer-sizes).

    maximal_skills(count)        {repo path: text}: `count` registry-dialect skills whose every
                                 bounded field is at its bound (id 64, name 100, description
                                 1024 characters) with a generous set of labels
    many_files_skill(count)      {repo path: text}: one skill of `count` small supporting files
    huge_skill(max_skill_md_bytes, file_bytes)
                                 {repo path: text}: one skill whose SKILL.md is exactly
                                 max_skill_md_bytes, with three supporting files of file_bytes:
                                 prose, text that JSON escapes at every turn, and CJK text

The same arguments always give the same text. Descriptions carry a few quotes and
backslashes, as real prose about code does, so that their JSON is longer than their text.
"""

from tests.support.skillmd import skill_md

ID_CHARS = 64
NAME_CHARS = 100
DESCRIPTION_CHARS = 1024
LABELS = 8  # tags and keywords each: more than any bundled or public skill carries
HUGE_ID = "huge-skill"
MANY_FILES_ID = "many-files"

_WORDS = (
    'export the quarterly report as a PDF, check each "total" cell against the ledger, and '
    "escape every C:\\path before it reaches the shell; then "
)


def _text(chars: int, seed: int) -> str:
    """`chars` characters of prose (ASCII), different for each seed."""
    text = f"Skill {seed}: "
    while len(text) < chars:
        text += _WORDS
    return text[:chars]


def _slug(prefix: str, chars: int) -> str:
    return (prefix + "-" + "x" * chars)[:chars].rstrip("-")


def maximal_skills(count: int) -> dict[str, str]:
    files: dict[str, str] = {}
    for number in range(count):
        skill_id = _slug(f"skill-{number:04d}", ID_CHARS)
        files[f"skills/{skill_id}/SKILL.md"] = skill_md(
            skill_id,
            _text(2048, number) + "\n",
            name=_text(NAME_CHARS, number).replace("\n", " "),
            description=_text(DESCRIPTION_CHARS, number),
            tags=[_slug(f"tag-{number % 7}-{label}", 24) for label in range(LABELS)],
            keywords=[f"keyword {label} of skill {number}" for label in range(LABELS)],
            requires=[_text(120, number + label) for label in range(2)],
        )
    return files


def escape_heavy(chars: int) -> str:
    """Text whose every few characters JSON writes as two (quotes, backslashes, line breaks)."""
    line = '{"key": "C:\\\\dir\\\\file", "n": "\\t"}\n'
    return (line * (chars // len(line) + 1))[:chars]


def cjk(byte_count: int) -> str:
    """CJK text of `byte_count` UTF-8 bytes (three a character)."""
    return ("技能注册表服务" * (byte_count // 21 + 1))[: byte_count // 3]


def huge_skill(max_skill_md_bytes: int, file_bytes: int) -> dict[str, str]:
    paths = {
        "references/prose.md": (_text(file_bytes, 1) + "\n")[:file_bytes],
        "references/escaped.txt": escape_heavy(file_bytes),
        "references/cjk.md": cjk(file_bytes),
    }
    head = skill_md(HUGE_ID, "", description=_text(DESCRIPTION_CHARS, 0), files=sorted(paths))
    body_bytes = max_skill_md_bytes - len(head.encode())
    body = (_text(body_bytes - 1, 2) + "\n") if body_bytes > 1 else "x"
    files = {f"skills/{HUGE_ID}/SKILL.md": head + body}
    for path, text in paths.items():
        files[f"skills/{HUGE_ID}/{path}"] = text
    return files


def many_files_skill(count: int) -> dict[str, str]:
    """A skill listing `count` supporting files: its skills_get manifest grows with them."""
    paths = [f"references/part-{number:04d}.md" for number in range(count)]
    files = {f"skills/{MANY_FILES_ID}/SKILL.md": skill_md(MANY_FILES_ID, "Read the parts.\n", files=paths)}
    for path in paths:
        files[f"skills/{MANY_FILES_ID}/{path}"] = f"Part {path}.\n"
    return files
