-- POST signed webhook events from a file prepared by bench/webhook-cost-benchmark.py: one event a line,
-- "<webhook-id>\t<webhook-timestamp>\t<webhook-signature>\t<body>" (Standard Webhooks headers, signed beforehand so
-- that the load generator spends nothing on HMACs), in order, from the first line again after the last (the
-- benchmark makes a file of new events longer than a row can send; a file of duplicates may be sent round again).
-- Run with one wrk thread. env: WEBHOOK_EVENTS (the file), WEBHOOK_EXPECT (the answer's status every delivery must
-- get: "processed", "ok", "duplicate", "already_processed").
local events = {}
local expect = os.getenv("WEBHOOK_EXPECT") or error("WEBHOOK_EXPECT is not set")
for line in io.lines(os.getenv("WEBHOOK_EVENTS") or error("WEBHOOK_EVENTS is not set")) do
  local id, timestamp, signature, body = line:match("^([^\t]+)\t([^\t]+)\t([^\t]+)\t(.+)$")
  events[#events + 1] = {id = id, timestamp = timestamp, signature = signature, body = body}
end
assert(#events > 0, "no events")

local sent = 0
bad, sample = 0, nil -- globals: done() reads them from the thread
local wanted = '"status":"' .. expect .. '"'

function request()
  sent = sent % #events + 1
  local e = events[sent]
  return wrk.format("POST", nil, {
    ["Content-Type"] = "application/json",
    ["webhook-id"] = e.id,
    ["webhook-timestamp"] = e.timestamp,
    ["webhook-signature"] = e.signature,
  }, e.body)
end

function response(status, headers, body)
  if status ~= 200 or not string.find(body:gsub("%s", ""), wanted, 1, true) then
    bad = bad + 1
    if not sample then sample = status .. " " .. body:sub(1, 200) end
  end
end

local threads = {}

function setup(thread)
  threads[#threads + 1] = thread
end

function done(summary, latency, requests)
  local unexpected, samples = 0, {}
  for _, t in ipairs(threads) do
    unexpected = unexpected + (t:get("bad") or 0)
    local s = t:get("sample")
    if s then samples[#samples + 1] = s end
  end
  io.write(string.format("BENCH_RESULT requests=%d unexpected=%d\n", summary.requests, unexpected))
  for _, s in ipairs(samples) do io.write("BENCH_UNEXPECTED " .. s .. "\n") end
end
