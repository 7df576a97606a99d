"""The one rule for a file path inside a skill (docs/reference.md#skill-format, #tools).

Validation refuses to publish a path that breaks it, and the retrieval tools answer
INVALID_PATH for it: one function, so nothing the server would refuse can ever be
published, and nothing publishable is ever refused. Names that are not UTF-8 or that hold
characters a terminal acts on are refused inside a skill too (unsafe_name_problem).
"""

import unicodedata

# The bidirectional controls (embeddings, overrides, isolates and the marks): a name
# holding one can display as another name.
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def path_problem(path: str) -> str | None:
    """Why `path` (relative to the skill directory) is not a well-formed file path, or None."""
    if not path:
        return "is empty"
    if "\0" in path:
        return "contains a NUL character"
    if "\\" in path:
        return "contains a backslash (use '/')"
    if "%" in path:
        return "contains '%'"
    if path.startswith("/"):
        return "starts with '/' (paths are relative to the skill directory)"
    for segment in path.split("/"):
        if segment in (".", ".."):
            return f"has a {segment!r} segment"
        if not segment:
            return "has an empty segment ('//' or a trailing '/')"
    return None


def is_well_formed_path(path: str) -> bool:
    return path_problem(path) is None


def unsafe_name_problem(path: str) -> str | None:
    """Why `path` (as listed: a byte that was not UTF-8 is a lone surrogate) cannot name a
    served file, or None: not UTF-8, a control character, a bidirectional control."""
    for char in path:
        code = ord(char)
        if 0xD800 <= code <= 0xDFFF:
            return "is not UTF-8"
        if unicodedata.category(char) == "Cc":
            return f"holds the control character U+{code:04X}"
        if char in BIDI_CONTROLS:
            return f"holds the bidirectional control character U+{code:04X}"
    return None
