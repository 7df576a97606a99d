"""What the report says about the machine and the code measured."""

from __future__ import annotations

import os
import platform
import subprocess
from pathlib import Path

from bench.load import wrk_available
from tests.support.project import PROJECT_DIR


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


def _git(*args: str) -> str:
    """What a git command in the project prints ("" if it fails)."""
    return subprocess.run(
        ["git", "-C", str(PROJECT_DIR), *args], capture_output=True, text=True, check=False, timeout=30
    ).stdout.strip()


def head_commit() -> str:
    text = _git("log", "-1", "--format=%h %s")[:90] or "unknown"
    dirty = _git("status", "--porcelain", "--untracked-files=no")
    return text + (" (+ uncommitted changes)" if dirty else "")
