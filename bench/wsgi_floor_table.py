"""The table of bench/wsgi_floor.py: callgrind's dumps read by label, one repetition's count
(the difference of two counts over the difference of repetitions), and the per-piece rows."""

from __future__ import annotations

from pathlib import Path


def totals(directory: Path) -> dict[str, int]:
    """Each dump's instructions, by its label ("desc: Trigger: dump LABEL", "totals: N")."""
    found: dict[str, int] = {}
    for path in directory.glob("callgrind.out*"):
        label = total = None
        for line in path.read_text(errors="replace").splitlines():
            if line.startswith("desc: Trigger: dump "):
                label = line.removeprefix("desc: Trigger: dump ")
            elif line.startswith("totals:"):
                total = int(line.split()[1])
        if label is not None and total is not None:
            found[label] = total
    return found


def per_repetition(figures: dict[str, int], small: int, large: int) -> dict[str, float]:
    labels = {label.rsplit(":", 1)[0] for label in figures}
    return {
        label: (figures[f"{label}:{large}"] - figures[f"{label}:{small}"]) / (large - small)
        for label in labels
        if f"{label}:{large}" in figures and f"{label}:{small}" in figures
    }


MIDDLEWARE = (
    "McpLane",
    "SecurityMiddleware",
    "JsonErrorsMiddleware",
    "CommonMiddleware",
    "CsrfViewMiddleware",
    "XFrameOptionsMiddleware",
)
# Pieces measured alone (less the loop's own cost, the item "nothing"), in the order a request meets them.
ALONE = (
    ("request_started receivers (reset_queries, close_old_connections)", "started"),
    ("WSGIRequest(environ)", "wsgirequest"),
    ("URL resolution (/mcp, first pattern)", "resolve"),
    ("request id (X-Request-ID or a fresh one)", "request_id"),
    ("admission and auth (screen, token, budget)", "caller"),
    ("body read (Accept, Content-Type, length, read)", "wsgirequest+body"),
    ("JSON-RPC parse", "parse"),
    ("era, dispatch, answer (skills_get: snapshot query, answer cache)", "answer"),
    ("response built (HttpResponse, its headers)", "response"),
    ("the access line, alone", "access_line"),
    ("request_finished receivers (close(): close_old_connections, close_caches, reset_urlconf)", "finished"),
)


def table(counts: dict[str, float], unit: str) -> str:
    """The decomposition, one row a piece: ceiling, ping and warm skills_get, in `unit` a request."""

    def cell(value: float | None) -> str:
        return "" if value is None else f"{value:,.0f}"

    def alone(request: str, label: str) -> float | None:
        """A piece alone, less the loop's own cost; a piece skills_get shares is ping's."""
        key = f"{request}.{label}" if f"{request}.{label}" in counts else f"ping.{label}"
        if key not in counts or "ping.nothing" not in counts:
            return None
        if label == "wsgirequest+body":  # the read alone: less the request it reads from
            return counts[key] - counts[key.replace("+body", "")]
        return counts[key] - counts["ping.nothing"]

    def removed(request: str, piece: str) -> float | None:
        key = f"{request}-{piece}"
        return counts[request] - counts[key] if key in counts and request in counts else None

    lines = [
        f"| {unit} a request | ceiling | ping | warm skills_get | measured |",
        "|---|---:|---:|---:|---|",
    ]

    def row(title: str, values: list[float | None], how: str) -> None:
        lines.append(f"| {title} | {' | '.join(cell(value) for value in values)} | {how} |")

    whole = [counts.get("ceiling"), counts.get("ping"), counts.get("skills_get")]
    row("the whole request", whole, "whole")
    gunicorn = [
        counts.get("ceiling:gunicorn"),
        counts.get("ping:gunicorn"),
        counts.get("skills_get:gunicorn"),
    ]
    row("gunicorn (head, environ, status line, headers, write)", gunicorn, "a still app, same answer")
    app = [None if w is None or g is None else w - g for w, g in zip(whole, gunicorn, strict=True)]
    row("the application (Django and the view)", app, "whole − gunicorn")
    requests = ("ping", "skills_get")
    for name in (*MIDDLEWARE, "signals", "access_line"):
        title = {"signals": "the signal receivers, both signals", "access_line": "the access line, in place"}
        row(title.get(name, name), [None, *(removed(r, name) for r in requests)], "whole − without it")
    known = [0.0, 0.0]
    for title, label in ALONE:
        values = [alone(r, label) for r in requests]
        if label != "access_line":
            known = [k + (v or 0) for k, v in zip(known, values, strict=True)]
        row(title, [None, *values], "alone")
    middleware = [sum(removed(r, name) or 0 for name in MIDDLEWARE) for r in requests]
    access = [removed(r, "access_line") or 0 for r in requests]
    rest = [
        None if a is None else a - k - m - x
        for a, k, m, x in zip(app[1:], known, middleware, access, strict=True)
    ]
    row("the rest (Django's handler, the middleware chain, the view's glue)", [None, *rest], "the rest")
    return "\n".join(lines)
