"""The registry benchmark: publish and serve a generated corpus, against the ceiling, in one run.

    .venv/bin/python -m bench.run --quick            # make bench: 1,000 skills, 4 s per load run
    .venv/bin/python -m bench.run --skills 10000     # make bench-full: 10,000 skills, 10 s per run

Steps, all against 127.0.0.1 only, every loop bounded in time and count:

1. a seeded corpus (bench/corpus.py, built in a child process) committed into a temporary git
   repository (on /dev/shm when there is one: building the corpus is not what is measured);
2. `manage.py migrate`, then `manage.py publish <sha>` into a fresh SQLite file (on disk), then
   a one-skill change published on top, then the same SHA again (a no-op): wall time, CPU time
   and peak RSS of each process (GNU time; wait4 as a fallback);
3. gunicorn with the production gunicorn.conf.py serving the ceiling (bench/ceiling/), the
   ceiling with the registry's middleware, and the registry against the published database,
   all at once; every row runs between two ceiling runs (paired ratios). wrk with
   bench/wrk/post.lua drives `--connections` keep-alive connections for `--duration` seconds.
   For each row: requests/s, p50/p99 latency, server CPU ms per request (user + system ticks of
   the gunicorn master and workers from /proc/<pid>/stat, before and after), wrk's own CPU, and
   how busy the rest of the machine was meanwhile (noise);
4. RSS of every worker (/proc/<pid>/status VmRSS) after boot, after the first requests of each
   kind, and after the load runs;
5. a Markdown report (printed, and written to bench/out/results-<N>.md with the JSON beside it),
   the issue 7 targets marked PASS or MISS.

`--profile` adds py-spy runs, never mixed into the measured numbers: the publish from empty and
the one-skill change, and each operation on one worker with one connection; collapsed stacks
and summaries (cost by layer, self and inclusive time) land in bench/out/profile-<N>/.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from bench import corpus as corpus_mod

PROJECT_DIR = Path(__file__).resolve().parent.parent
BENCH_DIR = PROJECT_DIR / "bench"
LUA_SCRIPT = BENCH_DIR / "wrk" / "post.lua"
CLK_TCK = os.sysconf("SC_CLK_TCK")
TOKEN = "bench-static-read-token"
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
CEILING_APP = "bench.ceiling.wsgi:application"
CEILING_MW = "ceiling + product middleware"

# Targets of issue 7 (ratios are to the ceiling measured in the same run).
TOOL_RATIO_TARGET_1K = 0.7
SEARCH_RATIO_TARGET_10K = 0.4
PUBLISH_10K_SECONDS = 60.0
CHANGE_SECONDS = 5.0
PUBLISH_PEAK_MB = 500.0
WORKER_RSS_MB_10K = 200.0


class BenchError(Exception):
    pass


# ---------------------------------------------------------------------------------------------
# Processes


@dataclass
class Measured:
    argv: list[str]
    returncode: int
    wall_s: float
    cpu_s: float
    peak_rss_mb: float
    stdout: str
    stderr: str


GNU_TIME = "/usr/bin/time"


def run_measured(argv: list[str], env: dict, timeout: float, cwd: Path = PROJECT_DIR) -> Measured:
    """Run a command to completion; its own wall time, CPU time and peak RSS.

    The peak RSS comes from GNU time (/usr/bin/time, a tiny process) when it is installed: a
    child started straight from this process would report this process's RSS high-water mark
    as its own ru_maxrss when that is larger (Linux counts the pre-exec copy of the address
    space), so wait4's figure is only the fallback.
    """
    with tempfile.TemporaryDirectory(prefix="bench-run-") as tmp:
        time_file = Path(tmp) / "time.txt"
        use_time = os.access(GNU_TIME, os.X_OK)
        full = [GNU_TIME, "-f", "%e %U %S %M", "-o", str(time_file), *argv] if use_time else argv
        with (Path(tmp) / "out").open("w+b") as out, (Path(tmp) / "err").open("w+b") as err:
            started = time.perf_counter()
            proc = subprocess.Popen(full, cwd=cwd, env=env, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
            timer = threading.Timer(timeout, _kill, args=(proc.pid,))
            timer.start()
            try:
                _, status, usage = os.wait4(proc.pid, 0)
            finally:
                timer.cancel()
            wall = time.perf_counter() - started
            proc.returncode = os.waitstatus_to_exitcode(status)
            out.seek(0)
            err.seek(0)
            stdout = out.read().decode(errors="replace")
            stderr = err.read().decode(errors="replace")
        cpu = usage.ru_utime + usage.ru_stime
        peak_kb = usage.ru_maxrss  # Linux: kilobytes
        if use_time and time_file.exists():
            # The last line holds the figures ("Command exited with non-zero status N" may precede it).
            fields = time_file.read_text().split()
            if len(fields) >= 4 and fields[-1].isdigit():
                _, user, system, peak = fields[-4:]
                cpu = float(user) + float(system)
                peak_kb = int(peak)
        return Measured(
            argv=argv,
            returncode=proc.returncode,
            wall_s=wall,
            cpu_s=cpu,
            peak_rss_mb=peak_kb / 1024,
            stdout=stdout,
            stderr=stderr,
        )


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def proc_stat(pid: int) -> list[str] | None:
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    return raw.rpartition(")")[2].split()  # [0] is field 3 (state): field n is [n - 3]


def children_of(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = proc_stat(int(entry))
            if fields and int(fields[1]) == pid:
                found.append(int(entry))
    return sorted(found)


def server_cpu_ticks(master: int) -> tuple[int, int]:
    """(user, system) CPU ticks of a gunicorn master (reaped children included) and its live workers."""
    user = system = 0
    fields = proc_stat(master)
    if fields:
        user += int(fields[11]) + int(fields[13])  # utime + cutime
        system += int(fields[12]) + int(fields[14])  # stime + cstime
    for worker in children_of(master):
        fields = proc_stat(worker)
        if fields:
            user += int(fields[11])
            system += int(fields[12])
    return user, system


def machine_busy_ticks() -> tuple[int, int]:
    """(busy, total) jiffies over all CPUs from /proc/stat."""
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = values[3] + values[4]  # idle + iowait
    total = sum(values[:8])  # user nice system idle iowait irq softirq steal
    return total - idle, total


def rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except FileNotFoundError:
        return None
    return None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


_GUNICORN_KEYS = ("workers", "worker_class", "threads", "keepalive", "timeout")


def gunicorn_settings(env: dict) -> dict:
    """What gunicorn.conf.py resolves to under `env` (it reads GUNICORN_* variables)."""
    code = (
        "import json, runpy, sys; conf = runpy.run_path(sys.argv[1]); "
        f"print(json.dumps({{key: conf.get(key) for key in {_GUNICORN_KEYS!r}}}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, str(PROJECT_DIR / "gunicorn.conf.py")],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    if result.returncode != 0:
        raise BenchError(f"gunicorn.conf.py does not load: {result.stderr.strip()[-500:]}")
    settings = json.loads(result.stdout)
    # gunicorn's own defaults for what the file leaves out.
    defaults = {"workers": 1, "worker_class": "sync", "threads": 1, "keepalive": 2, "timeout": 30}
    return {key: defaults[key] if settings.get(key) is None else settings[key] for key in _GUNICORN_KEYS}


class Gunicorn:
    """gunicorn with the production config file, on 127.0.0.1, stopped for sure on exit."""

    def __init__(self, app: str, env: dict, log_path: Path, label: str) -> None:
        self.app = app
        self.env = env
        self.log_path = log_path
        self.label = label
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen | None = None
        self._expected: int | None = None

    def __enter__(self) -> Gunicorn:
        gunicorn = Path(sys.executable).parent / "gunicorn"
        argv = [
            str(gunicorn),
            "--config",
            str(PROJECT_DIR / "gunicorn.conf.py"),
            "--bind",
            f"127.0.0.1:{self.port}",
            self.app,
        ]
        self._log = self.log_path.open("ab")
        self.proc = subprocess.Popen(
            argv, cwd=PROJECT_DIR, env=self.env, stdout=self._log, stderr=subprocess.STDOUT
        )
        return self

    def wait_ready(self, probe, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise BenchError(
                    f"{self.label}: gunicorn exited ({self.proc.returncode}); see {self.log_path}"
                )
            try:
                if probe(self.url):
                    # Every worker booted, not just the first one that answered.
                    if len(self.workers()) >= self.expected_workers():
                        return
            except (OSError, urllib.error.URLError) as exc:
                last = exc
            time.sleep(0.2)
        raise BenchError(f"{self.label}: not ready after {timeout:.0f} s ({last}); see {self.log_path}")

    def expected_workers(self) -> int:
        if self._expected is None:
            self._expected = int(gunicorn_settings(self.env)["workers"])
        return self._expected

    def workers(self) -> list[int]:
        return children_of(self.proc.pid) if self.proc else []

    def __exit__(self, *exc_info) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self._log.close()


# ---------------------------------------------------------------------------------------------
# HTTP (the bench's own checks; the load itself is wrk)


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
    elif not result.get("contents"):
        return "resources/read returned no contents"
    return None


# ---------------------------------------------------------------------------------------------
# wrk


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
    body: dict,
    token: str | None,
    duration: float,
    connections: int,
    threads: int,
    master: int | None,
    workdir: Path,
    name: str,
) -> LoadResult:
    body_file = workdir / f"body-{re.sub(r'[^a-z0-9]+', '-', name.lower())}.json"
    body_file.write_text(json.dumps(body))
    env = {**os.environ, "WRK_BODY_FILE": str(body_file), "WRK_TOKEN": token or ""}
    argv = [
        "wrk",
        f"-t{threads}",
        f"-c{connections}",
        f"-d{max(1, round(duration))}s",
        "--timeout",
        "10s",
        "--latency",
        "-s",
        str(LUA_SCRIPT),
        url,
    ]
    cpu_before = server_cpu_ticks(master) if master else (0, 0)
    busy_before, total_before = machine_busy_ticks()
    measured = run_measured(argv, env, timeout=duration + 60)
    busy_after, total_after = machine_busy_ticks()
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
        extra={"wrk_stdout": measured.stdout},
    )


# ---------------------------------------------------------------------------------------------
# py-spy profiles (optional; never part of the measured numbers)


def py_spy() -> str | None:
    local = Path(sys.executable).parent / "py-spy"
    return str(local) if local.exists() else shutil.which("py-spy")


# A sample is charged to the first layer found walking its stack from the innermost frame out:
# a JSON encoder frame called from mcpapi is "JSON encoding", an SQL frame under catalog is "database".
LAYERS = (
    (
        "JSON encoding/decoding",
        ("json/encoder.py", "json/decoder.py", "json/__init__.py", "(mcpapi/jsonrpc.py)"),
    ),
    ("YAML parsing", ("yaml/",)),
    ("git (reading objects)", ("git/", "gitdb/", "(catalog/trees.py)")),
    ("database (Django ORM + sqlite3)", ("django/db/",)),
    ("catalog (index, search, validation, publishing)", ("(catalog/",)),
    ("accounts (authentication)", ("(accounts/",)),
    ("mcpapi (protocol, dispatch, tools)", ("(mcpapi/",)),
    ("Django request/response and middleware", ("django/",)),
    ("gunicorn HTTP parsing, socket I/O, worker loop", ("gunicorn/", "socket.py")),
)


STARTUP = ("<frozen importlib", "django/core/checks/", "setup (django/__init__.py)")


def layer_of(frames: list[str]) -> str:
    # Anything under an import or Django's start-up (system checks included) is start-up cost.
    if any(needle in frame for frame in frames for needle in STARTUP):
        return "imports, Django setup and system checks"
    for frame in reversed(frames):
        for layer, needles in LAYERS:
            if any(needle in frame for needle in needles):
                return layer
    return "other"


# Leaf frames where a thread waits (py-spy's idle detection misses waits inside C calls such as
# SimpleQueue.get or epoll): these samples are dropped from the summaries, and counted.
IDLE_LEAVES = (
    "_worker (concurrent/futures/thread.py)",
    "EpollSelector.select (selectors.py)",
    "PollSelector.select (selectors.py)",
    "Arbiter.wait_for_signals (gunicorn/arbiter.py)",
    "Arbiter.sleep (gunicorn/arbiter.py)",
    "Condition.wait (threading.py)",
    "Event.wait (threading.py)",
)


def summarize_collapsed(path: Path, top: int = 30) -> str:
    """Layers, then self and inclusive sample shares per function, from a py-spy raw profile."""
    self_counts: dict[str, int] = {}
    incl_counts: dict[str, int] = {}
    layer_counts: dict[str, int] = {}
    total = idle = 0
    for line in path.read_text(errors="replace").splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        frames = [frame for frame in stack.split(";") if not frame.startswith("process ")]
        if not frames:
            continue
        names = [re.sub(r":\d+\)$", ")", frame.replace(str(PROJECT_DIR) + "/", "")) for frame in frames]
        if names[-1] in IDLE_LEAVES:
            idle += count
            continue
        total += count
        self_counts[names[-1]] = self_counts.get(names[-1], 0) + count
        for name in set(names):
            incl_counts[name] = incl_counts.get(name, 0) + count
        layer = layer_of(names)
        layer_counts[layer] = layer_counts.get(layer, 0) + count
    if not total:
        return f"{path.name}: no samples\n"
    lines = [
        f"### {path.stem} ({total} samples; {idle} more in idle waits left out)",
        "",
        "By layer (innermost matching frame):",
        "",
    ]
    for name, count in sorted(layer_counts.items(), key=lambda item: -item[1]):
        lines.append(f"- {100 * count / total:5.1f}%  {name}")
    lines += ["", "Self time:", ""]
    for name, count in sorted(self_counts.items(), key=lambda item: -item[1])[:top]:
        lines.append(f"- {100 * count / total:5.1f}%  {name}")
    lines += ["", "Inclusive time:", ""]
    # Frames on (nearly) every stack are the server's frame (gunicorn's loop): not informative.
    shown = [(name, count) for name, count in incl_counts.items() if count < 0.97 * total]
    for name, count in sorted(shown, key=lambda item: -item[1])[: top * 2]:
        lines.append(f"- {100 * count / total:5.1f}%  {name}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# The run


def machine_info() -> dict:
    cpu_model = "unknown"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            cpu_model = line.split(":", 1)[1].strip()
            break
    mem_kb = 0
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal:"):
            mem_kb = int(line.split()[1])
    versions = {}
    for module in ("django", "gunicorn"):
        try:
            versions[module] = __import__(module).__version__
        except ImportError:
            versions[module] = "missing"
    wrk = (
        subprocess.run(["wrk", "--version"], capture_output=True, text=True, check=False)
        if wrk_available()
        else None
    )
    return {
        "nproc": os.cpu_count(),
        "cpu_model": cpu_model,
        "memory_gib": round(mem_kb / 1024 / 1024, 1),
        "kernel": platform.release(),
        "python": platform.python_version(),
        "django": versions["django"],
        "gunicorn": versions["gunicorn"],
        "sqlite": __import__("sqlite3").sqlite_version,
        "wrk": " ".join((wrk.stdout or wrk.stderr).split()[:2]) if wrk else "missing",
    }


def _head_commit() -> str:
    result = subprocess.run(
        ["git", "-C", str(PROJECT_DIR), "log", "-1", "--format=%h %s"],
        capture_output=True,
        text=True,
        check=False,
        timeout=30,
    )
    dirty = subprocess.run(
        ["git", "-C", str(PROJECT_DIR), "status", "--porcelain", "--untracked-files=no"],
        capture_output=True,
        text=True,
        check=False,
        timeout=30,
    )
    text = result.stdout.strip()[:90] or "unknown"
    return text + (" (+ uncommitted changes)" if dirty.stdout.strip() else "")


def django_env(
    db_path: Path,
    repo: Path,
    workers: int | None,
    worker_class: str | None = None,
    log_level: str | None = None,
) -> dict:
    """The registry's environment: production settings (DEBUG off, the default logging: one JSON
    access line per /mcp request), a fresh SQLite file, the bench's static read token."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "GUNICORN_", "SKILLS_", "DATABASE_", "CACHE_", "GITHUB_", "MCP_"))
    }
    env.update(
        {
            "DJANGO_SECRET_KEY": "bench-secret-key-not-for-production-0123456789",
            "DJANGO_DEBUG": "false",
            "DATABASE_URL": f"sqlite:///{db_path}",
            "SKILLS_REPO_PATH": str(repo),
            "SKILLS_READ_TOKENS": TOKEN,
        }
    )
    if workers:
        env["GUNICORN_WORKERS"] = str(workers)
    if worker_class:
        env["GUNICORN_WORKER_CLASS"] = worker_class
    if log_level:
        env["LOG_LEVEL"] = log_level
    return env


