"""MCP over the dispatcher: the methods of both eras (initialize, server/discover, tools,
resources, the skills extension), and `answer()`, the way every parsed message goes
(docs/reference.md#mcp-methods).

Stateless: `initialize` negotiates a version and describes the server, but nothing
is remembered between POSTs; every request stands alone. Which era a request speaks, and
what that changes, is mcpapi.eras; the methods are the same for both. A method that reads
skills runs with the one snapshot view resolved for its request, or, before the first
publish, gives the answer registered with it for an empty registry. The answers of
_REMEMBERED methods are pure functions of what answer_key names, so they are encoded once per
process and served again (mcpapi.answer_cache).
"""

import json
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

import orjson
from django.conf import settings

from accounts.callers import Caller
from catalog import index as catalog
from catalog.index import SnapshotView
from mcpapi import answer_cache, eras, refusals, resources, skills_ext, spliced, tools
from mcpapi.dispatch import Dispatcher
from mcpapi.eras import Headers
from mcpapi.identity import INSTRUCTIONS, SERVER_INFO
from mcpapi.jsonrpc import MalformedMessage, Message
from mcpapi.outcome import Outcome
from mcpapi.paginate import bad_cursor
from mcpapi.tool_schemas import SKILLS_GET, SKILLS_GET_FILE, SKILLS_LIST, SKILLS_SEARCH

_EXTENSIONS = {skills_ext.EXTENSION: skills_ext.SETTINGS}


@dataclass(slots=True)  # made on every request: a frozen dataclass costs a setattr call a field
class RequestContext:
    caller: Caller
    # The snapshot this request reads, resolved once, for the methods that read skills
    # (None for the others, and before the first publish).
    view: SnapshotView | None
    era: str  # the name of the era the request speaks (its results' own fields)


_CURSOR_PARAMS = {"type": "object", "properties": {"cursor": {"type": "string"}}}

dispatcher: Dispatcher[RequestContext] = Dispatcher(answer_cache.answers)
_READS_SKILLS: set[str] = set()

ReadingHandler = Callable[[dict[str, Any], SnapshotView], Any]


def reads_skills(
    name: str, params_schema: dict[str, Any], *, before_publish: Callable[[dict[str, Any]], Any]
) -> Callable[[ReadingHandler], ReadingHandler]:
    """Register a method that reads skills: it runs with the request's snapshot view; before
    the first publish, `before_publish` answers instead."""

    def decorator(handler: ReadingHandler) -> ReadingHandler:
        def run(params: dict[str, Any], context: RequestContext) -> Any:
            if context.view is None:
                return before_publish(params)
            return handler(params, context.view)

        _READS_SKILLS.add(name)
        dispatcher.register(name, params_schema)(run)
        return handler

    return decorator


def malformed(error: MalformedMessage, headers: Headers) -> refusals.Refusal:
    """The refusal of a body that is not one usable JSON-RPC message, with the status the era
    its headers name gives that error."""
    return refusals.malformed(error, eras.era_of_unparsed(headers).status(error.code))


def answer(message: Message, caller: Caller, headers: Headers) -> Outcome:
    """What `caller` gets for `message`: a reply, a refusal of its era, or 202 for a notification
    or a response."""
    method = message.method
    tool = message.params.get("name") if method == "tools/call" else None
    tool = tool if isinstance(tool, str) else None
    era = eras.era_of(message, headers)
    try:
        era.admit(message, headers)
    except refusals.Refusal as refusal:
        return refusal.outcome(rpc_method=method, tool=tool, era=era.name)
    if message.is_notification or message.is_response:
        return Outcome(202, None, rpc_method=method, tool=tool, era=era.name)

    def context_for(name: str) -> RequestContext:
        view = catalog.active_view(caller.zdr_cleared) if name in _READS_SKILLS else None
        return RequestContext(caller, view, era.name)

    reply = dispatcher.reply(message, context_for, era, answer_key)
    view = reply.context.view if reply.context is not None else None
    return Outcome(
        era.status(reply.rpc_error),
        reply.payload,
        rpc_method=method,
        tool=tool,
        rpc_error=reply.rpc_error,
        registry_sha=view.ref.sha if view is not None else None,
        era=era.name,
    )


# What is encoded once and served again (docs/reference.md#limits): a page or an entry a client
# asks for again and again, and a search page. A search is kept in the same cache as the rest
# (docs/benchmarks.md, "Warm calls, session 5"): its answer is the dearest to make again, a
# stream of distinct queries only pushes out what has not been asked for since, and a share of
# its own would be memory on top of the 8 MiB.
_REMEMBERED = frozenset({"resources/list", "resources/read", "skills/list", "skills/get"})
_REMEMBERED_TOOLS = frozenset(spec.name for spec in (SKILLS_LIST, SKILLS_SEARCH, SKILLS_GET, SKILLS_GET_FILE))


def answer_key(method: str, params: dict[str, Any], context: RequestContext) -> Hashable | None:
    """What the result of `method` with `params` depends on, when it is to be kept: the snapshot
    (SHA and activation time, as `published_at` shows), the caller's clearance (a cleared
    caller's answer must never reach another), the era and its ttlMs, the method and its
    arguments in a normal form (`_meta` left out: no result reads it). None: not kept."""
    view = context.view
    if view is None:
        return None
    if method == "tools/call":
        if params.get("name") not in _REMEMBERED_TOOLS:
            return None
    elif method not in _REMEMBERED:
        return None
    ref = view.ref
    return (
        ref.sha,
        ref.published_at,
        view.zdr_cleared,
        context.era,
        settings.MCP_CACHE_TTL_SECONDS,
        method,
        arguments_key(params),
    )


