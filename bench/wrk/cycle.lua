-- wrk script for the cold rows: POST the bodies of a file in turn, one JSON body a line.
--   WRK_BODIES_FILE  file holding one JSON-RPC request body per line (required)
--   WRK_TOKEN        static bearer token (optional)
-- Each thread starts at its own place in the list, so the threads do not ask the same thing at
-- the same moment. A request() callback runs Lua per request: wrk's own CPU is higher than with
-- post.lua (the report shows it), the server's cost is unchanged.
-- At the end it prints one line "WRK_JSON {...}" as post.lua does.

local bodies_file = assert(os.getenv("WRK_BODIES_FILE"), "WRK_BODIES_FILE is not set")
local bodies = {}
for line in io.lines(bodies_file) do
  if line ~= "" then bodies[#bodies + 1] = line end
end
assert(#bodies > 0, "WRK_BODIES_FILE holds no bodies")

wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2025-11-25"
local token = os.getenv("WRK_TOKEN")
if token and token ~= "" then
  wrk.headers["Authorization"] = "Bearer " .. token
end

local threads = 0
function setup(thread)
  thread:set("thread_number", threads)
  threads = threads + 1
end

local position = 0
function init(args)
  position = (thread_number or 0) * 7919 % #bodies
end

function request()
  position = position % #bodies + 1
  return wrk.format(nil, nil, nil, bodies[position])
end

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
