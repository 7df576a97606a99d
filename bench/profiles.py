"""py-spy profiles (optional; never part of the measured numbers) and their summaries."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bench import corpus as corpus_mod
from bench.layers import PUBLISH_LAYERS, SERVE_LAYERS, layer_of
from bench.load import LoadResult, Operation, run_wrk
from bench.measure import run_measured
from bench.servers import TOKEN, launched, manage, product_probe, wait_ready
from tests.support.gunicorn import GunicornServer
from tests.support.project import PROJECT_DIR


def py_spy() -> str | None:
    local = Path(sys.executable).parent / "py-spy"
    return str(local) if local.exists() else shutil.which("py-spy")


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


@dataclass
class Samples:
    """A py-spy raw profile, counted: samples per layer, per function (self and inclusive)."""

    total: int = 0
    idle: int = 0
    layers: dict[str, int] = field(default_factory=dict)
    self_counts: dict[str, int] = field(default_factory=dict)
    incl_counts: dict[str, int] = field(default_factory=dict)

    def share(self, layer: str) -> float:
        """Percent of the non-idle samples charged to `layer`."""
        return 100 * self.layers.get(layer, 0) / self.total if self.total else 0.0


def frame_names(stack: str) -> list[str]:
    """A collapsed stack's frames, outermost first, as layer_of reads them: the project's paths
    relative to it, no line numbers, py-spy's "process ..." frames left out."""
    frames = [frame for frame in stack.split(";") if not frame.startswith("process ")]
    return [re.sub(r":\d+\)$", ")", frame.replace(str(PROJECT_DIR) + "/", "")) for frame in frames]


def count_samples(text: str, layers: Sequence[tuple[str, tuple[str, ...]]] = SERVE_LAYERS) -> Samples:
    """Count the lines of a collapsed (raw) profile: "frame;frame;... count"."""
    samples = Samples()
    for line in text.splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        names = frame_names(stack)
        if not names:
            continue
        if names[-1] in IDLE_LEAVES:
            samples.idle += count
            continue
        samples.total += count
        samples.self_counts[names[-1]] = samples.self_counts.get(names[-1], 0) + count
        for name in set(names):
            samples.incl_counts[name] = samples.incl_counts.get(name, 0) + count
        layer = layer_of(names, layers)
        samples.layers[layer] = samples.layers.get(layer, 0) + count
    return samples


def summarize_collapsed(
    path: Path, layers: Sequence[tuple[str, tuple[str, ...]]] = SERVE_LAYERS, top: int = 30
) -> str:
    """Layers, then self and inclusive sample shares per function, from a py-spy raw profile."""
    samples = count_samples(path.read_text(errors="replace"), layers)
    total = samples.total
    if not total:
        return f"{path.name}: no samples\n"
    lines = [
        f"### {path.stem} ({total} samples; {samples.idle} more in idle waits left out)",
        "",
        "By layer (innermost matching frame):",
        "",
    ]
    for name, count in sorted(samples.layers.items(), key=lambda item: -item[1]):
        lines.append(f"- {100 * count / total:5.1f}%  {name}")
    lines += ["", "Self time:", ""]
    for name, count in sorted(samples.self_counts.items(), key=lambda item: -item[1])[:top]:
        lines.append(f"- {100 * count / total:5.1f}%  {name}")
    lines += ["", "Inclusive time:", ""]
    # Frames on (nearly) every stack are the server's frame (gunicorn's loop): not informative.
    shown = [(name, count) for name, count in samples.incl_counts.items() if count < 0.97 * total]
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
            (out / f"{name}-summary.md").write_text(summarize_collapsed(target, PUBLISH_LAYERS))


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
            profile_one(spy, server, op.name, op.body, max(3, round(args.duration)), out, work_dir, op.path)


def profile_one(
    spy: str,
    server: GunicornServer,
    name: str,
    body: dict | list[dict],
    duration: int,
    out: Path,
    work_dir: Path,
    path: str = "/mcp",
) -> tuple[LoadResult, Samples] | None:
    """py-spy on `server` while one wrk connection sends `body` (a cold row: each body of the
    list in turn) for `duration` seconds: serve-<name>.txt and its summary in `out`, and the
    load run's figures with the counted samples (None when py-spy recorded nothing)."""
    slug = re.sub(r"[^a-z0-9_]+", "-", name.lower()).strip("-")
    target = out / f"serve-{slug}.txt"
    # --gil: only the thread holding the GIL, the one running Python. Without it a thread
    # that has just written to a socket or gthread's wake-up pipe, and waits to run again
    # (for the GIL, or for a CPU on a busy machine), is sampled as busy in that write: half
    # of skills_list's samples were gunicorn's write and PollableMethodQueue.defer.
    argv = [spy, "record", "--rate", "250", "--format", "raw", "--subprocesses", "--gil"]
    argv += ["--duration", str(duration), "--pid", str(server.pid), "-o", str(target)]
    spy_proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        time.sleep(0.5)
        result = run_wrk(server.url + path, body, TOKEN, duration, 1, 1, server.pid, work_dir, name)
        _, err = spy_proc.communicate(timeout=duration + 60)
    finally:
        if spy_proc.poll() is None:
            spy_proc.kill()
            spy_proc.wait(timeout=10)
    if not target.exists():
        print(f"  profile of {name} failed: {err.decode(errors='replace')[-300:]}")
        return None
    header = (
        f"1 worker, 1 connection, under py-spy: {result.rps:.0f} req/s, "
        f"{result.server_cpu_ms_per_req:.2f} ms CPU/req\n\n"
    )
    (out / f"serve-{slug}-summary.md").write_text(header + summarize_collapsed(target))
    print(f"  profile of {name}: {target}")
    return result, count_samples(target.read_text(errors="replace"))