def arguments_key(params: dict[str, Any]) -> bytes | str:
    """One text per set of arguments, whatever order a client wrote them in (`_meta` left out),
    and another for any other arguments. orjson's (a fifth of json's cost on a warm call,
    docs/benchmarks.md "Warm calls, session 5"); json's where orjson could give one text for two
    different sets: it writes NaN and Infinity, which a body may hold, as null, so any text
    holding `null` is json's; it refuses lone surrogates and integers past 64 bits. The two
    kinds never meet: bytes never equal str. orjson's bytes are copied to their own size: a key
    kept with its answer would otherwise hold 4 KiB (mcpapi.spliced.kept)."""
    if "_meta" in params:
        params = {key: value for key, value in params.items() if key != "_meta"}
    try:
        encoded = orjson.dumps(params, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        return _ARGUMENTS.encode(params)
    return _ARGUMENTS.encode(params) if b"null" in encoded else spliced.kept(encoded)


_ARGUMENTS = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), sort_keys=True)


@dispatcher.register(
    "initialize",
    {
        "type": "object",
        "properties": {
            "protocolVersion": {"type": "string"},
            "capabilities": {"type": "object"},
            "clientInfo": {"type": "object"},
        },
        "required": ["protocolVersion"],
    },
)
def initialize(params: dict[str, Any], context: RequestContext) -> dict[str, Any]:
    return {
        "protocolVersion": eras.negotiate_version(params["protocolVersion"]),
        "capabilities": {
            "tools": {"listChanged": False},
            "resources": {"listChanged": False},
            "extensions": _EXTENSIONS,
        },
        "serverInfo": SERVER_INFO,
        "instructions": INSTRUCTIONS,
    }


@dispatcher.register("server/discover")
def discover(params: dict[str, Any], context: RequestContext) -> dict[str, Any]:
    # Lists never change while a client holds them (a publish is seen by the next request), so
    # nothing is offered to listen to. serverInfo also sits here, where earlier drafts had it.
    return {
        "supportedVersions": list(eras.SUPPORTED_VERSIONS),
        "capabilities": {"tools": {}, "resources": {}, "extensions": _EXTENSIONS},
        "serverInfo": SERVER_INFO,
        "instructions": INSTRUCTIONS,
    }


@dispatcher.register("ping")
def ping(params: dict[str, Any], context: RequestContext) -> dict[str, Any]:
    return {}


def _list_tools(params: dict[str, Any], view: SnapshotView | None) -> Any:
    if "cursor" in params:  # every tool fits the first page, so no cursor was ever handed out
        raise bad_cursor()
    return tools.tool_list(tools.bounds(view))


@reads_skills("tools/list", _CURSOR_PARAMS, before_publish=lambda params: _list_tools(params, None))
def list_tools(params: dict[str, Any], view: SnapshotView) -> Any:
    return _list_tools(params, view)


_TOOLS_CALL_PARAMS = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "arguments": {"type": "object"}},
    "required": ["name"],
}


def _call_tool(params: dict[str, Any], view: SnapshotView | None) -> Any:
    return tools.call(tools.find(params["name"]), params.get("arguments", {}), view)


@reads_skills("tools/call", _TOOLS_CALL_PARAMS, before_publish=lambda params: _call_tool(params, None))
def call_tool(params: dict[str, Any], view: SnapshotView) -> Any:
    return _call_tool(params, view)


@reads_skills(
    "resources/list",
    _CURSOR_PARAMS,
    before_publish=lambda params: resources.list_before_publish(params.get("cursor")),
)
def list_resources(params: dict[str, Any], view: SnapshotView) -> dict[str, Any]:
    return resources.list_resources(view, params.get("cursor"))


@dispatcher.register("resources/templates/list", _CURSOR_PARAMS)
def list_resource_templates(params: dict[str, Any], context: RequestContext) -> dict[str, Any]:
    return resources.list_templates(params.get("cursor"))


def _read_before_publish(params: dict[str, Any]) -> Any:
    raise resources.not_found(params["uri"])


@reads_skills(
    "resources/read",
    {"type": "object", "properties": {"uri": {"type": "string"}}, "required": ["uri"]},
    before_publish=_read_before_publish,
)
def read_resource(params: dict[str, Any], view: SnapshotView) -> Any:
    return resources.read_resource(view, params["uri"])


@reads_skills(
    "skills/list",
    _CURSOR_PARAMS,
    before_publish=lambda params: skills_ext.list_before_publish(params.get("cursor")),
)
def list_skills(params: dict[str, Any], view: SnapshotView) -> Any:
    return skills_ext.list_skills(view, params.get("cursor"))


def _get_skill_before_publish(params: dict[str, Any]) -> Any:
    raise skills_ext.not_found(params["uri"])


@reads_skills(
    "skills/get",
    {"type": "object", "properties": {"uri": {"type": "string"}}, "required": ["uri"]},
    before_publish=_get_skill_before_publish,
)
def get_skill(params: dict[str, Any], view: SnapshotView) -> Any:
    return skills_ext.get_skill(view, params["uri"])
