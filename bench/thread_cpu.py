#!/usr/bin/python3
"""Prints, every second, the CPU seconds each thread of process PID used in that second (name:tid=seconds, busiest
first), from /proc/PID/task/*/stat; for bench/profile_load.py --threads. At the end, per thread that ran at least
0.2 s: seconds on a CPU, seconds runnable but waiting for one (the run queue), and the rest of the time asleep
(blocked on a lock, a queue or I/O), from /proc/PID/task/*/schedstat.

    /usr/bin/python3 bench/thread_cpu.py PID [SECONDS]
"""
import os
import signal
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


def schedstat(pid: int) -> dict:
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                run_ns, wait_ns, _ = (int(x) for x in f.read().split())
            out[tid] = (run_ns / 1e9, wait_ns / 1e9)
        except (OSError, ValueError):
            continue
    return out


def report_schedstat(first: dict, last: dict, seconds: float, names: dict):
    rows = []
    for tid, (run, wait) in last.items():
        run0, wait0 = first.get(tid, (0.0, 0.0))
        if run - run0 >= 0.2:
            rows.append((run - run0, wait - wait0, tid))
    print(f"schedstat over {seconds:.1f} s: thread on-CPU s / run-queue s / asleep s", flush=True)
    for run, wait, tid in sorted(rows, reverse=True):
        print(f"  {names.get(tid, '?')}:{tid} {run:.2f} / {wait:.2f} / {max(0.0, seconds - run - wait):.2f}",
              flush=True)


def main() -> int:
    pid = int(sys.argv[1])
    duration = float(sys.argv[2]) if len(sys.argv) > 2 else 3600
    t0 = time.monotonic()
    prev = snapshot(pid)
    sched0 = schedstat(pid)
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        loop(pid, duration, t0, prev)
    except KeyboardInterrupt:
        pass
    report_schedstat(sched0, schedstat(pid), time.monotonic() - t0, {t: n for t, (n, _) in snapshot(pid).items()})
    return 0


def loop(pid: int, duration: float, t0: float, prev: dict):
    while time.monotonic() - t0 < duration and os.path.exists(f"/proc/{pid}"):
        time.sleep(1.0)
        cur = snapshot(pid)
        used = sorted(((v - prev.get(t, (n, 0))[1], n, t) for t, (n, v) in cur.items()), reverse=True)
        busy = " ".join(f"{n}:{t}={d:.2f}" for d, n, t in used if d >= 0.05)
        print(f"{time.monotonic() - t0:6.1f}s total={sum(d for d, _, _ in used):.2f} {busy}", flush=True)
        prev = cur


if __name__ == "__main__":
    sys.exit(main())
