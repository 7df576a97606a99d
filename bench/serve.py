"""The serve benchmark: every row between two ceiling runs, all servers up at once; and the
ceiling measured alone (a harness check)."""

from __future__ import annotations

import contextlib
import sys
import tempfile
import threading
from pathlib import Path

from bench import corpus as corpus_mod
from bench.cold import check_sample, cold_operations, extension_operation
from bench.load import (
    BROAD_SEARCH,
    BROAD_SEARCH_QUERY,
    SEARCH_QUERY,
    LoadResult,
    Operation,
    asdict_load,
    check_answer,
    format_load,
    operations,
    post_json,
    run_wrk,
    tool_call,
)
from bench.measure import BenchError, rss_mb
from bench.profiles import profile_serve
from bench.servers import (
    CEILING_APP,
    CEILING_MW,
    COLD_APP,
    THREADED_WORKERS,
    TOKEN,
    ceiling_probe,
    django_env,
    gunicorn_settings,
    launched,
    product_probe,
    wait_ready,
)
from tests.support.gunicorn import GunicornServer


def measure_ceiling(args, env: dict, workdir: Path, label: str, middleware: str = "") -> LoadResult:
    ceiling_env = {**env, "BENCH_CEILING_MIDDLEWARE": middleware}
    with launched(CEILING_APP, ceiling_env, workdir / "gunicorn-ceiling.log") as server:
        wait_ready(server, ceiling_probe, label)
        body = tool_call("skills_list", {"limit": 50})
        # A warm-up run first (its figures are dropped), then the measured one.
        url = server.url + "/mcp"
        for seconds, master, name in ((args.warmup, None, "warm"), (args.duration, server.pid, label)):
            result = run_wrk(url, body, TOKEN, seconds, args.connections, args.threads, master, workdir, name)
        result.extra["worker_rss_mb"] = [round(rss_mb(pid) or 0, 1) for pid in server.workers()]
    print(f"  {format_load(result)}", flush=True)
    return result


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
            launched(CEILING_APP, {**env, "BENCH_CEILING_MIDDLEWARE": ""}, work_dir / "gunicorn-ceiling.log")
        )
        middleware = None
        if args.ceiling_middleware:
            middleware = stack.enter_context(
                launched(
                    CEILING_APP,
                    {**env, "BENCH_CEILING_MIDDLEWARE": "product"},
                    work_dir / "gunicorn-ceiling-mw.log",
                )
            )
        registry = stack.enter_context(launched("skillsite.wsgi", env, work_dir / "gunicorn-registry.log"))
        cold = (
            stack.enter_context(launched(COLD_APP, env, work_dir / "gunicorn-registry-cold.log"))
            if args.cold
            else None
        )
        wait_ready(ceiling, ceiling_probe, "ceiling")
        if middleware:
            wait_ready(middleware, ceiling_probe, CEILING_MW)
        wait_ready(registry, product_probe, "registry")
        if cold:
            wait_ready(cold, product_probe, "registry, answer cache off")
        extension = extension_operation(registry.url + "/mcp", TOKEN)
        if extension:
            ops.append(extension)
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
        subjects: list[tuple[str, GunicornServer, str, dict | list[dict]]] = (
            [(CEILING_MW, middleware, "/mcp", ceiling_body)] if middleware else []
        )
        subjects += [(op.name, registry, op.path, op.body) for op in ops]
        if cold:
            for name, bodies in cold_operations(corpus, cold.url + "/mcp", TOKEN):
                check_sample(name, cold.url + "/mcp", TOKEN, bodies)
                subjects.append((name, cold, "/mcp", bodies))
            # The cold server's index and search caches are built, as the registry's are.
            prewarm(cold, ops, rounds=2)
        if args.rows:
            subjects = [subject for subject in subjects if any(text in subject[0] for text in args.rows)]
        for _, server, path, body in [("ceiling", ceiling, "/mcp", ceiling_body), *subjects]:
            if isinstance(body, list):
                continue  # a cold row: a warm-up would only make its first requests repeats
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

        def load(label: str, server: GunicornServer, path: str, body: dict | list[dict]) -> LoadResult:
            result = run_wrk(
                server.url + path,
                body,
                TOKEN,
                args.duration,
                args.connections,
                args.threads,
                server.pid,
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
            row.extra["request"] = (
                body if isinstance(body, dict) else {"distinct": len(body), "first": body[0]}
            )
            row.extra["ceiling_rps"] = (before.rps + after.rps) / 2
            row.extra["ceiling_cpu_ms_per_req"] = (
                before.server_cpu_ms_per_req + after.server_cpu_ms_per_req
            ) / 2
            out["rows"].append(asdict_load(row))
        out["ceiling"] = [asdict_load(result) for result in ceilings]
        out["ceiling_worker_rss_mb"] = [round(rss_mb(pid) or 0, 1) for pid in ceiling.workers()]
        out["worker_rss_mb"] = [round(rss_mb(pid) or 0, 1) for pid in registry.workers()]
        if cold:
            out["cold_worker_rss_mb"] = [round(rss_mb(pid) or 0, 1) for pid in cold.workers()]
        out["master_rss_mb"] = round(rss_mb(registry.pid) or 0, 1)
    if args.profile:
        profile_serve(args, env, ops, work_dir)
    return out


def prewarm(server: GunicornServer, ops: list[Operation], rounds: int) -> dict[str, float]:
    """Serve every operation to every worker; the largest worker RSS after each operation."""
    settings = gunicorn_settings(server.env)
    slots = int(settings["workers"]) * (
        int(settings["threads"]) if settings["worker_class"] in THREADED_WORKERS else 1
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
