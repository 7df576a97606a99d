"""The measured requests, the bench's own checks of their answers, and the load runs (wrk)."""

from __future__ import annotations

import json
import os
import re
import shutil
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from bench import corpus as corpus_mod
from bench.measure import (
    CLK_TCK,
    BenchError,
    machine_busy_ticks,
    run_measured,
    server_cpu_ticks,
    worker_cpu_ticks,
)
from tests.support.processes import children_of, connections_held
from tests.support.project import PROJECT_DIR

LUA_SCRIPT = PROJECT_DIR / "bench" / "wrk" / "post.lua"
# The cold rows' script: a list of bodies in turn (bench/cold.py).
CYCLE_SCRIPT = PROJECT_DIR / "bench" / "wrk" / "cycle.lua"
PROTOCOL_VERSION = "2025-11-25"
MCP_HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": PROTOCOL_VERSION,
}
# The measured search: two topic words (tags in this corpus), found in ~15% of the skills, as an
# agent looking for a skill would ask. The broad one uses two common verbs found in most skills'
# text: the ranking then orders most of the corpus (informational, no target).
SEARCH_QUERY = "postgres migrations"
BROAD_SEARCH_QUERY = "deploy rollback"
BROAD_SEARCH = "skills_search (broad)"
# MCP's ping: the whole /mcp path (auth, parsing, dispatch, JSON reply) without a tool: the floor.
PING = "ping (the /mcp floor)"


def post_json(url: str, body: dict, token: str | None, timeout: float = 30.0) -> tuple[int, dict, int]:
    headers = dict(MCP_HEADERS)
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            raw = response.read()
            status = response.status
    except urllib.error.HTTPError as exc:
        raw = exc.read()
        status = exc.code
    try:
        payload = json.loads(raw) if raw else {}
    except ValueError:
        payload = {"unparsed": raw[:200].decode(errors="replace")}
    return status, payload, len(raw)


def get_status(url: str, timeout: float = 5.0) -> int:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


def tool_call(name: str, arguments: dict) -> dict:
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }


@dataclass
class Operation:
    name: str
    body: dict
    path: str = "/mcp"


