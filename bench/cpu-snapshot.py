#!/usr/bin/env python3
"""CPU accounting for one benchmark run, from /proc (Linux).

  cpu-snapshot.py snap <service_pid|0> <postmaster_pid>   -> prints "service_ticks pg_ticks busy_ticks all_ticks"
  cpu-snapshot.py diff "<snap before>" "<snap after>" <seconds> <client_cpu_seconds> <requests>
      -> prints "service_cores pg_cores client_cores other_cores machine_busy_pct service_ms_per_req pg_ms_per_req"
     (other_cores = busy machine time not attributed to the three: other processes, interrupts)

pg_ticks = user+system time of every live child of the postmaster plus the postmaster's reaped-children
time (cutime+cstime), so backends that exited during the run (pgbench's, autovacuum workers) still count.
"""
import os
import sys

HZ = os.sysconf("SC_CLK_TCK")


def stat_fields(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            data = f.read()
    except OSError:
        return None
    # comm may contain spaces: fields after the last ')'
    rest = data[data.rindex(")") + 2:].split()
    return rest  # rest[0] = state (field 3); utime = field 14 -> rest[11]


def proc_ticks(pid, children_too=False):
    f = stat_fields(pid)
    if f is None:
        return 0
    ticks = int(f[11]) + int(f[12])
    if children_too:
        ticks += int(f[13]) + int(f[14])
    return ticks


def children_of(ppid):
    out = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            f = stat_fields(int(name))
            if f is not None and int(f[1]) == ppid:
                out.append(int(name))
    return out


def snap(service_pid, postmaster_pid):
    service = proc_ticks(service_pid) if service_pid > 0 else 0
    pg = proc_ticks(postmaster_pid, children_too=True)
    for child in children_of(postmaster_pid):
        pg += proc_ticks(child)
    with open("/proc/stat") as f:
        cpu = [int(x) for x in f.readline().split()[1:]]
    idle = cpu[3] + cpu[4]
    total = sum(cpu[:8])
    print(service, pg, total - idle, total)


def diff(before, after, seconds, client_cpu, requests):
    b = [int(x) for x in before.split()]
    a = [int(x) for x in after.split()]
    seconds = float(seconds)
    service = (a[0] - b[0]) / HZ
    pg = (a[1] - b[1]) / HZ
    busy = (a[2] - b[2]) / max(1, a[3] - b[3]) * 100
    client = float(client_cpu) / seconds
    other = max(0.0, busy / 100 * os.cpu_count() - service / seconds - pg / seconds - client)
    requests = max(1, int(requests))
    print("%.2f %.2f %.2f %.2f %.0f %.3f %.3f" % (service / seconds, pg / seconds, client, other, busy,
                                                service * 1000 / requests, pg * 1000 / requests))


if __name__ == "__main__":
    if sys.argv[1] == "snap":
        snap(int(sys.argv[2]), int(sys.argv[3]))
    elif sys.argv[1] == "diff":
        diff(*sys.argv[2:7])
    else:
        raise SystemExit(__doc__)
