"""Processes and ports on this machine: a free loopback port, a process's children, the
connections each of a server's workers holds."""

import contextlib
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


_TCP_ESTABLISHED = "01"


def established_inodes(port: int) -> set[str]:
    """Socket inodes of the ESTABLISHED TCP connections whose local port is `port` (a
    server's side of its clients' connections), from /proc/net/tcp and tcp6."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except FileNotFoundError:
            continue
        for row in rows:
            fields = row.split()
            if fields[3] == _TCP_ESTABLISHED and int(fields[1].rpartition(":")[2], 16) == port:
                inodes.add(fields[9])
    return inodes


def connections_held(workers: list[int], port: int) -> dict[int, int]:
    """How many client connections on `port` each worker holds open now, by pid: the
    accepted sockets among its file descriptors (the listener all share is not ESTABLISHED)."""
    inodes = established_inodes(port)
    held = {}
    for pid in workers:
        count = 0
        with contextlib.suppress(FileNotFoundError, ProcessLookupError):
            for fd in os.listdir(f"/proc/{pid}/fd"):
                with contextlib.suppress(OSError):
                    link = os.readlink(f"/proc/{pid}/fd/{fd}")
                    if link.startswith("socket:[") and link[8:-1] in inodes:
                        count += 1
        held[pid] = count
    return held