def operations(corpus: corpus_mod.Corpus) -> list[Operation]:
    """The five measured requests, aimed at typical (median-sized) visible content."""
    visible = [entry for entry in corpus.entries if not entry.required_zdr]
    by_md = sorted(visible, key=lambda entry: (entry.skill_md_size, entry.id))
    skill = by_md[len(by_md) // 2]
    with_files = sorted(
        ((f.size, entry.id, f.path) for entry in visible for f in entry.files if f.size <= 65536),
    )
    _, file_skill, file_path = with_files[len(with_files) // 2]
    return [
        Operation(PING, {"jsonrpc": "2.0", "id": 1, "method": "ping"}),
        Operation("skills_list", tool_call("skills_list", {"limit": 50})),
        Operation("skills_search", tool_call("skills_search", {"query": SEARCH_QUERY, "limit": 20})),
        Operation(BROAD_SEARCH, tool_call("skills_search", {"query": BROAD_SEARCH_QUERY, "limit": 20})),
        Operation("skills_get", tool_call("skills_get", {"id": skill.id})),
        Operation("skills_get_file", tool_call("skills_get_file", {"id": file_skill, "path": file_path})),
        Operation(
            "resources/read",
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "resources/read",
                "params": {"uri": f"skill://{skill.id}/SKILL.md"},
            },
        ),
    ]


def check_answer(operation: Operation, status: int, payload: dict) -> str | None:
    """Why this answer is not a real success, or None: a bench must not time error replies."""
    if status != 200:
        return f"HTTP {status}: {json.dumps(payload)[:300]}"
    if "error" in payload:
        return f"JSON-RPC error: {json.dumps(payload['error'])[:300]}"
    result = payload.get("result") or {}
    if operation.body.get("method") == "tools/call":
        if result.get("isError"):
            return f"tool error: {json.dumps(result.get('structuredContent'))[:300]}"
        content = result.get("structuredContent") or {}
        name = operation.name
        if name == "skills_list" and len(content.get("skills", [])) != 50:
            return f"skills_list returned {len(content.get('skills', []))} skills, not 50"
        if name.startswith("skills_search") and not content.get("results"):
            return "skills_search found nothing: the query measures no ranking work"
    elif operation.body.get("method") == "ping":
        if result != {}:
            return f"ping answered {json.dumps(result)[:200]}"
    elif operation.body.get("method") == "resources/read" and not result.get("contents"):
        return "resources/read returned no contents"
    return None


def wrk_available() -> str | None:
    return shutil.which("wrk")


@dataclass
class LoadResult:
    name: str
    requests: int = 0
    seconds: float = 0.0
    rps: float = 0.0
    p50_ms: float = 0.0
    p90_ms: float = 0.0
    p99_ms: float = 0.0
    max_ms: float = 0.0
    errors: int = 0
    non_2xx: int = 0
    bytes_per_request: float = 0.0
    server_cpu_ms_per_req: float = 0.0
    server_user_ms_per_req: float = 0.0
    server_system_ms_per_req: float = 0.0
    server_cores: float = 0.0
    wrk_cpu_ms_per_req: float = 0.0
    other_cores: float = 0.0
    extra: dict = field(default_factory=dict)


def run_wrk(
    url: str,
    body: dict | list[dict],
    token: str | None,
    duration: float,
    connections: int,
    threads: int,
    master: int | None,
    workdir: Path,
    name: str,
) -> LoadResult:
    """One wrk run: `body` on every request, or each body of a list in turn (a cold row)."""
    body_file = workdir / f"body-{re.sub(r'[^a-z0-9]+', '-', name.lower())}.json"
    if isinstance(body, list):
        body_file.write_text("".join(json.dumps(one) + "\n" for one in body))
        script, variable = CYCLE_SCRIPT, "WRK_BODIES_FILE"
    else:
        body_file.write_text(json.dumps(body))
        script, variable = LUA_SCRIPT, "WRK_BODY_FILE"
    env = {**os.environ, variable: str(body_file), "WRK_TOKEN": token or ""}
    argv = [
        "wrk",
        f"-t{threads}",
        f"-c{connections}",
        f"-d{max(1, round(duration))}s",
        "--timeout",
        "10s",
        "--latency",
        "-s",
        str(script),
        url,
    ]
    workers = children_of(master) if master else []
    held: dict[int, int] = {}
    # Mid-run, when every wrk connection is open: which worker holds how many of them.
    sampler = threading.Timer(duration / 2, lambda: held.update(connections_held(workers, _port(url))))
    cpu_before = server_cpu_ticks(master) if master else (0, 0)
    per_worker_before = worker_cpu_ticks(workers)
    busy_before, total_before = machine_busy_ticks()
    if workers:
        sampler.start()
    measured = run_measured(argv, env, timeout=duration + 60)
    sampler.cancel()
    busy_after, total_after = machine_busy_ticks()
    per_worker_after = worker_cpu_ticks(workers)
    cpu_after = server_cpu_ticks(master) if master else (0, 0)
    if measured.returncode != 0:
        raise BenchError(f"wrk failed ({measured.returncode}): {measured.stderr.strip()[:500]}")
    match = re.search(r"^WRK_JSON (\{.*\})$", measured.stdout, flags=re.MULTILINE)
    if not match:
        raise BenchError(f"wrk printed no summary:\n{measured.stdout}\n{measured.stderr}")
    data = json.loads(match.group(1))
    requests = max(1, data["requests"])
    seconds = data["duration_us"] / 1e6
    latency = data["latency_us"]
    errors = data["errors"]
    user_s = (cpu_after[0] - cpu_before[0]) / CLK_TCK
    system_s = (cpu_after[1] - cpu_before[1]) / CLK_TCK
    server_s = user_s + system_s
    cores = os.cpu_count() or 1
    wall_cores = (total_after - total_before) / cores  # elapsed jiffies on one CPU
    busy_cores = (busy_after - busy_before) / max(1, wall_cores)
    # Everything else on the machine: busy CPUs minus the server and wrk themselves.
    other = busy_cores - (server_s + measured.cpu_s) / max(seconds, 1e-9)
    return LoadResult(
        name=name,
        requests=data["requests"],
        seconds=round(seconds, 3),
        rps=data["requests"] / seconds,
        p50_ms=latency["p50"] / 1000,
        p90_ms=latency["p90"] / 1000,
        p99_ms=latency["p99"] / 1000,
        max_ms=latency["max"] / 1000,
        errors=errors["connect"] + errors["read"] + errors["write"] + errors["timeout"],
        non_2xx=errors["status"],
        bytes_per_request=data["bytes"] / requests,
        server_cpu_ms_per_req=server_s * 1000 / requests,
        server_user_ms_per_req=user_s * 1000 / requests,
        server_system_ms_per_req=system_s * 1000 / requests,
        server_cores=server_s / max(seconds, 1e-9),
        wrk_cpu_ms_per_req=measured.cpu_s * 1000 / requests,
        other_cores=max(0.0, other),
        extra={
            "wrk_stdout": measured.stdout,
            "per_worker": per_worker(per_worker_before, per_worker_after, held, seconds),
        },
    )


def _port(url: str) -> int:
    return int(re.match(r"https?://[^/:]+:(\d+)", url).group(1))  # type: ignore[union-attr]


def per_worker(
    before: dict[int, int], after: dict[int, int], held: dict[int, int], seconds: float
) -> list[dict]:
    """Each worker's share of the run, busiest first: the cores it kept busy (user + system
    ticks over the run's wall time; one worker's threads share one GIL, so about 1.0 at most)
    and the client connections it held mid-run. A run whose load piles onto one worker shows
    one worker near 1.0 and the others near 0."""
    rows = [
        {
            "pid": pid,
            "cores": round((after[pid] - before[pid]) / CLK_TCK / max(seconds, 1e-9), 3),
            "connections": held.get(pid, 0),
        }
        for pid in before
        if pid in after
    ]
    return sorted(rows, key=lambda row: (-row["cores"], -row["connections"]))


def format_per_worker(rows: list[dict]) -> str:
    """'0.98/0.51/0.02 cores, 5/2/1 conns': the busiest worker first."""
    cores = "/".join(f"{row['cores']:.2f}" for row in rows)
    conns = "/".join(str(row["connections"]) for row in rows)
    return f"{cores} cores, {conns} conns"


def format_load(result: LoadResult) -> str:
    return (
        f"{result.name:<24} {result.rps:8.0f} req/s  p50 {result.p50_ms:6.2f} ms  p99 {result.p99_ms:7.2f} ms"
        f"  server {result.server_cpu_ms_per_req:5.2f} ms CPU/req ({result.server_user_ms_per_req:.2f} user"
        f" + {result.server_system_ms_per_req:.2f} sys)  wrk {result.wrk_cpu_ms_per_req:.3f}"
        f"  other load {result.other_cores:.2f} cores  errors {result.errors + result.non_2xx}"
        + (
            f"  workers {format_per_worker(result.extra['per_worker'])}"
            if result.extra.get("per_worker")
            else ""
        )
    )


def asdict_load(result: LoadResult) -> dict:
    data = dict(result.__dict__)
    extra = data.pop("extra")
    data.update({key: value for key, value in extra.items() if key != "wrk_stdout"})
    return data
