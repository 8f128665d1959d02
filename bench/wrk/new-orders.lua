-- (a) New-key order creation: POST /api/orders, a unique Idempotency-Key per request,
-- requests spread round-robin over the bench users' tokens. Every answer must be 201.
local dir = os.getenv("BENCH_DIR") or "bench"
local common = dofile(dir .. "/wrk/common.lua")

tid = 0          -- set per thread by setup()
bad = 0          -- answers other than 201 (read by done() through thread:get)
bad_sample = nil
local counter = 0

function setup(thread) common.setup(thread) end

function init(args)
  math.randomseed(os.time() + tid * 7919)
end

function request()
  counter = counter + 1
  local token = common.tokens[((tid * 7 + counter) % #common.tokens) + 1]
  local key = string.format("%s-t%d-%d-%08x", common.run_tag, tid, counter, math.random(0, 0x7fffffff))
  return wrk.format("POST", "/api/orders", {
    ["Authorization"] = "Bearer " .. token,
    ["Idempotency-Key"] = key,
    ["Content-Type"] = "application/json",
  }, common.body)
end

function response(status, headers, body)
  if status ~= 201 or common.header(headers, "Idempotent-Replayed") ~= nil then
    bad = bad + 1
    if bad_sample == nil then bad_sample = "status=" .. status .. " body=" .. string.sub(body or "", 1, 300) end
  end
end

function done(summary, latency, requests) common.done(summary, latency, requests) end
