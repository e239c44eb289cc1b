"""Draws a few decode steps as a timeline (docs/serving.md, "A trace of a few steps").

    python timeline.py [--moe] [--first 20] [--steps 3] [--out timeline.png] [--json timeline.json]

The step is the routine's decode workload under `wsp.schedule(..., trace=...)`: each run writes
the cpu task runtime's Chrome trace (task, worker, start, duration). This script serves requests
as decode.py does, keeps each step's trace shifted to the step's start on one clock, adds a `step`
bar per call (a lane of its own: the host's whole call, checks and issue included), and writes the
merged trace (Perfetto opens it) and a picture of it (htp.trace_plot; needs matplotlib).
"""

import argparse
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import htp  # noqa: E402
from htp import trace_plot  # noqa: E402

import decode  # noqa: E402
import model  # noqa: E402
import weights  # noqa: E402
from server import Server  # noqa: E402

wsp = htp.model("wsp")
serving = htp.model("serving")
LAYERS = 2  # as decode.py's default


def traced_steps(first, steps, moe=False, seed=1):
    """The merged trace events of steps `first .. first + steps - 1` of decode.py's requests
    (continuous batching), a summary row per traced step, and the requests whose tokens differ
    from the numpy reference's."""
    trace = os.path.join(tempfile.mkdtemp(), "step.json")
    program = model.decode_step_moe if moe else model.decode_step
    routine = serving.routine(state=decode.routine(moe).state, decode=wsp.schedule(program, trace=trace))
    w = weights.make(layers=LAYERS, moe=moe)
    events, summary, calls = [], [], [0]
    origin = time.perf_counter()
    with routine.compile("cpu").start(**decode.initial_state(w, LAYERS)) as session:

        def step(tokens, positions, lens, table):
            start = time.perf_counter()
            sampled = session.decode(tokens, positions, lens, table)
            took = (time.perf_counter() - start) * 1e6
            calls[0] += 1
            if first <= calls[0] - 1 < first + steps:
                at = (start - origin) * 1e6
                ran = trace_plot.load_events(trace)
                for event in ran:
                    events.append({**event, "ts": at + float(event["ts"])})
                events.append({"name": f"step {calls[0] - 1}", "ph": "X", "ts": at, "dur": took, "pid": 0, "tid": -1})
                busy = sum(float(e["dur"]) for e in ran)
                summary.append((calls[0] - 1, int((lens > 0).sum()), len(ran), took, busy))
            return sampled

        requests = decode.requests_for(seed=seed)
        Server(step, decode.SLOTS, decode.POOL).run(requests)
    # A traced step computes what an untraced one does.
    wrong = [i for i, r in enumerate(requests) if r.generated != decode.expected_tokens(w, r)]
    return events, summary, wrong


def untraced_step_times(moe=False, seed=1):
    """Every step's time (µs) serving the same requests without a trace: what the trace's writing
    adds to a traced step's tail is the difference."""
    w = weights.make(layers=LAYERS, moe=moe)
    times = []
    with decode.routine(moe).compile("cpu").start(**decode.initial_state(w, LAYERS)) as session:

        def step(*inputs):
            start = time.perf_counter()
            sampled = session.decode(*inputs)
            times.append((time.perf_counter() - start) * 1e6)
            return sampled

        Server(step, decode.SLOTS, decode.POOL).run(decode.requests_for(seed=seed))
    return times


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--first", type=int, default=20, help="the first step traced (a full batch by then)")
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--moe", action="store_true")
    parser.add_argument("--out", default=None, help="the PNG (default: timeline.png in a new temporary directory)")
    parser.add_argument("--json", default=None, help="the merged trace (default: timeline.json beside the PNG)")
    args = parser.parse_args(argv)
    if args.out is None:
        args.out = os.path.join(tempfile.mkdtemp(), "timeline.png")
    if args.json is None:
        args.json = os.path.join(os.path.dirname(os.path.abspath(args.out)), "timeline.json")
    events, summary, wrong = traced_steps(args.first, args.steps, args.moe)
    origin = min(e["ts"] for e in events)
    kept = [{**e, "ts": e["ts"] - origin} for e in events]
    kept.append({"name": "thread_name", "ph": "M", "pid": 0, "tid": -1, "args": {"name": "host: step call"}})
    with open(args.json, "w", encoding="utf-8") as handle:
        json.dump({"traceEvents": kept}, handle)
    trace_plot.draw_timeline(args.json, args.out, title=f"decode steps {args.first}..{args.first + args.steps - 1} "
                            f"({'MoE' if args.moe else 'dense'}, cpu)")
    print("step  batch  tasks  step us  task-busy us")
    for row in summary:
        print("%4d  %5d  %5d  %7.0f  %12.0f" % row)
    plain = sorted(untraced_step_times(args.moe)[1:])
    print(f"without a trace: median step {plain[len(plain) // 2]:.0f} us over {len(plain)} steps")
    print(f"wrote {args.json} and {args.out}; "
          f"{'every token equal to numpy' if not wrong else f'requests {wrong} differ from numpy'}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
