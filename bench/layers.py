"""Which layer of the code a py-spy sample belongs to (bench/profiles.py; docs/benchmarks.md
"Where the time goes, session 4").

A sample is a stack of frames, outermost first, each "function (path)" with the project's
own paths relative to it ("mcp (mcpapi/views.py)") and the line numbers removed. It is
charged to the first layer found walking the stack from the innermost frame out, so a JSON
encoder under the catalog is encoding and an SQL query under the catalog is Django's ORM. A
frame of no layer (the standard library's re, uuid, socket, threading, ...) is charged to the
layer of the nearest frame that has one: socket.send under gunicorn's write is gunicorn's.
"""

from __future__ import annotations

from collections.abc import Sequence

# The layers of a request to /mcp, in the order the table shows them. Within one frame the
# first layer (in this order) whose needle the frame contains wins: jsonrpc's parse_message
# is parsing before the rest of jsonrpc.py is encoding. orjson and sqlite3 are C: their time
# is their Python caller's own (jsonrpc's _dumps is encoding, Django's execute is Django).
SERVE_LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    # gthread's thread pool is concurrent.futures: handing a request over and back is gunicorn's.
    (
        "gunicorn",
        ("gunicorn/", "(skillsite/worker.py)", "(skillsite/drain.py)", "concurrent/futures/"),
    ),
    (
        "logging",
        ("logging/", "(skillsite/logs.py)", "(mcpapi/access_log.py)"),
    ),
    (
        "auth",
        (
            "(accounts/",
            "(mcpapi/admission.py)",
            "(mcpapi/identity.py)",
            "(mcpapi/origin.py)",
            "(mcpapi/throttling.py)",
            "(oauth/",
        ),
    ),
    (
        "parsing",
        (
            "parse_message (mcpapi/jsonrpc.py)",
            "_is_valid_id (mcpapi/jsonrpc.py)",
            "(mcpapi/params.py)",
            "json/decoder.py",
            "loads (json/__init__.py)",
        ),
    ),
    (
        "encoding",
        (
            "(mcpapi/jsonrpc.py)",
            "(mcpapi/wire.py)",
            "(mcpapi/spliced.py)",
            "(mcpapi/answer_cache.py)",
            "(mcpapi/answer_size.py)",
            "json/encoder.py",
            "dumps (json/__init__.py)",
        ),
    ),
    ("catalog", ("(catalog/",)),
    ("dispatch", ("(mcpapi/",)),
    ("Django", ("django/", "(skillsite/")),
)
# The table's columns: from the request's way in to its way out, the server last.
SERVE_LAYER_NAMES = ("Django", "auth", "parsing", "dispatch", "catalog", "encoding", "logging", "gunicorn")

# The layers of a publish (manage.py publish): what reading a repository is made of.
PUBLISH_LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "JSON encoding/decoding",
        ("json/encoder.py", "json/decoder.py", "json/__init__.py", "(mcpapi/jsonrpc.py)"),
    ),
    ("YAML parsing", ("yaml/",)),
    ("git (reading objects)", ("git/", "gitdb/", "(catalog/trees.py)")),
    ("database (Django ORM + sqlite3)", ("django/db/",)),
    ("catalog (index, search, validation, publishing)", ("(catalog/",)),
    ("accounts (authentication)", ("(accounts/",)),
    ("access log (logging)", ("logging/__init__.py", "(mcpapi/access_log.py)", "(skillsite/logs.py)")),
    ("mcpapi (protocol, dispatch, tools)", ("(mcpapi/",)),
    ("Django request/response and middleware", ("django/",)),
    ("gunicorn HTTP parsing, socket I/O, worker loop", ("gunicorn/", "socket.py")),
)

STARTUP = "imports, Django setup and system checks"
_STARTUP_NEEDLES = ("<frozen importlib", "django/core/checks/", "setup (django/__init__.py)")
# A stack with no frame of any layer: only the interpreter's and the standard library's.
UNCLASSIFIED = "other"


def layer_of(frames: Sequence[str], layers: Sequence[tuple[str, tuple[str, ...]]] = SERVE_LAYERS) -> str:
    """The layer a sample (its frames, outermost first) is charged to."""
    # Anything under an import or Django's start-up (system checks included) is start-up cost.
    if any(needle in frame for frame in frames for needle in _STARTUP_NEEDLES):
        return STARTUP
    for frame in reversed(frames):
        for layer, needles in layers:
            if any(needle in frame for needle in needles):
                return layer
    return UNCLASSIFIED
