"""Processes and ports on this machine: a free loopback port, a process's children."""

import os
import socket
from pathlib import Path


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def proc_stat(pid: int) -> list[str] | None:
    """/proc/<pid>/stat after the command name: field n of proc(5) is item [n - 3]; None once gone."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    return raw.rpartition(")")[2].split()


def children_of(pid: int) -> list[int]:
    """The live children of `pid` (a gunicorn master's workers), by scanning /proc."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = proc_stat(int(entry))
            if fields and int(fields[1]) == pid:
                found.append(int(entry))
    return sorted(found)
