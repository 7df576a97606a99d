#!/usr/bin/env python3
"""Smoke-test a deployed registry: /healthz serves the expected commit, and one MCP tool call works.

    SKILLS_SMOKE_TOKEN=... python scripts/smoke_test.py --url https://skills.example.com --expect-sha SHA

1. GET <url>/healthz until it answers 200 with `registry_sha` equal to --expect-sha (a freshly
   published snapshot may take a moment to reach every worker, so this is retried).
2. POST <url>/mcp: one `tools/call` of skills_list with the token from SKILLS_SMOKE_TOKEN; the reply
   must carry no JSON-RPC error, no `isError`, and `structuredContent.registry_sha` = --expect-sha.

Exits 0 when both pass, 1 with a one-line reason on stderr when a check fails, 2 on bad usage.
Standard library only, so CI can run it before (or without) installing the project. The token is
never printed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass

TOKEN_ENV = "SKILLS_SMOKE_TOKEN"  # noqa: S105 - the variable's name, not a token
PROTOCOL_VERSION = "2025-11-25"
USER_AGENT = "skills-registry-smoke-test/1"


class SmokeFailure(Exception):
    """A check failed; the message says which and why."""


class Retryable(SmokeFailure):
    """A failure that may clear up on its own (deploy still rolling out, a worker not yet caught up)."""


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes


def request(url: str, *, timeout: float, data: bytes | None = None, headers: dict[str, str]) -> Reply:
    req = urllib.request.Request(url, data=data, headers={"User-Agent": USER_AGENT, **headers})  # noqa: S310 - scheme checked in base_url()
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:  # noqa: S310 - scheme checked in base_url()
            return Reply(resp.status, {k.lower(): v for k, v in resp.headers.items()}, resp.read())
    except urllib.error.HTTPError as exc:
        with exc:
            return Reply(exc.code, {k.lower(): v for k, v in exc.headers.items()}, exc.read())
    except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
        reason = getattr(exc, "reason", exc)
        raise Retryable(f"{url}: cannot connect ({reason})") from None


def excerpt(body: bytes, limit: int = 200) -> str:
    text = body.decode("utf-8", "replace").strip().replace("\n", " ")
    return text if len(text) <= limit else text[:limit] + "..."


def decode_json(body: bytes, content_type: str, what: str) -> object:
    """The JSON of a reply; an SSE stream (text/event-stream) yields its first `data:` message."""
    text = body.decode("utf-8", "replace")
    if content_type.split(";")[0].strip().lower() == "text/event-stream":
        data_lines = []
        for line in text.splitlines():
            if line.startswith("data:"):
                data_lines.append(line[5:].removeprefix(" "))
            elif not line.strip() and data_lines:
                break
        text = "\n".join(data_lines)
    try:
        return json.loads(text)
    except ValueError:
        raise SmokeFailure(f"{what}: the reply is not JSON: {excerpt(body)}") from None


def check_healthz(base: str, expect_sha: str, timeout: float) -> None:
    url = f"{base}/healthz"
    reply = request(url, timeout=timeout, headers={"Accept": "application/json"})
    if reply.status != 200:
        # 503 {"status": "empty"} before the first publish; 502/504 while the app restarts.
        raise Retryable(f"GET /healthz: HTTP {reply.status}, expected 200: {excerpt(reply.body)}")
    health = decode_json(reply.body, reply.headers.get("content-type", ""), "GET /healthz")
    if not isinstance(health, dict):
        raise SmokeFailure(f"GET /healthz: expected a JSON object, got {excerpt(reply.body)}")
    if health.get("status") != "ok":
        raise Retryable(f"GET /healthz: status is {health.get('status')!r}, expected 'ok'")
    served = health.get("registry_sha")
    if served != expect_sha:
        raise Retryable(f"GET /healthz: registry_sha is {served!r}, expected {expect_sha!r}")


def check_mcp(base: str, expect_sha: str, token: str, timeout: float) -> None:
    url = f"{base}/mcp"
    message = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "skills_list", "arguments": {"limit": 1}},
    }
    reply = request(
        url,
        timeout=timeout,
        data=json.dumps(message).encode(),
        headers={
            "Authorization": f"Bearer {token}",
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": PROTOCOL_VERSION,
        },
    )
    if reply.status in (401, 403):
        challenge = reply.headers.get("www-authenticate", "")
        hint = f" (WWW-Authenticate: {challenge})" if challenge else ""
        raise SmokeFailure(
            f"POST /mcp: HTTP {reply.status}: the registry refused the token in {TOKEN_ENV}{hint}"
        )
    if reply.status >= 500:
        raise Retryable(f"POST /mcp: HTTP {reply.status}: {excerpt(reply.body)}")
    if reply.status != 200:
        raise SmokeFailure(f"POST /mcp: HTTP {reply.status}, expected 200: {excerpt(reply.body)}")
    envelope = decode_json(reply.body, reply.headers.get("content-type", ""), "POST /mcp")
    if not isinstance(envelope, dict):
        raise SmokeFailure(f"POST /mcp: expected a JSON-RPC object, got {excerpt(reply.body)}")
    if "error" in envelope:
        error = envelope["error"] if isinstance(envelope["error"], dict) else {}
        raise SmokeFailure(
            f"POST /mcp: JSON-RPC error {error.get('code')}: {error.get('message', envelope['error'])}"
        )
    result = envelope.get("result")
    if not isinstance(result, dict):
        raise SmokeFailure(f"POST /mcp: no result in the reply: {excerpt(reply.body)}")
    structured = result.get("structuredContent")
    if not isinstance(structured, dict):
        structured = {}
    if result.get("isError"):
        error = structured.get("error") if isinstance(structured.get("error"), dict) else {}
        code = error.get("code", "?")
        raise SmokeFailure(
            f"POST /mcp: skills_list returned an error result {code}: {error.get('message', '')}"
        )
    served = structured.get("registry_sha")
    if served != expect_sha:
        raise Retryable(f"POST /mcp: skills_list registry_sha is {served!r}, expected {expect_sha!r}")


def with_retries(check, *, attempts: int, interval: float) -> None:
    for attempt in range(1, attempts + 1):
        try:
            check()
            return
        except Retryable as exc:
            if attempt == attempts:
                raise SmokeFailure(f"{exc} (after {attempts} attempts)") from None
            print(f"  not yet: {exc}; retrying in {interval:g}s", file=sys.stderr)
            time.sleep(interval)


def base_url(raw: str) -> str:
    url = raw.strip().rstrip("/")
    url = url.removesuffix("/mcp").removesuffix("/healthz")
    parsed = urllib.parse.urlsplit(url)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise ValueError(f"--url must be an http(s) URL such as https://skills.example.com, got {raw!r}")
    return url


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="smoke_test.py",
        description=f"Smoke-test a deployed Skills Registry (token from ${TOKEN_ENV}).",
    )
    parser.add_argument(
        "--url", required=True, help="the registry's base URL, e.g. https://skills.example.com"
    )
    parser.add_argument("--expect-sha", required=True, help="the commit SHA that must be active")
    parser.add_argument("--attempts", type=int, default=10, help="tries per check (default 10)")
    parser.add_argument("--interval", type=float, default=3.0, help="seconds between tries (default 3)")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds per HTTP request (default 10)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        base = base_url(args.url)
    except ValueError as exc:
        print(f"smoke test: {exc}", file=sys.stderr)
        return 2
    expect_sha = args.expect_sha.strip().lower()
    token = os.environ.get(TOKEN_ENV, "").strip()
    if not expect_sha:
        print("smoke test: --expect-sha is empty", file=sys.stderr)
        return 2
    if not token:
        print(f"smoke test: set {TOKEN_ENV} to a read token for the registry", file=sys.stderr)
        return 2
    if args.attempts < 1 or args.interval < 0 or args.timeout <= 0:
        print("smoke test: --attempts must be >= 1, --interval >= 0 and --timeout > 0", file=sys.stderr)
        return 2

    try:
        with_retries(
            lambda: check_healthz(base, expect_sha, args.timeout),
            attempts=args.attempts,
            interval=args.interval,
        )
        print(f"ok: {base}/healthz serves {expect_sha}")
        with_retries(
            lambda: check_mcp(base, expect_sha, token, args.timeout),
            attempts=args.attempts,
            interval=args.interval,
        )
        print(f"ok: {base}/mcp tools/call skills_list answered from {expect_sha}")
    except SmokeFailure as exc:
        print(f"smoke test FAILED: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
