-- Paces another wrk script: each connection waits an exponential gap of mean PACED_GAP_MS (whole milliseconds, as wrk
-- schedules them) before each request, so the load stays below saturation; prints more percentiles than wrk.
--   PACED_SCRIPT=bench/wrk/replays.lua PACED_GAP_MS=12 wrk -t1 -c8 -d15s --latency -s bench/wrk/paced.lua URL
-- With PACED_GAP_MS=0 (or unset) nothing is paced: the wrapped script's closed loop, with the extra percentiles.
dofile(os.getenv("PACED_SCRIPT") or error("PACED_SCRIPT (the wrk script to pace) is not set"))

local gap = tonumber(os.getenv("PACED_GAP_MS") or "0")
if gap > 0 then
  function delay()
    return math.floor(-math.log(1 - math.random()) * gap + 0.5)
  end
end

local wrapped_done = done
function done(summary, latency, requests)
  if wrapped_done then wrapped_done(summary, latency, requests) end
  local shares = {}
  for _, p in ipairs({50, 75, 90, 95, 97, 98, 99, 99.5, 99.9}) do
    shares[#shares + 1] = string.format("p%s=%.2f", p, latency:percentile(p) / 1000)
  end
  io.write("PACED_PERCENTILES_MS " .. table.concat(shares, " ") .. string.format(" max=%.2f\n", latency.max / 1000))
end
