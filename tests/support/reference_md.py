"""docs/reference.md read as GitHub renders it: headings, anchors, sections, tables (for
tests/test_reference_doc.py)."""

import re
from collections.abc import Iterable

from tests.support.project import PROJECT_DIR

REFERENCE = PROJECT_DIR / "docs" / "reference.md"


def reference_text() -> str:
    return REFERENCE.read_text(encoding="utf-8")


def headings(text: str) -> list[tuple[int, str]]:
    """(level, title) of every Markdown heading outside fenced code."""
    found, fenced = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and (match := re.match(r"(#{1,6}) +(.+?) *#* *$", line)):
            found.append((len(match.group(1)), match.group(2)))
    return found


def github_anchor(title: str) -> str:
    """The id GitHub gives a heading: lower-cased, punctuation but '-' and '_' dropped."""
    return re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")


def anchors(text: str) -> set[str]:
    seen: dict[str, int] = {}
    result = set()
    for _, title in headings(text):
        anchor = github_anchor(title)
        count = seen.get(anchor, 0)
        seen[anchor] = count + 1
        result.add(anchor if count == 0 else f"{anchor}-{count}")
    return result


def _blocks(text: str, level: int) -> dict[str, str]:
    """Heading title -> its text (up to the next heading of `level` or higher)."""
    marker = "#" * level + " "
    blocks: dict[str, str] = {}
    title, lines, fenced = None, [], False
    for line in text.splitlines():
        fenced = not fenced if line.startswith("```") else fenced
        heading = re.match(r"(#{1,6}) ", line) if not fenced else None
        if heading and len(heading.group(1)) <= level:
            if title is not None:
                blocks[title] = "\n".join(lines)
            title, lines = (line[len(marker) :].strip(), []) if line.startswith(marker) else (None, [])
            continue
        lines.append(line)
    if title is not None:
        blocks[title] = "\n".join(lines)
    return blocks


def section(name: str) -> str:
    sections = _blocks(reference_text(), 2)
    assert name in sections, f"docs/reference.md has no '## {name}' section"
    return sections[name]


def subsections(text: str) -> dict[str, str]:
    return _blocks(text, 3)


def backticked(text: str) -> set[str]:
    return set(re.findall(r"`([^`\n]+)`", text))


def first_column(text: str, header: str) -> list[str]:
    """The backticked first cells of every table in `text` whose first header cell is `header`."""
    cells, in_table = [], False
    for line in text.splitlines():
        row = [cell.strip() for cell in line.strip().strip("|").split("|")] if line.startswith("|") else []
        if not row:
            in_table = False
        elif row[0] == header:
            in_table = True
        elif in_table and not set(row[0]) <= set("-: "):
            cells.extend(re.findall(r"`([^`]+)`", row[0]))
    return cells


def limit(what: str) -> str:
    """The bound the Limits table states for `what` (its first cell): the second cell."""
    for line in section("Limits").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and cells[0] == what:
            return cells[1]
    raise AssertionError(f"docs/reference.md#limits has no row {what!r}")


def undocumented(names: Iterable[str], documented: set[str]) -> list[str]:
    """The names not among `documented`, sorted."""
    return sorted(set(names) - documented)
