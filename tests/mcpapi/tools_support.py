"""The four tools, arguments each of them serves against the standard skills, and the ids of a
listing, for the tool tests."""

TOOLS = ("skills_list", "skills_search", "skills_get", "skills_get_file")
ARGUMENTS = {
    "skills_list": {},
    "skills_search": {"query": "review"},
    "skills_get": {"id": "alpha"},
    "skills_get_file": {"id": "alpha", "path": "references/guide.md"},
}


def ids(skills: list[dict]) -> list[str]:
    return [skill["id"] for skill in skills]
