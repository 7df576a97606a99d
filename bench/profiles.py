"""py-spy profiles (optional; never part of the measured numbers) and their summaries."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from bench import corpus as corpus_mod
from bench.load import Operation, run_wrk
from bench.measure import run_measured
from bench.servers import TOKEN, launched, manage, product_probe, wait_ready
from tests.support.project import PROJECT_DIR


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
    ("access log (logging)", ("logging/__init__.py", "(mcpapi/access_log.py)", "(skillsite/logs.py)")),
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
    with launched("skillsite.wsgi", penv, work_dir / "gunicorn-profile.log") as server:
        wait_ready(server, product_probe, "profiled registry")
        for op in ops:
            run_wrk(server.url + op.path, op.body, TOKEN, 1, 1, 1, None, work_dir, "warm")
        for op in ops:
            name = re.sub(r"[^a-z0-9_]+", "-", op.name).strip("-")
            target = out / f"serve-{name}.txt"
            duration = max(3, round(args.duration))
            argv = [spy, "record", "--rate", "250", "--format", "raw", "--subprocesses"]
            argv += ["--duration", str(duration), "--pid", str(server.pid), "-o", str(target)]
            spy_proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            try:
                time.sleep(0.5)
                result = run_wrk(
                    server.url + op.path, op.body, TOKEN, duration, 1, 1, server.pid, work_dir, op.name
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
