"""skill:// resources: the same files the tools serve, never more (SPEC §6, §9).

`skill://<id>/SKILL.md` is a skill's whole SKILL.md (frontmatter included);
`skill://<id>/<path>` one of its listed supporting files. URIs are matched
exactly, like tool arguments. Anything that names no file the caller may see,
hidden ZDR skills included, is -32002, the same as a file that never existed.
"""

from collections.abc import Iterator
from typing import Any

from catalog.index import SkillEntry
from mcpapi import cursors
from mcpapi.jsonrpc import RESOURCE_NOT_FOUND, InvalidParams, JsonRpcError
from mcpapi.registry import RegistryView

SCHEME = "skill://"
SKILL_MD = "SKILL.md"
SKILL_MD_MEDIA_TYPE = "text/markdown"

TEMPLATES = {
    "resourceTemplates": [
        {
            "uriTemplate": "skill://{id}/SKILL.md",
            "name": "skill-md",
            "title": "A skill's SKILL.md",
            "description": "The whole SKILL.md of a skill: YAML frontmatter, then its instructions.",
            "mimeType": SKILL_MD_MEDIA_TYPE,
        },
        {
            "uriTemplate": "skill://{id}/{path}",
            "name": "skill-file",
            "title": "A supporting file of a skill",
            "description": "A file listed in a skill's manifest, by its path (e.g. references/guide.md).",
        },
    ]
}


def skill_uri(skill_id: str, path: str = SKILL_MD) -> str:
    return f"{SCHEME}{skill_id}/{path}"


def list_resources(registry: RegistryView, cursor: str | None) -> dict[str, Any]:
    if registry.ref is None:
        if cursor is not None:
            raise _bad_cursor()
        return {"resources": []}
    query = cursors.query_key("resources/list", registry.zdr_cleared)
    start = 0
    if cursor is not None:
        try:
            start = cursors.decode(cursor, registry.ref.sha, query)
        except (cursors.InvalidCursor, cursors.StaleCursor):
            raise _bad_cursor() from None
    page_size = registry.config.pagination.max_limit
    page: list[dict[str, Any]] = []
    for entry in _entries_from(registry.visible().skills, start):
        if len(page) == page_size:
            return {
                "resources": page,
                "nextCursor": cursors.encode(registry.ref.sha, query, start + page_size),
            }
        page.append(entry)
    return {"resources": page}


def _entries_from(skills: tuple[SkillEntry, ...], start: int) -> Iterator[dict[str, Any]]:
    """Every resource from position `start` on: per skill (by id), SKILL.md then its files."""
    position = 0
    for skill in skills:
        count = 1 + len(skill.files)
        if position + count <= start:
            position += count
            continue
        for index in range(-1, len(skill.files)):
            if position >= start:
                yield _skill_md_entry(skill) if index < 0 else _file_entry(skill, index)
            position += 1


def _skill_md_entry(skill: SkillEntry) -> dict[str, Any]:
    return {
        "uri": skill_uri(skill.id),
        "name": f"{skill.id}/{SKILL_MD}",
        "title": skill.name,
        "description": skill.description,
        "mimeType": SKILL_MD_MEDIA_TYPE,
        "size": skill.skill_md_size,
    }


def _file_entry(skill: SkillEntry, index: int) -> dict[str, Any]:
    entry = skill.files[index]
    return {
        "uri": skill_uri(skill.id, entry.path),
        "name": f"{skill.id}/{entry.path}",
        "mimeType": entry.media_type,
        "size": entry.size,
    }


def list_templates(cursor: str | None) -> dict[str, Any]:
    if cursor is not None:  # the templates fit one page, so no cursor was ever handed out
        raise _bad_cursor()
    return TEMPLATES


def read_resource(registry: RegistryView, uri: str) -> dict[str, Any]:
    skill_id, _, path = uri[len(SCHEME) :].partition("/") if uri.startswith(SCHEME) else ("", "", "")
    skill = registry.visible().get(skill_id) if skill_id and path and registry.ref is not None else None
    if skill is None:
        raise _not_found(uri)
    if path == SKILL_MD:
        sha256, media_type = skill.skill_md_sha256, SKILL_MD_MEDIA_TYPE
    else:
        entry = skill.file(path)
        if entry is None:
            raise _not_found(uri)
        sha256, media_type = entry.sha256, entry.media_type
    text = registry.read_blob(sha256).decode("utf-8")
    return {"contents": [{"uri": uri, "mimeType": media_type, "text": text}]}


def _not_found(uri: str) -> JsonRpcError:
    return JsonRpcError(RESOURCE_NOT_FOUND, "Resource not found.", {"uri": uri})


def _bad_cursor() -> InvalidParams:
    return InvalidParams("Invalid params: the cursor is not valid; list again from the start.")
