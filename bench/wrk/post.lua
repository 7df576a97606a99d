-- wrk script for the registry benchmark: POST one fixed body, with the MCP headers, on every request.
--   WRK_BODY_FILE  file holding the JSON-RPC request body (required)
--   WRK_TOKEN      static bearer token (optional)
-- At the end it prints one line "WRK_JSON {...}" that bench/run.py parses (latencies in microseconds).

local body_file = assert(os.getenv("WRK_BODY_FILE"), "WRK_BODY_FILE is not set")
local handle = assert(io.open(body_file, "rb"))
wrk.method = "POST"
wrk.body = handle:read("*a")
handle:close()
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2025-11-25"
local token = os.getenv("WRK_TOKEN")
if token and token ~= "" then
  wrk.headers["Authorization"] = "Bearer " .. token
end

-- No request()/response() callbacks: wrk then sends the prebuilt request without calling Lua
-- per request, which keeps the load generator's own CPU cost low.

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRK_JSON {"requests":%d,"duration_us":%d,"bytes":%d,' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"latency_us":{"min":%d,"mean":%.1f,"max":%d,"stdev":%.1f,"p50":%d,"p75":%d,"p90":%d,"p99":%d,"p999":%d}}\n',
    summary.requests, summary.duration, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency.min, latency.mean, latency.max, latency.stdev,
    latency:percentile(50), latency:percentile(75), latency:percentile(90),
    latency:percentile(99), latency:percentile(99.9)))
end
