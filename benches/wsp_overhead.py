"""The fixed host cost of a WSP workload call on the cpu, measured.

A workload of n trivial tasks (`wsp.parallel(wsp.dense(n))`, each task the
`add1` kernel on a 16x16 f32 tile) is called R times; its host overhead per
call is the call's time minus the sum of its tasks' times (the kernels'
runs, from the workload's trace: `wsp.schedule(..., trace=...)`), each the
median over the calls, same run. Target (the serving issue): at most
50 us + 1 us per task. Three ways to call it:

* `workload(x, y)`: the decorated function, as a user calls it (finds the
  compiled code for the arguments' constants, checks every argument);
* `compiled(x, y)`: the `CompiledKernel` (`workload.compile("cpu")`), which
  still checks every argument;
* `prepared()`: `compiled.prepare(x, y)`, checked once, then called per
  step (a serving loop over the same buffers).

Usage: python3 benches/wsp_overhead.py [--calls R]   (a markdown table)
"""

import argparse
import json
import os
import pathlib
import statistics
import tempfile
import time

import numpy as np

import htp
from htp import f32

wsp = htp.model("wsp")

TASK_COUNTS = [1, 16, 64, 256]
TARGET_FIXED_US = 50.0
TARGET_PER_TASK_US = 1.0


@htp.kernel
def add1(x: htp.Tensor[f32, 16, 16], y: htp.Out[f32, 16, 16]):
    y[:, :] = x[:, :] + 1.0


@wsp.workload
def tiles(x: htp.Tensor[f32, "N", 16], y: htp.Out[f32, "N", 16]):
    for i in wsp.parallel(wsp.dense(x.shape[0] // 16)):
        wsp.task(add1, x[i * 16:i * 16 + 16, :], y[i * 16:i * 16 + 16, :])


def median_us(call, calls):
    """The median time of `call()` over `calls` calls, in microseconds (after two warm-up calls)."""
    call()
    call()
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def task_time_us(x, y, calls):
    """The median over traced calls of the sum of the tasks' durations, in microseconds."""
    with tempfile.TemporaryDirectory() as directory:
        path = pathlib.Path(directory) / "trace.json"
        traced = wsp.schedule(tiles, trace=str(path))
        sums = []
        for _ in range(calls):
            traced(x, y)
            events = json.loads(path.read_text())["traceEvents"]
            sums.append(sum(event["dur"] for event in events if event.get("ph") == "X"))
        return statistics.median(sums)


def load_average():
    try:
        return f"{os.getloadavg()[0]:.1f}"
    except OSError:
        return "unknown"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=400, help="calls per measurement (median)")
    arguments = parser.parse_args()
    calls = arguments.calls
    compiled = tiles.compile("cpu")
    print(f"{len(os.sched_getaffinity(0))} cores; median of {calls} calls; load average before: {load_average()}\n")
    print("| tasks | task time (sum) | workload(x, y) | its overhead | compiled(x, y) | its overhead "
          "| prepared() | its overhead | target | met (prepared / compiled / workload) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for n in TASK_COUNTS:
        x = np.ones((16 * n, 16), np.float32)
        y = np.empty_like(x)
        prepared = compiled.prepare(x, y)
        tasks = task_time_us(x, y, max(20, calls // 4))
        times = {
            "workload": median_us(lambda: tiles(x, y), calls),
            "compiled": median_us(lambda: compiled(x, y), calls),
            "prepared": median_us(prepared, calls),
        }
        np.testing.assert_array_equal(y, x + 1)
        target = TARGET_FIXED_US + TARGET_PER_TASK_US * n
        overhead = {name: value - tasks for name, value in times.items()}
        met = " / ".join("yes" if overhead[name] <= target else "no" for name in ("prepared", "compiled", "workload"))
        print(f"| {n} | {tasks:.1f} us | {times['workload']:.1f} us | {overhead['workload']:.1f} us "
              f"| {times['compiled']:.1f} us | {overhead['compiled']:.1f} us "
              f"| {times['prepared']:.1f} us | {overhead['prepared']:.1f} us | {target:.0f} us | {met} |")
    print(f"\nload average after: {load_average()}; overhead = call time - sum of task times "
          f"(target: {TARGET_FIXED_US:.0f} us + {TARGET_PER_TASK_US:.0f} us per task)")


if __name__ == "__main__":
    main()