def manage(*args: str) -> list[str]:
    return [sys.executable, str(PROJECT_DIR / "manage.py"), *args]


def publish_step(label: str, argv: list[str], env: dict, timeout: float) -> dict:
    print(f"  {label} ...", end=" ", flush=True)
    measured = run_measured(argv, env, timeout)
    print(f"{measured.wall_s:.2f} s, peak {measured.peak_rss_mb:.0f} MB", flush=True)
    if measured.returncode != 0:
        raise BenchError(
            f"{label} failed ({measured.returncode}):\n{measured.stdout[-2000:]}\n{measured.stderr[-3000:]}"
        )
    return {
        "step": label,
        "wall_s": round(measured.wall_s, 3),
        "cpu_s": round(measured.cpu_s, 3),
        "peak_rss_mb": round(measured.peak_rss_mb, 1),
        "output": measured.stdout.strip()[-500:],
    }


def ceiling_probe(url: str) -> bool:
    status, _, _ = post_json(url + "/mcp", {"ping": 1}, TOKEN, timeout=5)
    return status == 200


def product_probe(url: str) -> bool:
    return get_status(url + "/healthz") == 200


def measure_ceiling(args, env: dict, workdir: Path, label: str, middleware: str = "") -> LoadResult:
    ceiling_env = {**env, "BENCH_CEILING_MIDDLEWARE": middleware}
    with Gunicorn(
        "bench.ceiling.wsgi:application", ceiling_env, workdir / "gunicorn-ceiling.log", label
    ) as server:
        server.wait_ready(ceiling_probe)
        body = tool_call("skills_list", {"limit": 50})
        run_wrk(
            server.url + "/mcp",
            body,
            TOKEN,
            args.warmup,
            args.connections,
            args.threads,
            None,
            workdir,
            "warm",
        )
        result = run_wrk(
            server.url + "/mcp",
            body,
            TOKEN,
            args.duration,
            args.connections,
            args.threads,
            server.proc.pid,
            workdir,
            label,
        )
        result.extra["worker_rss_mb"] = [round(rss_mb(pid) or 0, 1) for pid in server.workers()]
    print(f"  {format_load(result)}", flush=True)
    return result


