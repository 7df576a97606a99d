"""The skills extension `io.modelcontextprotocol/skills`: skills/list and skills/get, from the
same snapshot view as every other answer (docs/reference.md#mcp-methods).

A host loads skills natively from these: each Skill names its SKILL.md as a `skill://`
resource, gives its frontmatter as written, and lists every file it serves with the digest
and size of the bytes resources/read returns. Only native skills are served here, those
whose frontmatter `name` is their id (the extension names a skill by the last segment of its
URI): every open-dialect skill, and registry-dialect skills whose name is their id. A skill
that is not native, hidden (ZDR) or absent gets one and the same -32602.
"""

import threading
from typing import Any
from weakref import WeakKeyDictionary

from catalog.index import SkillEntry, SnapshotIndex, SnapshotView
from mcpapi import cursors, wire
from mcpapi.jsonrpc import InvalidParams, RawJson
from mcpapi.paginate import Paginator, bad_cursor

EXTENSION = "io.modelcontextprotocol/skills"
# No resources/directory/read: every file is listed in its Skill.
SETTINGS: dict[str, Any] = {"directoryRead": False}


def is_native(skill: SkillEntry) -> bool:
    return skill.name == skill.id


def list_skills(view: SnapshotView, cursor: str | None) -> RawJson:
    """One page of the native skills this caller may see, by id."""
    skills = _native(view)
    paginator = Paginator(view.ref.sha, "skills/list", view.zdr_cleared)
    try:
        page = paginator.page(cursor, len(skills), view.config.pagination.default_limit)
    except (cursors.InvalidCursor, cursors.StaleCursor):
        raise bad_cursor() from None
    listed, count = wire.extension_skills(view, skills[page.start : page.end])
    fields: list[tuple[str, Any]] = [("skills", listed)]
    next_cursor = paginator.next_after(page, count)
    if next_cursor is not None:
        fields.append(("nextCursor", next_cursor))
    return wire.encode_object(fields)


def list_before_publish(cursor: str | None) -> dict[str, Any]:
    if cursor is not None:  # nothing was ever listed, so no cursor was handed out
        raise bad_cursor()
    return {"skills": []}


def get_skill(view: SnapshotView, uri: str) -> RawJson:
    """The Skill whose SKILL.md is `uri`, exactly."""
    prefix, suffix = wire.SKILL_SCHEME, "/" + wire.SKILL_MD
    skill_id = uri[len(prefix) : -len(suffix)] if uri.startswith(prefix) and uri.endswith(suffix) else ""
    skill = view.get(skill_id) if skill_id and "/" not in skill_id else None
    if skill is None or not is_native(skill):
        raise not_found(uri)
    return wire.encode_object((("skill", wire.extension_skill(view, skill)),))


def not_found(uri: str) -> InvalidParams:
    """What any URI naming no skill served to this caller gets, before the first publish too."""
    return InvalidParams("Skill not found.", {"uri": uri})


# The native skills of a snapshot, per clearance: found once per index, dropped with it.
_native_memo: WeakKeyDictionary[SnapshotIndex, dict[bool, tuple[SkillEntry, ...]]] = WeakKeyDictionary()
_memo_lock = threading.Lock()


def _native(view: SnapshotView) -> tuple[SkillEntry, ...]:
    with _memo_lock:
        per_clearance = _native_memo.setdefault(view.index, {})
    found = per_clearance.get(view.zdr_cleared)
    if found is None:
        found = per_clearance[view.zdr_cleared] = tuple(skill for skill in view.skills if is_native(skill))
    return found
