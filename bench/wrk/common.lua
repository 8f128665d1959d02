-- Shared by the wrk scripts: bearer tokens (one per bench user, from BENCH_TOKENS), the order body,
-- per-thread counters and a machine-readable summary line (BENCH_RESULT ...) printed by done().
-- wrk runs this file once in the main Lua state (setup/done) and once per thread (init/request/response).

local common = {}

common.body = '{"items":[{"productId":"p-184","quantity":1}],"currency":"RUB"}'
common.run_tag = os.getenv("BENCH_RUN_TAG") or tostring(os.time())

common.tokens = {}
local token_file = os.getenv("BENCH_TOKENS") or error("BENCH_TOKENS (file with one JWT per line) is not set")
for line in io.lines(token_file) do
  if #line > 0 then common.tokens[#common.tokens + 1] = line end
end
assert(#common.tokens > 0, "no tokens in " .. token_file)

-- headers arrive with the server's spelling; compare case-insensitively
function common.header(headers, name)
  if headers[name] ~= nil then return headers[name] end
  local wanted = string.lower(name)
  for k, v in pairs(headers) do
    if string.lower(k) == wanted then return v end
  end
  return nil
end

local threads = {}

-- main state: give each thread an id and remember it to collect its counters in done()
function common.setup(thread)
  thread:set("tid", #threads)
  threads[#threads + 1] = thread
end

function common.done(summary, latency, requests)
  local bad, samples = 0, {}
  for _, t in ipairs(threads) do
    bad = bad + (t:get("bad") or 0)
    local s = t:get("bad_sample")
    if s and #samples < 3 then samples[#samples + 1] = s end
  end
  local secs = summary.duration / 1e6
  local e = summary.errors
  io.write(string.format(
    "BENCH_RESULT requests=%d duration_s=%.2f rps=%.1f p50_ms=%.2f p90_ms=%.2f p99_ms=%.2f max_ms=%.2f " ..
    "non2xx=%d unexpected=%d connect_err=%d read_err=%d write_err=%d timeouts=%d\n",
    summary.requests, secs, summary.requests / secs,
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000,
    latency.max / 1000, e.status, bad, e.connect, e.read, e.write, e.timeout))
  for _, s in ipairs(samples) do io.write("BENCH_UNEXPECTED " .. s .. "\n") end
end

return common