def format_load(result: LoadResult) -> str:
    return (
        f"{result.name:<24} {result.rps:8.0f} req/s  p50 {result.p50_ms:6.2f} ms  p99 {result.p99_ms:7.2f} ms"
        f"  server {result.server_cpu_ms_per_req:5.2f} ms CPU/req ({result.server_user_ms_per_req:.2f} user"
        f" + {result.server_system_ms_per_req:.2f} sys)  wrk {result.wrk_cpu_ms_per_req:.3f}"
        f"  other load {result.other_cores:.2f} cores  errors {result.errors + result.non_2xx}"
    )


def run(args) -> dict:
    started = time.time()
    info = machine_info()
    results: dict = {
        "skills": args.skills,
        "seed": args.seed,
        "started": time.strftime("%Y-%m-%d %H:%M:%S %Z", time.localtime(started)),
        "command": " ".join([Path(sys.executable).name, "-m", "bench.run", *sys.argv[1:]]),
        "machine": info,
        "commit": _head_commit(),
        "loadavg_start": os.getloadavg(),
        "settings": {
            "duration_s": args.duration,
            "warmup_s": args.warmup,
            "connections": args.connections,
            "wrk_threads": args.threads,
            "gunicorn_config": "gunicorn.conf.py (production)",
            "log_level": args.log_level or "INFO (product default: a JSON access line per request)",
        },
    }
    if args.profile:
        shutil.rmtree(Path(args.out) / f"profile-{args.skills}", ignore_errors=True)
    shm = Path("/dev/shm")
    corpus_parent = shm if shm.is_dir() and os.access(shm, os.W_OK) and not args.corpus_on_disk else None
    with contextlib.ExitStack() as stack:
        corpus_dir = Path(tempfile.mkdtemp(prefix="skills-bench-corpus-", dir=corpus_parent))
        work_dir = Path(tempfile.mkdtemp(prefix="skills-bench-"))
        if not args.keep:
            stack.callback(shutil.rmtree, corpus_dir, True)
            stack.callback(shutil.rmtree, work_dir, True)
        else:
            print(f"keeping {corpus_dir} and {work_dir}")
        repo = corpus_dir / "repo"
        print(f"corpus: {args.skills} skills, seed {args.seed} ...", end=" ", flush=True)
        # Built in a child process, so this one never holds the generated text (~11 KB a skill).
        argv = [sys.executable, "-m", "bench.corpus", "build", "--skills", str(args.skills)]
        argv += ["--seed", str(args.seed), "--out", str(repo)]
        built = run_measured(argv, dict(os.environ), timeout=1800)
        if built.returncode != 0:
            raise BenchError(f"corpus build failed:\n{built.stderr[-3000:]}")
        corpus = corpus_mod.load(repo)
        print(f"{corpus.build_seconds:.1f} s ({corpus.file_count} files, {corpus.total_bytes / 1e6:.1f} MB)")
        results["corpus"] = corpus.summary()

        db_path = work_dir / "db.sqlite3"
        env = django_env(db_path, repo, args.workers, args.worker_class, args.log_level)
        results["settings"]["gunicorn"] = gunicorn_settings(env)
        steps = []
        print("publish:")
        if True:
            steps.append(publish_step("migrate (empty database)", manage("migrate", "--noinput"), env, 600))
            steps.append(
                publish_step(
                    f"publish {args.skills:,} skills from empty",
                    manage("publish", corpus.sha, "--repo", str(repo)),
                    env,
                    args.publish_timeout,
                )
            )
            change = corpus_mod.change_one(repo)
            step = publish_step(
                "publish a one-skill change on top",
                manage("publish", change["sha"], "--repo", str(repo)),
                env,
                args.publish_timeout,
            )
            step["changed"] = {key: change[key] for key in ("id", "old_version", "version")}
            steps.append(step)
            steps.append(
                publish_step(
                    "publish the same SHA again (no-op)",
                    manage("publish", change["sha"], "--repo", str(repo)),
                    env,
                    args.publish_timeout,
                )
            )
        results["publish"] = steps

        if args.profile:
            profile_publish(args, corpus, work_dir, env)

        if not args.no_serve:
            results["serve"] = serve(args, corpus, env, work_dir)
    results["loadavg_end"] = os.getloadavg()
    results["elapsed_s"] = round(time.time() - started, 1)
    return results


