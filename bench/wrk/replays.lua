-- (b) Replays: the same REPLAY_KEYS keys (created beforehand by the entry script, key i by user i % users)
-- sent again with the same body, in a loop. Every answer must be 201 with "Idempotent-Replayed: true".
local dir = os.getenv("BENCH_DIR") or "bench"
local common = dofile(dir .. "/wrk/common.lua")
local keys = tonumber(os.getenv("BENCH_REPLAY_KEYS") or "200")

tid = 0
bad = 0
bad_sample = nil
local counter = 0
local requests = {}

function setup(thread) common.setup(thread) end

-- each key's request is the same bytes every time: built once, so that wrk spends its CPU sending, not formatting
function init(args)
  for i = 0, keys - 1 do
    requests[i] = wrk.format("POST", "/api/orders", {
      ["Authorization"] = "Bearer " .. common.tokens[(i % #common.tokens) + 1],
      ["Idempotency-Key"] = string.format("%s-replay-%04d", common.run_tag, i),
      ["Content-Type"] = "application/json",
    }, common.body)
  end
end

function request()
  -- threads start at different offsets so that two threads rarely replay the same key at the same moment
  local i = (tid * math.floor(keys / 2) + counter) % keys
  counter = counter + 1
  return requests[i]
end

function response(status, headers, body)
  if status ~= 201 or common.header(headers, "Idempotent-Replayed") ~= "true" then
    bad = bad + 1
    if bad_sample == nil then
      bad_sample = "status=" .. status .. " replayed=" .. tostring(common.header(headers, "Idempotent-Replayed"))
        .. " body=" .. string.sub(body or "", 1, 300)
    end
  end
end

function done(summary, latency, requests) common.done(summary, latency, requests) end
