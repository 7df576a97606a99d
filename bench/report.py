"""The Markdown report of one run, and the targets of docs/benchmarks.md marked PASS or MISS."""

from __future__ import annotations

from bench.cold import is_cold
from bench.load import BROAD_SEARCH, PING, format_per_worker
from bench.servers import CEILING_MW, THREADED_WORKERS

# The targets (ratios are to the ceiling measured in the same run).
TOOL_RATIO_TARGET_1K = 0.7
COLD_RATIO_TARGET_1K = 0.4
SEARCH_RATIO_TARGET_10K = 0.4
PUBLISH_10K_SECONDS = 60.0
CHANGE_SECONDS = 5.0
PUBLISH_PEAK_MB = 500.0
WORKER_RSS_MB_10K = 200.0


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
            + (f" x {g['threads']} threads" if g["worker_class"] in THREADED_WORKERS else "")
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
            f"busy during the row (noise: the machine has {results['machine']['nproc']}). "
            "Warm rows repeat one request, as clients' listings do; cold rows (bench/cold.py) cycle "
            "through distinct requests against a second registry whose answer cache is off, so "
            "every one is answered as a request never seen before.",
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
        spread = [row for row in serve_data["rows"] if row.get("per_worker")]
        if spread:
            # Kept-alive connections stay on the worker that accepted them, and one worker's
            # threads share one GIL: one worker holding most of them caps the server at one core.
            lines += [
                "",
                "Each row's workers, busiest first: the cores each kept busy, the connections it held:",
                "",
            ]
            lines += [f"- {row['name']}: {format_per_worker(row['per_worker'])}" for row in spread]
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
            *(
                [f"- RSS per worker of the cold rows' registry (answer cache off): {mb_list(cold_rss)} MB"]
                if (cold_rss := serve_data.get("cold_worker_rss_mb"))
                else []
            ),
            "- largest registry worker RSS after the first requests of each kind (in this order): "
            + ", ".join(f"{name} {mb:.0f}" for name, mb in serve_data["worker_rss_mb_after_first"].items())
            + " MB",
        ]
    lines += ["", "## Targets", ""]
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
            elif is_cold(row["name"]):
                if n <= 1000 or row["name"].startswith("skills_search"):
                    target = COLD_RATIO_TARGET_1K if n <= 1000 else SEARCH_RATIO_TARGET_10K
                    ok = verdict(ratio >= target)
                    out.append(f"{ok} {row['name']} at {n:,}: {ratio:.2f} x ceiling (≥ {target})")
                else:
                    out.append(f"(informational) {row['name']} at {n:,}: {ratio:.2f} x ceiling")
            elif n <= 1000:
                tool = row["name"].startswith(("skills_", "skills/"))
                label = "" if tool else " (not a tool call; same bar shown)"
                out.append(
                    f"{verdict(ratio >= TOOL_RATIO_TARGET_1K)} {row['name']} at {n:,}: "
                    f"{ratio:.2f} x ceiling (≥ {TOOL_RATIO_TARGET_1K}){label}"
                )
            else:
                out.append(f"(informational) {row['name']} at {n:,}: {ratio:.2f} x ceiling (warm)")
        worst = max(serve_data["worker_rss_mb"])
        if n >= 10_000:
            out.append(
                f"{verdict(worst < WORKER_RSS_MB_10K)} RSS per worker at {n:,}: {worst:.0f} MB "
                f"(< {WORKER_RSS_MB_10K:.0f} MB)"
            )
        else:
            out.append(f"(RSS per worker at {n:,}: {worst:.0f} MB; the 200 MB target is for 10,000)")
    return out