def serve(args, corpus: corpus_mod.Corpus, env: dict, work_dir: Path) -> dict:
    """Every row between two ceiling runs, all servers up at once (an idle one costs nothing).

    Each row's ratio is to the mean of the ceiling runs just before and just after it, so a
    change in the machine's background load during the run moves both sides of the ratio.
    """
    ops = operations(corpus)
    out: dict = {"rows": [], "ceiling": []}
    visible = sum(1 for entry in corpus.entries if not entry.required_zdr)
    out["search"] = [
        {"row": row, "query": query, "matches": search_match_count(corpus, query), "of": visible}
        for row, query in (("skills_search", SEARCH_QUERY), (BROAD_SEARCH, BROAD_SEARCH_QUERY))
    ]
    print(f"serve: wrk {args.threads} threads x {args.connections} connections x {args.duration:g} s per run")
    ceiling_body = tool_call("skills_list", {"limit": 50})
    with contextlib.ExitStack() as stack:
        ceiling = stack.enter_context(
            Gunicorn(
                CEILING_APP,
                {**env, "BENCH_CEILING_MIDDLEWARE": ""},
                work_dir / "gunicorn-ceiling.log",
                "ceiling",
            )
        )
        middleware = None
        if args.ceiling_middleware:
            middleware = stack.enter_context(
                Gunicorn(
                    CEILING_APP,
                    {**env, "BENCH_CEILING_MIDDLEWARE": "product"},
                    work_dir / "gunicorn-ceiling-mw.log",
                    CEILING_MW,
                )
            )
        registry = stack.enter_context(
            Gunicorn("skillsite.wsgi", env, work_dir / "gunicorn-registry.log", "registry")
        )
        ceiling.wait_ready(ceiling_probe)
        if middleware:
            middleware.wait_ready(ceiling_probe)
        registry.wait_ready(product_probe)
        out["workers"] = len(registry.workers())
        out["worker_rss_mb_booted"] = [round(rss_mb(pid) or 0, 1) for pid in registry.workers()]
        # Warm every worker: the index is built once per process per snapshot on first use.
        # Rounds of as many simultaneous requests as the server has request slots reach every
        # worker (a busy slot cannot accept another request), then wrk runs briefly.
        out["worker_rss_mb_after_first"] = prewarm(registry, ops, rounds=3)
        for op in ops:
            status, payload, _ = post_json(registry.url + op.path, op.body, TOKEN)
            problem = check_answer(op, status, payload)
            if problem:
                raise BenchError(f"{op.name}: not a successful answer, not timing it: {problem}")
        subjects = [(CEILING_MW, middleware, "/mcp", ceiling_body)] if middleware else []
        subjects += [(op.name, registry, op.path, op.body) for op in ops]
        for _, server, path, body in [("ceiling", ceiling, "/mcp", ceiling_body), *subjects]:
            run_wrk(
                server.url + path,
                body,
                TOKEN,
                args.warmup,
                args.connections,
                args.threads,
                None,
                work_dir,
                "warm",
            )

        def load(label: str, server: Gunicorn, path: str, body: dict) -> LoadResult:
            result = run_wrk(
                server.url + path,
                body,
                TOKEN,
                args.duration,
                args.connections,
                args.threads,
                server.proc.pid,
                work_dir,
                label,
            )
            print(f"  {format_load(result)}", flush=True)
            return result

        ceilings = [load("ceiling", ceiling, "/mcp", ceiling_body)]
        for label, server, path, body in subjects:
            row = load(label, server, path, body)
            ceilings.append(load("ceiling", ceiling, "/mcp", ceiling_body))
            before, after = ceilings[-2], ceilings[-1]
            row.extra["request"] = body
            row.extra["ceiling_rps"] = (before.rps + after.rps) / 2
            row.extra["ceiling_cpu_ms_per_req"] = (
                before.server_cpu_ms_per_req + after.server_cpu_ms_per_req
            ) / 2
            out["rows"].append(asdict_load(row))
        out["ceiling"] = [asdict_load(result) for result in ceilings]
        out["ceiling_worker_rss_mb"] = [round(rss_mb(pid) or 0, 1) for pid in ceiling.workers()]
        out["worker_rss_mb"] = [round(rss_mb(pid) or 0, 1) for pid in registry.workers()]
        out["master_rss_mb"] = round(rss_mb(registry.proc.pid) or 0, 1)
    if args.profile:
        profile_serve(args, env, ops, work_dir)
    return out


