"""Which browser origins may call /mcp: DNS-rebinding protection (docs/reference.md#http-surface,
docs/reference.md#callers-and-clearance).

A request without an Origin header is not judged here (non-browser clients send
none). With MCP_ALLOWED_ORIGINS set, an origin must be one of them: scheme, host
and port compared exactly (a default port written out or left implicit is the
same origin). Unset, an origin is allowed when its host is one of ALLOWED_HOSTS,
matched as Django matches the Host header ('*', '.example.com', exact names).
"""

from urllib.parse import urlsplit

from django.conf import settings
from django.http.request import split_domain_port, validate_host

_DEFAULT_PORTS = {"http": 80, "https": 443}

Origin = tuple[str, str, int]


def origin_allowed(origin: str) -> bool:
    parsed = parse_origin(origin)
    if parsed is None:
        return False
    if settings.MCP_ALLOWED_ORIGINS:
        return parsed in _configured_origins(tuple(settings.MCP_ALLOWED_ORIGINS))
    domain, _ = split_domain_port(urlsplit(origin).netloc.lower())
    return bool(domain) and validate_host(domain, settings.ALLOWED_HOSTS)


def parse_origin(value: str) -> Origin | None:
    """(scheme, host, port) of an http(s) origin, or None for anything else ("null" included)."""
    try:
        parts = urlsplit(value.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname or parts.username or parts.password:
        return None
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        return None
    return scheme, parts.hostname.lower(), port if port is not None else _DEFAULT_PORTS[scheme]


_configured_cache: dict[tuple[str, ...], frozenset[Origin]] = {}


def _configured_origins(configured: tuple[str, ...]) -> frozenset[Origin]:
    # Parsed once per distinct setting value (settings can be overridden in tests).
    origins = _configured_cache.get(configured)
    if origins is None:
        origins = frozenset(parsed for entry in configured if (parsed := parse_origin(entry)) is not None)
        _configured_cache[configured] = origins
    return origins
