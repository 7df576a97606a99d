"""The one rule for a file path inside a skill (docs/reference.md#skill-format, #tools).

Validation refuses to publish a path that breaks it, and the retrieval tools answer
INVALID_PATH for it: one function, so nothing the server would refuse can ever be
published, and nothing publishable is ever refused.
"""


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
