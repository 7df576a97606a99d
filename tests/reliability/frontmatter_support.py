"""What the hostile-frontmatter tests hold every problem to (a documented code, a clean and
bounded message), and the alias bomb they plant."""

import re

from catalog import validation

# A problem message names the problem; it never echoes a whole hostile value.
MAX_MESSAGE_CHARS = 2000


def documented_codes() -> set[str]:
    """The stable problem codes listed in catalog.validation's docstring."""
    doc = validation.__doc__ or ""
    listing = doc.split("Problem codes", 1)[1]
    codes: set[str] = set()
    for line in listing.splitlines()[1:]:
        parts = re.split(r"\s{2,}", line.strip(), maxsplit=1)
        if len(parts) == 2:
            codes.update(code.strip() for code in parts[1].split(","))
        elif line.startswith(" " * 20):
            codes.update(code.strip() for code in line.split(","))
    return {code for code in codes if re.fullmatch(r"[a-z][a-z0-9_]*", code)}


CODES = documented_codes()


def _alias_bomb(levels: int = 8, width: int = 9) -> str:
    lines = ["l0: &l0 [" + ", ".join(["lol"] * width) + "]"]
    for n in range(1, levels + 1):
        lines.append(f"l{n}: &l{n} [" + ", ".join([f"*l{n - 1}"] * width) + "]")
    return "\n".join(lines)


# Small enough to fail fast (a message of 6,561 items) if values were ever echoed whole.
BOMB = _alias_bomb(levels=4)


def check_problem(code: str, message: str, severity: str = "error") -> None:
    assert code in CODES, f"undocumented problem code {code!r}"
    assert severity in ("error", "warning")
    assert isinstance(message, str) and message.strip()
    assert len(message) <= MAX_MESSAGE_CHARS, message[:200]
    assert "Traceback" not in message
