"""skill:// resources: the same files the tools serve, never more (docs/reference.md#mcp-methods).

`skill://<id>/SKILL.md` is a skill's whole SKILL.md (frontmatter included);
`skill://<id>/<path>` one of its listed supporting files. URIs are matched
exactly, like tool arguments. Anything that names no file the caller may see,
hidden ZDR skills included, is "resource not found" (-32002; -32602 in 2026-07-28, where
mcpapi.eras words it), the same as a file that never existed.
"""

from collections.abc import Iterator
from itertools import islice
from typing import Any

from catalog import index as catalog
from catalog.index import SkillEntry, SnapshotView
from mcpapi import cursors
from mcpapi.jsonrpc import RESOURCE_NOT_FOUND, JsonRpcError, Utf8Json
from mcpapi.paginate import Paginator, bad_cursor
from mcpapi.spliced import kept, plain_json
from mcpapi.wire import SKILL_MD, SKILL_SCHEME, skill_uri

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


def list_resources(view: SnapshotView, cursor: str | None) -> dict[str, Any]:
    paginator = Paginator(view.ref.sha, "resources/list", view.zdr_cleared)
    try:
        start = paginator.start(cursor)
    except (cursors.InvalidCursor, cursors.StaleCursor):
        raise bad_cursor() from None
    page_size = view.config.pagination.max_limit
    # One entry more than a page says whether another page follows, without counting them all.
    entries = list(islice(_entries_from(view.skills, start), page_size + 1))
    if len(entries) > page_size:
        return {"resources": entries[:page_size], "nextCursor": paginator.cursor_at(start + page_size)}
    return {"resources": entries}


def list_before_publish(cursor: str | None) -> dict[str, Any]:
    if cursor is not None:  # nothing was ever listed, so no cursor was handed out
        raise bad_cursor()
    return {"resources": []}


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
        raise bad_cursor()
    return TEMPLATES


def read_resource(view: SnapshotView, uri: str) -> Utf8Json:
    named = uri[len(SKILL_SCHEME) :] if uri.startswith(SKILL_SCHEME) else ""
    skill_id, _, path = named.partition("/")
    skill = view.get(skill_id) if skill_id and path else None
    if skill is None:
        raise not_found(uri)
    if path == SKILL_MD:
        sha256, media_type = skill.skill_md_sha256, SKILL_MD_MEDIA_TYPE
    else:
        entry = skill.file(path)
        if entry is None:
            raise not_found(uri)
        sha256, media_type = entry.sha256, entry.media_type
    text = catalog.read_blob(sha256).decode("utf-8")
    # orjson: json spends ~7 ns a character on a long text (docs/benchmarks.md, "Cold paths").
    # Copied to its own size: an answer kept in the answer cache would otherwise hold orjson's
    # whole buffer (mcpapi.spliced.kept).
    return Utf8Json(kept(plain_json({"contents": [{"uri": uri, "mimeType": media_type, "text": text}]})))


def not_found(uri: str) -> JsonRpcError:
    """What any URI naming no resource the caller may see gets, before the first publish too."""
    return JsonRpcError(RESOURCE_NOT_FOUND, "Resource not found.", {"uri": uri})