def prewarm(server: Gunicorn, ops: list[Operation], rounds: int) -> dict[str, float]:
    """Serve every operation to every worker; the largest worker RSS after each operation."""
    settings = gunicorn_settings(server.env)
    slots = int(settings["workers"]) * (
        int(settings["threads"]) if settings["worker_class"] == "gthread" else 1
    )
    width = min(64, slots + 2)
    growth: dict[str, float] = {}
    for op in ops:
        for _ in range(rounds):
            threads = [
                threading.Thread(target=post_json, args=(server.url + op.path, op.body, TOKEN, 120.0))
                for _ in range(width)
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(timeout=130)
        growth[op.name] = round(max((rss_mb(pid) or 0) for pid in server.workers()), 1)
    return growth


def search_match_count(corpus: corpus_mod.Corpus, query: str) -> int:
    """How many visible skills the search query matches anywhere (name, tags, keywords, text)."""
    terms = query.lower().split()
    count = 0
    for entry in corpus.entries:
        if entry.required_zdr:
            continue
        text = (Path(corpus.root) / "skills" / entry.id / "SKILL.md").read_text(encoding="utf-8").lower()
        if any(term in text for term in terms):
            count += 1
    return count


def asdict_load(result: LoadResult) -> dict:
    data = dict(result.__dict__)
    extra = data.pop("extra")
    data.update({key: value for key, value in extra.items() if key != "wrk_stdout"})
    return data


def profile_dir(args) -> Path:
    path = Path(args.out) / f"profile-{args.skills}"
    path.mkdir(parents=True, exist_ok=True)
    return path


def profile_publish(args, corpus: corpus_mod.Corpus, work_dir: Path, env: dict) -> None:
    spy = py_spy()
    if not spy:
        print("  (py-spy not installed: .venv/bin/pip install py-spy; skipping the publish profile)")
        return
    out = profile_dir(args)
    db = work_dir / "profile.sqlite3"
    penv = {**env, "DATABASE_URL": f"sqlite:///{db}"}
    run_measured(manage("migrate", "--noinput"), penv, 600)
    head = corpus_mod.git(Path(corpus.root), "rev-parse", "HEAD")
    for name, sha in (("publish-empty", corpus.sha), ("publish-change", head)):
        target = out / f"{name}.txt"
        argv = [spy, "record", "--rate", "200", "--format", "raw", "-o", str(target)]
        argv += ["--", *manage("publish", sha, "--repo", corpus.root)]
        measured = run_measured(argv, penv, args.publish_timeout * 3)
        print(f"  profile of {name}: {target} ({measured.wall_s:.1f} s under py-spy)")
        if target.exists():
            (out / f"{name}-summary.md").write_text(summarize_collapsed(target))


def profile_serve(args, env: dict, ops: list[Operation], work_dir: Path) -> None:
    """py-spy on one worker driven by one connection, so that samples are CPU, not queueing.

    With several workers and connections on 2 CPUs, a worker spends much of its time runnable
    but not running (often right after a send wakes the client up); py-spy samples that as
    active, which would overweight socket writes. One worker and one connection avoid it.
    """
    spy = py_spy()
    if not spy:
        print("  (py-spy not installed: .venv/bin/pip install py-spy; skipping the serve profiles)")
        return
    out = profile_dir(args)
    penv = {**env, "GUNICORN_WORKERS": "1"}
    with Gunicorn("skillsite.wsgi", penv, work_dir / "gunicorn-profile.log", "profiled registry") as server:
        server.wait_ready(product_probe)
        for op in ops:
            run_wrk(server.url + op.path, op.body, TOKEN, 1, 1, 1, None, work_dir, "warm")
        for op in ops:
            name = re.sub(r"[^a-z0-9_]+", "-", op.name).strip("-")
            target = out / f"serve-{name}.txt"
            duration = max(3, round(args.duration))
            argv = [spy, "record", "--rate", "250", "--format", "raw", "--subprocesses"]
            argv += ["--duration", str(duration), "--pid", str(server.proc.pid), "-o", str(target)]
            spy_proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            try:
                time.sleep(0.5)
                result = run_wrk(
                    server.url + op.path, op.body, TOKEN, duration, 1, 1, server.proc.pid, work_dir, op.name
                )
                _, err = spy_proc.communicate(timeout=duration + 60)
            finally:
                if spy_proc.poll() is None:
                    spy_proc.kill()
                    spy_proc.wait(timeout=10)
            if target.exists():
                header = (
                    f"1 worker, 1 connection, under py-spy: {result.rps:.0f} req/s, "
                    f"{result.server_cpu_ms_per_req:.2f} ms CPU/req\n\n"
                )
                (out / f"serve-{name}-summary.md").write_text(header + summarize_collapsed(target))
                print(f"  profile of {op.name}: {target}")
            else:
                print(f"  profile of {op.name} failed: {err.decode(errors='replace')[-300:]}")


# ---------------------------------------------------------------------------------------------
# Report


def verdict(ok: bool) -> str:
    return "PASS" if ok else "**MISS**"


def report(results: dict) -> str:
    n = results["skills"]
    m = results["machine"]
    lines = [
        f"# Skills Registry benchmark: {n:,} skills",
        "",
        f"- when: {results['started']}; command: `{results['command']}`; elapsed {results['elapsed_s']} s",
        f"- code: {results['commit']}",
        f"- machine: {m['nproc']} CPUs ({m['cpu_model']}), {m['memory_gib']} GiB; Linux {m['kernel']}; "
        f"Python {m['python']}, Django {m['django']}, gunicorn {m['gunicorn']}, SQLite {m['sqlite']}, "
        f"{m['wrk']}",
        f"- load average at start {fmt_load(results['loadavg_start'])}, "
        f"at end {fmt_load(results['loadavg_end'])}",
    ]
    c = results["corpus"]
    lines.append(
        f"- corpus: seed {c['seed']}, {c['skills']:,} skills ({c['zdr_count']} required_zdr), "
        f"{c['file_count']:,} files, {c['total_bytes'] / 1e6:.1f} MB; median SKILL.md "
        f"{c['skill_md_bytes_median']:,} B, median supporting file {c['file_bytes_median']:,} B; "
        f"generated and committed in {c['build_seconds']:.1f} s"
    )
    lines += ["", "## Publish", "", "| step | wall s | CPU s | peak RSS MB |", "|---|---:|---:|---:|"]
    for step in results["publish"]:
        lines.append(
            f"| {step['step']} | {step['wall_s']:.2f} | {step['cpu_s']:.2f} | {step['peak_rss_mb']:.0f} |"
        )
    serve_data = results.get("serve")
    if serve_data:
        s = results["settings"]
        g = s["gunicorn"]
        ceilings = serve_data["ceiling"]
        ceiling_rps = sum(row["rps"] for row in ceilings) / len(ceilings)
        ceiling_cpu = sum(row["server_cpu_ms_per_req"] for row in ceilings) / len(ceilings)
        lines += [
            "",
            f"## Serve (gunicorn.conf.py: {g['workers']} {g['worker_class']} workers"
            + (f" x {g['threads']} threads" if g["worker_class"] == "gthread" else "")
            + f", keepalive {g['keepalive']} s; "
            f"wrk {s['wrk_threads']} threads, "
            f"{s['connections']} connections, {s['duration_s']:g} s per row)",
            "",
            f"Registry: production settings (DEBUG off), logging {s['log_level']}, SQLite in WAL mode, "
            "a static bearer token. Ceiling: bench/ceiling (no apps, no middleware, no logging), the same "
            "gunicorn.conf.py. Every row ran between two ceiling runs; its ratios are to the mean of "
            f"those two. The ceiling ran {len(ceilings)} times: {ceiling_rps:.0f} req/s on average "
            f"({min(c['rps'] for c in ceilings):.0f}-{max(c['rps'] for c in ceilings):.0f}), "
            f"{ceiling_cpu:.2f} ms CPU/req. 'other load' is how many CPUs the rest of the machine kept "
            f"busy during the row (noise: the machine has {results['machine']['nproc']}).",
            "",
            "| operation | req/s | x ceiling | p50 ms | p99 ms | server CPU ms/req (user+sys) "
            "| x ceiling CPU "
            "| resp KB | wrk CPU ms/req | other load | errors |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        summary = {
            key: sum(c[key] for c in ceilings) / len(ceilings)
            for key in ceilings[0]
            if isinstance(ceilings[0][key], int | float) and not isinstance(ceilings[0][key], bool)
        }
        summary.update(
            name=f"ceiling (mean of {len(ceilings)} runs)",
            ceiling_rps=ceiling_rps,
            ceiling_cpu_ms_per_req=ceiling_cpu,
        )
        for row in [summary, *serve_data["rows"]]:
            cells = [
                row["name"],
                f"{row['rps']:.0f}",
                f"{row['rps'] / row['ceiling_rps']:.2f}",
                f"{row['p50_ms']:.2f}",
                f"{row['p99_ms']:.2f}",
                f"{row['server_cpu_ms_per_req']:.2f} ({row['server_user_ms_per_req']:.2f}"
                f"+{row['server_system_ms_per_req']:.2f})",
                f"{row['server_cpu_ms_per_req'] / row['ceiling_cpu_ms_per_req']:.1f}",
                f"{row['bytes_per_request'] / 1024:.1f}",
                f"{row['wrk_cpu_ms_per_req']:.3f}",
                f"{row['other_cores']:.2f}",
                str(round(row["errors"] + row["non_2xx"])),
            ]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
        for search in serve_data.get("search", []):
            share = 100 * search["matches"] / max(1, search["of"])
            lines.append(
                f"- {search['row']} asks for {search['query']!r}: {search['matches']:,} of the "
                f"{search['of']:,} visible skills contain one of its terms in SKILL.md ({share:.0f}%)."
            )
        rss = serve_data["worker_rss_mb"]
        booted = serve_data["worker_rss_mb_booted"]
        lines += [
            "",
            "## Memory",
            "",
            f"- RSS per registry worker after the load runs (corpus warm): {mb_list(rss)} MB "
            f"(max {max(rss):.0f} MB); right after boot: {mb_list(booted)} MB; "
            f"master {serve_data['master_rss_mb']:.0f} MB",
            f"- RSS per ceiling worker: {mb_list(serve_data['ceiling_worker_rss_mb'])} MB",
            "- largest registry worker RSS after the first requests of each kind (in this order): "
            + ", ".join(f"{name} {mb:.0f}" for name, mb in serve_data["worker_rss_mb_after_first"].items())
            + " MB",
        ]
    lines += ["", "## Targets (issue 7)", ""]
    lines += [f"- {line}" for line in targets(results)]
    return "\n".join(lines) + "\n"


def mb_list(values: list[float]) -> str:
    return ", ".join(f"{value:.0f}" for value in values)


def fmt_load(values) -> str:
    return " ".join(f"{v:.2f}" for v in values)


def targets(results: dict) -> list[str]:
    n = results["skills"]
    out = []
    publish = results["publish"]
    peak = max(step["peak_rss_mb"] for step in publish)
    out.append(
        f"{verdict(peak < PUBLISH_PEAK_MB)} peak publish memory {peak:.0f} MB (< {PUBLISH_PEAK_MB:.0f} MB)"
    )
    first = publish[1]
    change = publish[2]
    if n >= 10_000:
        out.append(
            f"{verdict(first['wall_s'] < PUBLISH_10K_SECONDS)} publish {n:,} from empty "
            f"{first['wall_s']:.1f} s (< {PUBLISH_10K_SECONDS:.0f} s)"
        )
    else:
        out.append(f"(publish {n:,} from empty {first['wall_s']:.1f} s; the 60 s target is for 10,000)")
    out.append(
        f"{verdict(change['wall_s'] < CHANGE_SECONDS)} one-skill republish on top "
        f"{change['wall_s']:.2f} s (< {CHANGE_SECONDS:.0f} s)"
    )
    serve_data = results.get("serve")
    if serve_data:
        for row in serve_data["rows"]:
            ratio = row["rps"] / row["ceiling_rps"]
            if row["name"] == CEILING_MW:
                continue
            if row["name"] == PING:
                out.append(f"(informational) {row['name']} at {n:,}: {ratio:.2f} x ceiling")
            elif row["name"] == BROAD_SEARCH:
                out.append(
                    f"(informational) {row['name']} at {n:,}: {ratio:.2f} x ceiling (no target: the "
                    "query matches most of the corpus)"
                )
            elif n <= 1000:
                tool = row["name"].startswith("skills_")
                label = "" if tool else " (not a tool call; same bar shown)"
                out.append(
                    f"{verdict(ratio >= TOOL_RATIO_TARGET_1K)} {row['name']} at {n:,}: "
                    f"{ratio:.2f} x ceiling (≥ {TOOL_RATIO_TARGET_1K}){label}"
                )
            elif row["name"] == "skills_search":
                out.append(
                    f"{verdict(ratio >= SEARCH_RATIO_TARGET_10K)} skills_search at {n:,}: "
                    f"{ratio:.2f} x ceiling (≥ {SEARCH_RATIO_TARGET_10K})"
                )
        worst = max(serve_data["worker_rss_mb"])
        if n >= 10_000:
            out.append(
                f"{verdict(worst < WORKER_RSS_MB_10K)} RSS per worker at {n:,}: {worst:.0f} MB "
                f"(< {WORKER_RSS_MB_10K:.0f} MB)"
            )
        else:
            out.append(f"(RSS per worker at {n:,}: {worst:.0f} MB; the 200 MB target is for 10,000)")
    return out


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--skills", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="4 s load runs and 1 s warm-ups (make bench)")
    parser.add_argument("--duration", type=float, default=None, help="seconds per load run (default 10)")
    parser.add_argument(
        "--warmup", type=float, default=None, help="seconds of warm-up per operation (default 2)"
    )
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--threads", type=int, default=2, help="wrk threads")
    parser.add_argument("--workers", type=int, default=None, help="override gunicorn.conf.py's worker count")
    parser.add_argument(
        "--log-level", default=None, help="LOG_LEVEL for the server (default: the product's, INFO)"
    )
    parser.add_argument(
        "--worker-class", default=None, help="override gunicorn.conf.py's worker class (e.g. gthread)"
    )
    parser.add_argument("--publish-timeout", type=float, default=900)
    parser.add_argument("--no-serve", action="store_true", help="publish timings only")
    parser.add_argument(
        "--no-ceiling-middleware",
        dest="ceiling_middleware",
        action="store_false",
        help="skip the ceiling run with the registry's middleware list",
    )

    parser.add_argument(
        "--ceiling-only", action="store_true", help="measure the ceiling alone (harness check)"
    )
    parser.add_argument(
        "--profile", action="store_true", help="py-spy profiles of publish and of each operation"
    )
    parser.add_argument(
        "--corpus-on-disk", action="store_true", help="build the corpus under /tmp, not /dev/shm"
    )
    parser.add_argument("--keep", action="store_true", help="keep the corpus, database and logs")
    parser.add_argument("--out", default=str(BENCH_DIR / "out"))
    args = parser.parse_args(argv)
    if args.duration is None:
        args.duration = 4.0 if args.quick else 10.0
    if args.warmup is None:
        args.warmup = 1.0 if args.quick else 2.0
    if not 0 < args.duration <= 120 or not 0 <= args.warmup <= 30:
        parser.error("--duration must be in (0, 120] and --warmup in [0, 30]")
    if not 1 <= args.connections <= 256 or not 1 <= args.threads <= args.connections:
        parser.error("--connections must be 1..256 and --threads 1..connections")
    if not 1 <= args.skills <= 100_000:
        parser.error("--skills must be 1..100000")
    return args


def ceiling_only(args) -> int:
    with tempfile.TemporaryDirectory(prefix="skills-bench-") as tmp:
        env = django_env(
            Path(tmp) / "unused.sqlite3", Path(tmp), args.workers, args.worker_class, args.log_level
        )
        try:
            measure_ceiling(args, env, Path(tmp), "ceiling")
            if args.ceiling_middleware:
                measure_ceiling(args, env, Path(tmp), "ceiling + product middleware", "product")
        except BenchError as exc:
            print(f"bench failed: {exc}", file=sys.stderr)
            return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if not args.no_serve and not wrk_available():
        print(
            "wrk is not installed; the serve benchmark needs it (a low-CPU load generator).\n"
            "  Debian/Ubuntu: apt-get update && apt-get install -y wrk\n"
            "Or run the publish timings alone: python -m bench.run --no-serve",
            file=sys.stderr,
        )
        return 2
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    if args.ceiling_only:
        return ceiling_only(args)
    try:
        results = run(args)
    except BenchError as exc:
        print(f"\nbench failed: {exc}", file=sys.stderr)
        return 1
    text = report(results)
    (out_dir / f"results-{args.skills}.md").write_text(text)
    (out_dir / f"results-{args.skills}.json").write_text(json.dumps(results, indent=2, default=str) + "\n")
    print()
    print(text)
    print(f"written: {out_dir / f'results-{args.skills}.md'} and .json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
