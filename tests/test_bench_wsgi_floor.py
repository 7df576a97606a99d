"""bench/wsgi_memory.py and bench/wsgi_floor.py: gunicorn's WSGI path in memory serves keep-alive
requests one after the other, and the table is the difference of two counts over the difference
of repetitions."""

from pathlib import Path
from typing import Any

from bench import wsgi_floor, wsgi_floor_table, wsgi_memory
from bench.servers import TOKEN


def test_gunicorns_path_serves_each_request_of_a_kept_alive_connection() -> None:
    bodies: list[bytes] = []

    def application(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        bodies.append(environ["wsgi.input"].read())
        assert environ["HTTP_MCP_PROTOCOL_VERSION"] == "2025-11-25"
        assert environ["HTTP_AUTHORIZATION"] == f"Bearer {TOKEN}"
        start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", "2")])
        return [b"{}"]

    server = wsgi_memory.Gunicorn(application)
    wsgi_floor.requests_of(server, b'{"ping": 1}')(3)
    assert bodies == [b'{"ping": 1}'] * 3
    assert server.statuses == {"200 OK"}
    assert server.connection.sent > 3 * len(b"HTTP/1.1 200 OK\r\n")


def test_a_dumps_count_is_read_by_its_label_and_a_repetition_is_the_difference(tmp_path: Path) -> None:
    for number, (label, total) in enumerate((("ping:50", 1_000_000), ("ping:250", 5_000_000))):
        (tmp_path / f"callgrind.out.{number + 1}").write_text(
            f"version: 1\ndesc: Trigger: dump {label}\nsummary: 0\ntotals: {total}\n"
        )
    counts = wsgi_floor_table.per_repetition(wsgi_floor_table.totals(tmp_path), 50, 250)
    assert counts == {"ping": 20_000.0}
    assert "| the whole request |  | 20,000 |  | whole |" in wsgi_floor_table.table(counts, "instructions")
