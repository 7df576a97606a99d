"""GET / : what this server is and how to connect a client (docs/reference.md#http-surface).

A person who opens the registry's address in a browser learns its name, the active
snapshot, the MCP URL and the connect command of each documented client; a program
asking for JSON gets the same facts. Nothing about skills (not even how many: a count
would reveal ZDR skills) and no token: the commands name `$SKILLS_TOKEN`.
"""

import base64
import hashlib
import urllib.parse
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Self

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.utils.cache import patch_vary_headers
from django.utils.html import format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_safe

from catalog.index import active_snapshot
from mcpapi.identity import PRODUCT_NAME as NAME
from skillsite import connect

HTML = "text/html"
JSON = "application/json"

# The page's only style, inlined and allowed by its hash: the page runs no script and
# loads nothing, so its policy can refuse everything else.
_STYLE = (Path(__file__).resolve().parent / "templates" / "skillsite" / "landing.css").read_text()
_STYLE_HASH = base64.b64encode(hashlib.sha256(_STYLE.encode()).digest()).decode()
CONTENT_SECURITY_POLICY = (
    f"default-src 'none'; style-src 'sha256-{_STYLE_HASH}'; img-src data:; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


# The mark beside the name, and the page's favicon (a data: URL, so nothing is fetched for it).
_ICON_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32" width="48" height="48" aria-hidden="true">'
    '<rect width="32" height="32" rx="8" fill="#4338ca"/>'
    '<rect x="7" y="8" width="18" height="4" rx="2" fill="#ffffff"/>'
    '<rect x="7" y="14" width="18" height="4" rx="2" fill="#c7d2fe"/>'
    '<rect x="7" y="20" width="11" height="4" rx="2" fill="#a5b4fc"/>'
    "</svg>"
)
_ICON_HREF = "data:image/svg+xml," + urllib.parse.quote(_ICON_SVG, safe="")


@dataclass(frozen=True, slots=True)
class Landing:
    """What the page says."""

    mcp_url: str
    healthz_url: str
    registry_sha: str | None
    published_at: datetime | None
    clients: tuple[connect.ClientCommand, ...]

    @classmethod
    def for_request(cls, request: HttpRequest) -> Self:
        # build_absolute_uri: the Host that ALLOWED_HOSTS admitted, and https only when the
        # configured proxy header says so.
        mcp_url = request.build_absolute_uri("/mcp")
        ref = active_snapshot()
        return cls(
            mcp_url=mcp_url,
            healthz_url=request.build_absolute_uri("/healthz"),
            registry_sha=ref.sha if ref is not None else None,
            published_at=ref.published_at if ref is not None else None,
            clients=connect.clients(mcp_url),
        )

    def as_json(self) -> dict[str, Any]:
        return {
            "name": NAME,
            "registry_sha": self.registry_sha,
            "published_at": self.published_at.isoformat() if self.published_at is not None else None,
            "mcp_url": self.mcp_url,
            "clients": [{"name": client.name, "command": client.command} for client in self.clients],
        }


def _unbroken_words(command: str) -> SafeString:
    """The command's words each kept whole: a line may wrap between words, never inside one
    at a hyphen ("--header" split as "-" / "-header" reads as another command). The text a
    person copies is unchanged."""
    lines = (
        format_html_join(" ", '<span class="word">{}</span>', ((word,) for word in line.split(" ")))
        for line in command.split("\n")
    )
    return mark_safe("\n".join(lines))  # noqa: S308 - every word escaped by format_html_join


def _published(when: datetime | None) -> dict[str, str]:
    """The publication time as a <time> element states it (whole seconds, UTC) and as shown."""
    if when is None:
        return {}
    utc = when.astimezone(UTC)
    return {
        "published_datetime": utc.isoformat(timespec="seconds"),
        "published_shown": utc.strftime("%Y-%m-%d %H:%M:%S UTC"),
    }


# csrf_exempt: nothing here changes state, so a POST is refused as a method (405), not as a forgery.
@csrf_exempt
@require_safe
def landing(request: HttpRequest) -> HttpResponse:
    page = Landing.for_request(request)
    if request.get_preferred_type([HTML, JSON]) == JSON:
        response: HttpResponse = JsonResponse(page.as_json())
    else:
        response = _html(page)
    patch_vary_headers(response, ["Accept"])
    # The active snapshot changes with every publish: never serve a stale one from a cache.
    response["Cache-Control"] = "no-store"
    return response


def _html(page: Landing) -> HttpResponse:
    context = {
        "name": NAME,
        "page": page,
        # The project's own markup, never anything a request or a skill brings.
        "style": mark_safe(_STYLE),  # noqa: S308
        "icon_svg": mark_safe(_ICON_SVG),  # noqa: S308
        "icon_href": _ICON_HREF,
        **_published(page.published_at),
        "token_variable": connect.TOKEN_VARIABLE,
        "export_token": _unbroken_words(connect.export_token("<your token>")),
        "commands": [(client, _unbroken_words(client.command)) for client in page.clients],
    }
    response = HttpResponse(render_to_string("skillsite/landing.html", context))
    response["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    return response


@csrf_exempt
@require_safe
def favicon(request: HttpRequest) -> HttpResponse:
    """No icon file: the page declares its own inline; other clients get an empty answer."""
    response = HttpResponse(status=204)
    response["Cache-Control"] = "public, max-age=86400"
    return response
