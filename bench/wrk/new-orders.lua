-- (a) New-key order creation: POST /api/orders, a unique Idempotency-Key per request,
-- requests spread round-robin over the bench users' tokens. Every answer must be 201.
local dir = os.getenv("BENCH_DIR") or "bench"
local common = dofile(dir .. "/wrk/common.lua")

tid = 0          -- set per thread by setup()
bad = 0          -- answers other than 201 (read by done() through thread:get)
bad_sample = nil
local counter = 0
-- per token, the request's bytes before and after its key: formatted once, so that a request is one concatenation
local before_key, after_key = {}, {}

function setup(thread) common.setup(thread) end

function init(args)
  math.randomseed(os.time() + tid * 7919)
  local placeholder = "\1key\1"
  for t, token in ipairs(common.tokens) do
    local template = wrk.format("POST", "/api/orders", {
      ["Authorization"] = "Bearer " .. token,
      ["Idempotency-Key"] = placeholder,
      ["Content-Type"] = "application/json",
    }, common.body)
    local at = string.find(template, placeholder, 1, true)
    before_key[t] = string.sub(template, 1, at - 1)
    after_key[t] = string.sub(template, at + #placeholder)
  end
end

function request()
  counter = counter + 1
  local t = ((tid * 7 + counter) % #common.tokens) + 1
  return before_key[t] .. string.format("%s-t%d-%d-%08x", common.run_tag, tid, counter, math.random(0, 0x7fffffff))
    .. after_key[t]
end

function response(status, headers, body)
  if status ~= 201 or common.header(headers, "Idempotent-Replayed") ~= nil then
    bad = bad + 1
    if bad_sample == nil then bad_sample = "status=" .. status .. " body=" .. string.sub(body or "", 1, 300) end
  end
end

function done(summary, latency, requests) common.done(summary, latency, requests) end
