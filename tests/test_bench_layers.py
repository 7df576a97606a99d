"""bench/layers.py and the profile counting of bench/profiles.py: a fake collapsed stack
lands in the layer docs/benchmarks.md ("Where the time goes, session 4") names for it."""

import pytest

from bench.layers import PUBLISH_LAYERS, SERVE_LAYER_NAMES, SERVE_LAYERS, STARTUP, UNCLASSIFIED, layer_of
from bench.profiles import count_samples, frame_names
from tests.support.project import PROJECT_DIR

# The frames every request to /mcp runs under, outermost first, as py-spy writes them: paths
# relative to the sys.path entry they were found on, the project's own in full.
REQUEST = (
    f"Thread._bootstrap (threading.py:1002);_worker (concurrent/futures/thread.py:83);"
    f"ThreadWorker.handle (gunicorn/workers/gthread.py:553);"
    f"ThreadWorker.handle_request (gunicorn/workers/gthread.py:611);"
    f"WSGIHandler.__call__ (django/core/handlers/wsgi.py:124);"
    f"BaseHandler.get_response (django/core/handlers/base.py:140);"
    f"mcp ({PROJECT_DIR}/mcpapi/views.py:32)"
)


def stack(*inner: str) -> str:
    return ";".join((REQUEST, *inner))


def layer(*inner: str) -> str:
    return layer_of(frame_names(stack(*inner)))


def test_the_frames_are_read_without_the_project_path_nor_line_numbers() -> None:
    assert frame_names(f'process 12:"gunicorn";mcp ({PROJECT_DIR}/mcpapi/views.py:32)') == [
        "mcp (mcpapi/views.py)"
    ]


@pytest.mark.parametrize(
    ("inner", "expected"),
    [
        (("SecurityMiddleware.process_request (django/middleware/security.py:40)",), "Django"),
        ((f"JsonErrorsMiddleware.__call__ ({PROJECT_DIR}/skillsite/errors.py:30)",), "Django"),
        ((f"authenticate ({PROJECT_DIR}/accounts/authentication.py:51)",), "auth"),
        ((f"admit ({PROJECT_DIR}/mcpapi/admission.py:40)", "compare_digest (hmac.py:10)"), "auth"),
        (
            (f"parse_message ({PROJECT_DIR}/mcpapi/jsonrpc.py:69)", "loads (json/__init__.py:346)"),
            "parsing",
        ),
        ((f"parse_message ({PROJECT_DIR}/mcpapi/jsonrpc.py:70)",), "parsing"),
        ((f"validate_object ({PROJECT_DIR}/mcpapi/params.py:40)",), "parsing"),
        ((f"Dispatcher.dispatch ({PROJECT_DIR}/mcpapi/dispatch.py:90)",), "dispatch"),
        ((f"handle ({PROJECT_DIR}/mcpapi/protocol.py:60)",), "dispatch"),
        ((f"era_of ({PROJECT_DIR}/mcpapi/eras.py:20)",), "dispatch"),
        (
            (f"skills_list ({PROJECT_DIR}/mcpapi/tools.py:80)", f"page ({PROJECT_DIR}/catalog/index.py:300)"),
            "catalog",
        ),
        ((f"search ({PROJECT_DIR}/catalog/search.py:120)", "sub (re.py:185)"), "catalog"),
        # orjson is C: its time is jsonrpc's _dumps' own.
        (
            (
                f"encode_result ({PROJECT_DIR}/mcpapi/jsonrpc.py:112)",
                f"_dumps ({PROJECT_DIR}/mcpapi/jsonrpc.py:155)",
            ),
            "encoding",
        ),
        (
            (
                f"search_results ({PROJECT_DIR}/mcpapi/wire.py:130)",
                "JSONEncoder.iterencode (json/encoder.py:258)",
            ),
            "encoding",
        ),
        ((f"AnswerCache.get ({PROJECT_DIR}/mcpapi/answer_cache.py:52)",), "encoding"),
        # A result joined from its kept UTF-8 pieces is encoding, though no encoder runs.
        (
            (
                f"_call_tool_result ({PROJECT_DIR}/mcpapi/wire.py:60)",
                f"inner ({PROJECT_DIR}/mcpapi/spliced.py:90)",
            ),
            "encoding",
        ),
        ((f"record ({PROJECT_DIR}/mcpapi/access_log.py:40)", "uuid4 (uuid.py:723)"), "logging"),
        ((f"JsonFormatter.format ({PROJECT_DIR}/skillsite/logs.py:22)",), "logging"),
        (("Logger.info (logging/__init__.py:1489)",), "logging"),
        # An SQL query under the catalog is Django's ORM (the innermost layer wins).
        (
            (
                f"active_snapshot ({PROJECT_DIR}/catalog/revisions.py:30)",
                "execute (django/db/backends/sqlite3/base.py:328)",
            ),
            "Django",
        ),
    ],
)
def test_a_request_frame_lands_in_its_layer(inner: tuple[str, ...], expected: str) -> None:
    assert layer(*inner) == expected


@pytest.mark.parametrize(
    "frames",
    [
        # gthread's loop and thread pool, the socket write under gunicorn's, the head read.
        "Arbiter.run (gunicorn/arbiter.py:230);"
        "PollableMethodQueue.run_callbacks (gunicorn/workers/gthread.py:240)",
        f"{REQUEST.split(';WSGI')[0]};write (gunicorn/util.py:348);socket.sendall (socket.py:1)",
        "Thread.run (threading.py:982);_worker (concurrent/futures/thread.py:83);"
        "Future.set_result (concurrent/futures/_base.py:540)",
        f"HeadDeadlineWorker._on_head_bytes ({PROJECT_DIR}/skillsite/worker.py:230)",
    ],
)
def test_the_server_s_own_work_is_gunicorn_s(frames: str) -> None:
    assert layer_of(frame_names(frames)) == "gunicorn"


def test_every_layer_of_a_request_is_a_column_of_the_table() -> None:
    assert sorted(SERVE_LAYER_NAMES) == sorted(name for name, _ in SERVE_LAYERS)
    assert len(set(SERVE_LAYER_NAMES)) == len(SERVE_LAYER_NAMES) == 8


def test_the_standard_library_alone_is_no_layer_and_start_up_is_its_own() -> None:
    assert layer_of(["Thread.run (threading.py)", "sub (re.py)"]) == UNCLASSIFIED
    assert layer_of(["<module> (manage.py)", "_find_and_load (<frozen importlib._bootstrap>)"]) == STARTUP


def test_a_publish_keeps_its_own_layers() -> None:
    frames = frame_names(f"publish ({PROJECT_DIR}/catalog/publishing.py:10);load (yaml/__init__.py:79)")
    assert layer_of(frames, PUBLISH_LAYERS) == "YAML parsing"


def test_samples_are_counted_by_layer_with_idle_waits_left_out() -> None:
    text = "\n".join(
        [
            stack(f"page ({PROJECT_DIR}/catalog/index.py:300)") + " 3",
            stack("Logger.info (logging/__init__.py:1489)") + " 1",
            "Arbiter.run (gunicorn/arbiter.py:230);EpollSelector.select (selectors.py:468) 6",
            "not a stack line",
        ]
    )
    samples = count_samples(text)
    assert (samples.total, samples.idle) == (4, 6)
    assert samples.layers == {"catalog": 3, "logging": 1}
    assert samples.share("catalog") == 75.0
    assert samples.self_counts == {"page (catalog/index.py)": 3, "Logger.info (logging/__init__.py)": 1}
