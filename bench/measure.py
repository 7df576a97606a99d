"""Running a command and measuring it: wall time, CPU time, peak RSS; CPU ticks of a process
tree and of the whole machine; a process's resident memory. Linux only (/proc)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from tests.support.processes import children_of, proc_stat
from tests.support.project import PROJECT_DIR

CLK_TCK = os.sysconf("SC_CLK_TCK")


class BenchError(Exception):
    pass


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


def worker_cpu_ticks(workers: list[int]) -> dict[int, int]:
    """User + system CPU ticks of each live worker, by pid."""
    ticks = {}
    for pid in workers:
        fields = proc_stat(pid)
        if fields:
            ticks[pid] = int(fields[11]) + int(fields[12])
    return ticks
