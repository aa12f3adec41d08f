#!/usr/bin/python3
"""Prints, every second, the CPU seconds each thread of process PID used in that second (name:tid=seconds, busiest
first), from /proc/PID/task/*/stat; for bench/profile_load.py --threads.

    /usr/bin/python3 bench/thread_cpu.py PID [SECONDS]
"""
import os
import sys
import time

CLK_TCK = os.sysconf("SC_CLK_TCK")


def snapshot(pid: int) -> dict:
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                s = f.read()
        except OSError:
            continue
        name = s[s.index("(") + 1:s.rindex(")")]
        fields = s.rsplit(")", 1)[1].split()
        out[tid] = (name, (int(fields[11]) + int(fields[12])) / CLK_TCK)
    return out


def main() -> int:
    pid = int(sys.argv[1])
    duration = float(sys.argv[2]) if len(sys.argv) > 2 else 3600
    t0 = time.monotonic()
    prev = snapshot(pid)
    while time.monotonic() - t0 < duration and os.path.exists(f"/proc/{pid}"):
        time.sleep(1.0)
        cur = snapshot(pid)
        used = sorted(((v - prev.get(t, (n, 0))[1], n, t) for t, (n, v) in cur.items()), reverse=True)
        busy = " ".join(f"{n}:{t}={d:.2f}" for d, n, t in used if d >= 0.05)
        print(f"{time.monotonic() - t0:6.1f}s total={sum(d for d, _, _ in used):.2f} {busy}", flush=True)
        prev = cur
    return 0


if __name__ == "__main__":
    sys.exit(main())
