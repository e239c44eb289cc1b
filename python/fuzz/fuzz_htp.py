"""Fuzz campaign for HTP's front end, passes and CPU runtime.

How to run (from the repository root; uses the installed/prebuilt `htp` package,
never builds anything):

    nice -n 19 python3 python/fuzz/fuzz_htp.py --minutes 30 --jobs 2   # after scripts/install-python (or PYTHONPATH=<a built htp package>)
    nice -n 19 python3 python/fuzz/fuzz_htp.py --minimize      # shrink each finding
    python3 python/fuzz/fuzz_htp.py --replay CASE.py [--replay-seed S]   # re-run one case
    python3 python/fuzz/fuzz_htp.py --corpus DIR   # hand-written cases instead of generated
    python3 python/fuzz/fuzz_htp.py --report                 # OUT/results.jsonl -> OUT/findings-auto.md
    python3 python/fuzz/gen.py SEED                          # print one generated program

`--minimize --max-tries 1` re-checks every finding against the current build
(the first test of the minimiser); `--only ID,ID` restricts it. Run everything
under `nice -n 19`; the driver never builds HTP, it uses whatever `htp` package
is on PYTHONPATH (a worker restarts itself when the native module changes on
disk, and a crash is confirmed in a fresh process before it counts).

Options: --out DIR (default /tmp/htp-fuzz), --seed N (campaign seed), --targets
cpu,pto-a2a3sim,pto-a2a3, --timeout SECONDS (per step, default 60), --no-run,
--mutate P (share of grammar programs that get text mutations, default 0.35),
--reference P, --no-sim.

What it does: `gen.py` generates random HTP programs from a grammar of the
language (tensors of rank 1-3 with static, symbolic and constant dims and every
dtype; slices with constant/run-time starts and ragged tails; elementwise ops,
reductions, broadcasts, matmul, cast, compares/where, iota, pad, zeros/full,
activations, tile slices, concat, reshape, selection, scatter;
scalar arithmetic with // and %; for loops with loop-carried values, static_range,
if/elif/else, helpers (@htp.func) incl. tuple returns, kernels calling kernels,
compile-time constants), mostly well-typed, some with deliberate mistakes and
some with text mutations (unsupported Python syntax, bad annotations, huge/zero/
negative sizes, undefined names, cut/deleted/duplicated lines, unicode, CRLF,
recursion, garbage bytes, bad constants to compile()).

Reference programs (`gen_ref.py`; `--reference P` is their share, default
gen.REFERENCE_SHARE: 0.35 for `any`, 0.5 for `pto`; the rest come from the
grammar, which writes issue 30's constructs too, checked for crashes and
locations only): kernels of tile slices and steps (`t[:, a:b]`, `t[:, 1::2]`,
`t[a:b]`, `t[:, j]`), `htp.concat` on either axis, `htp.reshape`, strided
tensor slices (`x[i:i + 16, 0::2]`, `x[i + 1:i + 16:2, :]`, stores into every
n-th column), argmax/argmin, sort/argsort, topk, gather/scatter by column,
scatter of rows into a tensor, the activations, zeros_like/full_like, pads,
casts, compares and `where`, and scalar reads (`n = lens[b]` as a loop bound,
`sel[b]` as an offset, `sc[b]` as an operand, `offs[b]` as a column start,
conditions on them) — with ragged row blocks, every element type of the
profile, and combinations (topk of a slice, scatter of a gather, concat of
activations, ...). Each carries its numpy reference (`refops.py`), its inputs
and the refusals docs/language.md and docs/support-matrix.md document for its
constructs on PTO (i64 scatter, i32 sorts, column steps A2/A3's TGATHER does
not pick, reshapes across row padding, masks in shape ops...). The worker
compares the cpu run with numpy (`wrong-result`), and on `pto-a2a3sim` runs
the package on pto-runtime's simulator and compares it too
(`sim-wrong-result`, `sim-run-exception`; `--no-sim` turns it off; a worker
retires after 100 simulator runs, pto-runtime's pthread keys). A compile that
refuses what the docs do not refuse is `unexpected-refusal`, one that refuses
at another line `refusal-wrong-line`, one that compiles what the docs say a
target refuses `missing-refusal`; refusals as documented count as
`refused-as-documented` (and UB's size, L37, as `refused-documented-limit`).
The pto profile picks parameters PTO takes most of the time and probes i64
and i8 (refused for most of these constructs) in 12% of its programs.

Each program is written to OUT/cases/cNNNNNN.py and handed to a worker
*process* (worker.py) that imports it as a module (or, when Python cannot import
it, passes its text straight to the native compiler), compiles it for every
target and, when the CPU compile succeeds, runs it twice on random inputs with
canaries around every tensor (out-of-bounds writes) and compares the runs
(non-determinism), then runs it again with its arrays handed over differently
(issue 21): every tensor a strided view, inputs read-only and bool inputs with
bytes other than 0/1, an input aliased to an output (numpy's "as if copied");
each must give the dense run's outputs and leave inputs alone.
`python/fuzz/concurrent_writers.py` runs processes writing one package and transform
script while a reader checks every manifest it opens. A worker that dies (signal / abort) or exceeds the timeout is
observed by this driver, which records the step it was in, confirms the crash
in a fresh process and restarts the worker.

PTO packages against pto-isa: when `pto-a2a3sim` is among the targets and
pto-isa is present (`HTP_PTO_ISA_ROOT`, `g++-15` on PATH, pto-runtime
importable; `htp.pto.isa_check`), the kernels of every pto-a2a3sim package
are compiled against it (syntax only, in batches, on a thread of the driver);
a kernel that does not compile is an `isa-compile` finding, and
OUT/summary.json's `pto_isa` counts the programs and kernels checked.
`--no-isa` turns it off. `--profile pto` generates programs a PTO target
should package (no deliberate mistakes, PTO's vector element types, no
CPU-only layouts, fewer matmuls), e.g.

    python3 python/fuzz/fuzz_htp.py --profile pto --targets pto-a2a3sim --no-run --mutate 0 --minutes 12

Outcomes per compilation: ok, located (a CompileError with file:line:col in the
case file, excerpt and caret: the expected kind of failure) and findings:
internal-error, no-location, wrong-file, bad-line, bad-column, bad-excerpt,
bad-caret, no-excerpt, py-exception (a non-CompileError exception out of htp),
signal/exit (process died), timeout; at run time: run-py-exception, oob-write,
nondeterministic, arg-error-* (ArgumentError without proper location),
run-timeout, arg-mutation-mismatch, arg-mutation-exception, readonly-input-written; of reference programs
wrong-result, sim-wrong-result, sim-run-exception, unexpected-refusal, refusal-wrong-line, missing-refusal,
run-error-valid-program, reference-error (the generator's own mistake). Findings are deduplicated by (kind, first line of the message with
the path and numbers stripped); OUT/findings.json keeps each one's count and
smallest program, copied to OUT/findings/<id>.py. `--minimize` shrinks each
(line-level delta debugging, checked in fresh processes) into
OUT/findings/<id>.min.py. OUT/summary.json holds the counts.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import select
import subprocess
import sys
import threading
import time
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen  # noqa: E402

FINDING_KINDS = {
    "internal-error", "no-location", "wrong-file", "bad-line", "bad-column", "bad-excerpt", "bad-caret",
    "no-excerpt", "py-exception", "signal", "exit", "timeout", "run-py-exception", "oob-write",
    "nondeterministic", "run-timeout", "arg-error-no-location", "arg-error-wrong-file", "arg-error-bad-line",
    "arg-error-bad-column", "arg-error-bad-excerpt", "arg-error-bad-caret", "arg-error-internal-error",
    "arg-error-no-excerpt", "import-htp-exception", "stderr-output", "run-signal", "panic-exception",
    "run-panic-exception", "arg-mutation-mismatch", "arg-mutation-exception", "readonly-input-written",
    "isa-compile",
    # reference programs (gen_ref.py): numpy's values, the documented refusals
    "wrong-result", "sim-wrong-result", "sim-run-exception", "sim-run-located", "sim-run-no-location",
    "sim-run-internal-error", "missing-refusal", "refusal-wrong-line", "unexpected-refusal", "run-error-valid-program",
    "reference-error", "sim-reference-error", "sim-signal",
}
SEVERITY = ["signal", "run-signal", "exit", "panic-exception", "run-panic-exception", "oob-write", "timeout", "py-exception", "run-py-exception",
            "import-htp-exception", "internal-error", "nondeterministic", "no-location", "wrong-file",
            "bad-line", "bad-column", "bad-caret", "bad-excerpt", "no-excerpt", "run-timeout"]


def normalize(text: str, path: str) -> str:
    first = (text or "").strip().splitlines()[0] if (text or "").strip() else ""
    first = first.replace(path, "FILE")
    first = re.sub(r"/tmp/htp-fuzz/\S*?c\d+\.py", "FILE", first)
    first = re.sub(r"fuzzcase_\w+", "MOD", first)
    return re.sub(r"\d+", "#", first)[:300]


class Worker:
    def __init__(self, out, wid, timeout):
        self.out, self.wid, self.timeout = out, wid, timeout
        self.err_path = os.path.join(out, "work", f"w{wid}.stderr")
        self.proc = None
        self.buf = b""

    def start(self):
        """Start the worker; retried, since the prebuilt package may be in the middle of a refresh."""
        os.makedirs(os.path.dirname(self.err_path), exist_ok=True)
        for attempt in range(40):
            self.proc = subprocess.Popen([sys.executable, os.path.join(HERE, "worker.py"), self.err_path],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            self.buf = b""
            line = self.readline(time.time() + 120)
            if line == "READY":
                return
            self.stop()
            print(f"worker {self.wid} did not start ({line!r}): {last_meaningful(self.stderr_tail())}; retrying in 15 s",
                  flush=True)
            time.sleep(15)
        raise RuntimeError("worker did not start after 40 attempts")

    def readline(self, deadline):
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buf:
            left = deadline - time.time()
            if left <= 0:
                return None  # timeout
            r, _, _ = select.select([fd], [], [], left)
            if r:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    return ""  # EOF: died
                self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line.decode("utf-8", errors="replace")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()  # our own child, by its pid
        if self.proc:
            self.proc.wait()
        self.proc = None

    def stderr_tail(self):
        try:
            with open(self.err_path, "rb") as f:
                text = f.read().decode("utf-8", errors="replace")
            return text if len(text) < 6000 else text[:4000] + "\n[...]\n" + text[-2000:]
        except OSError:
            return ""

    def run(self, req):
        """Result dict; on death/timeout a dict with kind signal/exit/timeout."""
        if self.proc is None or self.proc.poll() is not None:
            self.start()
        self.proc.stdin.write((json.dumps(req) + "\n").encode())
        self.proc.stdin.flush()
        step = None
        t0 = time.time()
        deadline = t0 + self.timeout
        while True:
            line = self.readline(deadline)
            if line is None:
                tail = self.stderr_tail()
                self.stop()
                kind = "run-timeout" if step and step.startswith("run") else "timeout"
                return {"dead": True, "kind": kind, "step": step, "msg": f"no progress for {self.timeout}s in step '{step}'",
                        "stderr": tail}
            if line == "":
                rc = self.proc.wait()
                tail = self.stderr_tail()
                self.proc = None
                kind = "signal" if rc < 0 else "exit"
                if kind == "signal" and step and step.startswith("run"):
                    kind = "run-signal"
                sig = f"signal {-rc}" if rc < 0 else f"exit status {rc}"
                return {"dead": True, "kind": kind, "step": step, "rc": rc,
                        "msg": f"process died ({sig}) in step '{step}': {last_meaningful(tail)}", "stderr": tail}
            if line == "RESTART":  # the native module changed on disk: a fresh worker takes the case
                self.stop()
                time.sleep(5)  # let the refresh finish
                self.start()
                self.restarts = getattr(self, "restarts", 0) + 1
                self.proc.stdin.write((json.dumps(req) + "\n").encode())
                self.proc.stdin.flush()
                deadline = time.time() + self.timeout
                continue
            if line.startswith("BEGIN "):
                step = line[6:]
                deadline = time.time() + self.timeout
            elif line.startswith("RESULT "):
                res = json.loads(line[7:])
                res["seconds"] = round(time.time() - t0, 3)
                return res


def last_meaningful(tail: str) -> str:
    lines = [l for l in tail.strip().splitlines() if l.strip()]
    for n, l in enumerate(lines):
        if "panicked at" in l and n + 1 < len(lines):
            return (re.sub(r"thread '.*?' \(\d+\) ", "", l.strip()) + " " + lines[n + 1].strip())[:400]
        if "LLVM ERROR" in l or "Assertion" in l or "error:" in l.lower() or "Segmentation" in l:
            return l.strip()[:400]
    return lines[-1].strip()[:300] if lines else "(nothing on stderr)"


def outcomes_of(res):
    """(where, kind, message) of every step of one case."""
    out = []
    if res.get("dead"):
        out.append((res.get("step") or "?", res["kind"], res["msg"]))
        return out
    for target, rec in res.get("targets", {}).items():
        msg = rec.get("msg", "")
        if rec["kind"] == "py-exception":
            msg = f"{rec['exc']}: {msg}  [at {' < '.join(reversed(rec.get('frames', [])[-2:]))}]"
        out.append((f"compile {target}", rec["kind"], msg))
    if "run" in res:
        rec = res["run"]
        msg = rec.get("msg", "")
        if rec["kind"] == "run-py-exception":
            msg = f"{rec['exc']}: {msg}  [at {' < '.join(reversed(rec.get('frames', [])[-2:]))}]"
        out.append(("run cpu", rec["kind"], msg))
    if "sim" in res:
        rec = res["sim"]
        msg = rec.get("msg", "")
        if rec["kind"] == "sim-run-exception":
            msg = f"{rec.get('exc', '')}: {msg}"
        out.append(("run pto-a2a3sim", rec["kind"], msg))
    if res.get("import_htp_frames"):
        out.append(("import", "import-htp-exception", res.get("import_error", "")))
    if res.get("stderr"):
        out.append(("any", "stderr-output", res["stderr"].strip().splitlines()[0] if res["stderr"].strip() else ""))
    return out


def load_isa_check():
    """`htp.pto.isa_check` without importing `htp` itself: the driver never
    maps the native module (the workers restart when it changes on disk)."""
    import importlib.util
    import types

    spec = importlib.util.find_spec("htp")
    if spec is None or not spec.origin:
        return None
    package = types.ModuleType("_htp_fuzz_pto")
    package.__path__ = [os.path.join(os.path.dirname(spec.origin), "pto")]
    sys.modules["_htp_fuzz_pto"] = package
    return importlib.import_module("_htp_fuzz_pto.isa_check")


class IsaCheck:
    """Compiles the kernels of the programs' pto-a2a3sim packages against
    pto-isa (`htp.pto.isa_check`) in batches, on a thread of its own, as the
    workers hand them over; a kernel that does not compile is an
    `isa-compile` finding of its program."""

    BATCH = 96

    def __init__(self, campaign, module):
        self.campaign = campaign
        self.module = module
        enabled = module is not None
        self.enabled = enabled
        self.pending = []  # (path, src, meta, [Kernel])
        self.cond = threading.Condition()
        self.done = False
        self.programs = self.kernels = self.failed_programs = self.failed_kernels = 0
        self.thread = threading.Thread(target=self.loop, daemon=True)
        if enabled:
            self.thread.start()

    def add(self, path, src, meta, kernels):
        if not self.enabled:
            return
        with self.cond:
            self.pending.append((path, src, meta, [self.module.Kernel(*k) for k in kernels]))
            self.cond.notify()

    def finish(self):
        if not self.enabled:
            return
        with self.cond:
            self.done = True
            self.cond.notify()
        self.thread.join()

    def loop(self):
        while True:
            with self.cond:
                self.cond.wait_for(lambda: self.done or sum(len(k) for *_, k in self.pending) >= self.BATCH)
                batch, self.pending = self.pending, []
                last = self.done
            if batch:
                failures = self.module.check([k for *_, kernels in batch for k in kernels])
                with self.campaign.lock:
                    for path, src, meta, kernels in batch:
                        self.programs += 1
                        self.kernels += len(kernels)
                        bad = [k for k in kernels if k.label in failures]
                        self.campaign.counts[("isa pto-a2a3sim", "isa-compile" if bad else "ok")] += 1
                        if bad:
                            self.failed_programs += 1
                            self.failed_kernels += len(bad)
                        for k in bad:
                            message = failures[k.label]
                            self.campaign.finding("isa pto-a2a3sim", "isa-compile", message, path, src, meta,
                                                  f"{k.label}:\n{message}")
            if last:
                return

    def summary(self):
        return {"programs": self.programs, "kernels": self.kernels, "programs_failing": self.failed_programs,
                "kernels_failing": self.failed_kernels}


class Campaign:
    def __init__(self, args):
        self.args = args
        self.out = args.out
        for d in ("cases", "findings", "work"):
            os.makedirs(os.path.join(self.out, d), exist_ok=True)
        self.lock = threading.Lock()
        self.next_id = 0
        self.counts = Counter()  # (target, kind)
        self.programs = 0
        self.compilations = Counter()
        self.findings = {}
        self.results = open(os.path.join(self.out, "results.jsonl"), "a")
        self.targets = args.targets.split(",")
        self.sim = "pto-a2a3sim" in self.targets and not args.no_sim and not args.no_run
        self.t0 = time.time()
        path = os.path.join(self.out, "findings.json")
        if os.path.exists(path) and args.resume:
            with open(path) as f:
                self.findings = json.load(f)
        isa = load_isa_check() if "pto-a2a3sim" in self.targets and not args.no_isa else None
        if isa is not None and isa.problem():
            print(f"PTO packages are not compiled against pto-isa: {isa.problem()}", flush=True)
            isa = None
        self.isa = IsaCheck(self, isa)

    def take(self):
        with self.lock:
            n = self.next_id
            self.next_id += 1
            return n

    def record(self, n, path, src, meta, res, confirm=None):
        with self.lock:
            self.programs += 1
            self.counts[("program", "reference" if meta.get("reference") else "grammar")] += 1
            for where, kind, msg in outcomes_of(res):
                target = where.split(" ", 1)[1] if where.startswith(("compile ", "run ")) else where
                if where.startswith("compile"):
                    self.compilations[target] += 1
                self.counts[(where.split(" #")[0].split(" sizes")[0], kind)] += 1
                if kind not in FINDING_KINDS:
                    continue
                self.finding(where, kind, msg, path, src, meta, res_text(res, where), confirm)
            self.results.write(json.dumps({"id": n, "path": path, "meta": meta, "res": res}) + "\n")
            if self.programs % 50 == 0:
                self.save()
        if res.get("pto_kernels"):
            self.isa.add(path, src, meta, res["pto_kernels"])

    def finding(self, where, kind, msg, path, src, meta, full, confirm=None):
        """Count one finding (deduplicated by kind and message); the caller holds the lock."""
        key = f"{kind}|{normalize(msg, path)}"
        fid = hashlib.sha1(key.encode()).hexdigest()[:10]
        f = self.findings.get(fid)
        size = len(src)
        if f is None:
            f = self.findings[fid] = {"id": fid, "kind": kind, "key": key, "count": 0, "where": [],
                                      "first_case": path, "smallest_case": path, "smallest_size": size,
                                      "message": msg, "full": full, "meta": meta}
            print(f"[{time.time() - self.t0:7.0f}s] NEW FINDING {fid} {kind} ({where}): {msg.splitlines()[0][:160] if msg else ''}",
                  flush=True)
        f["count"] += 1
        if where not in f["where"]:
            f["where"].append(where)
        if confirm is not None:
            f.setdefault("confirm", []).append(confirm)
        if size < f["smallest_size"]:
            f.update(smallest_case=path, smallest_size=size, message=msg, full=full, meta=meta)
        with open(os.path.join(self.out, "findings", f"{fid}.py"), "w") as fh:
            with open(f["smallest_case"], encoding="utf-8", errors="replace", newline="") as src_f:
                fh.write(src_f.read())

    def save(self):
        with open(os.path.join(self.out, "findings.json"), "w") as f:
            json.dump(self.findings, f, indent=1)
        summary = {
            "elapsed_s": round(time.time() - self.t0),
            "programs": self.programs,
            "compilations": dict(self.compilations),
            "outcomes": {f"{w} {k}": c for (w, k), c in sorted(self.counts.items())},
            "distinct_findings": len(self.findings),
            "pto_isa": self.isa.summary() if self.isa.enabled else None,
        }
        with open(os.path.join(self.out, "summary.json"), "w") as f:
            json.dump(summary, f, indent=1)
        self.results.flush()

    def thread(self, wid, stop_at):
        w = Worker(self.out, wid, self.args.timeout)
        try:
            while time.time() < stop_at:
                n = self.take()
                seed = self.args.seed * 10_000_000 + n
                src, meta = gen.generate(seed, self.args.mutate, self.args.profile, self.args.reference)
                path = os.path.join(self.out, "cases", f"c{n:06d}.py")
                with open(path, "w", encoding="utf-8", newline="") as f:
                    f.write(src)
                req = {"path": path, "targets": self.targets, "run": not self.args.no_run, "seed": seed,
                       "isa": self.isa.enabled, "sim": self.sim}
                res = w.run(req)
                if res.get("retire"):
                    w.stop()  # its simulator runs used up the process's pthread keys: the next case starts a fresh one
                confirm = None
                if res.get("dead") and res["kind"] in ("signal", "exit", "run-signal"):
                    # confirm in a fresh process
                    fresh = Worker(self.out, f"{wid}c", self.args.timeout)
                    try:
                        again = fresh.run(req)
                    finally:
                        fresh.stop()
                    confirm = "reproduced in a fresh process" if again.get("dead") else "NOT reproduced in a fresh process"
                    res["confirm"] = confirm
                self.record(n, path, src, meta, res, confirm)
        finally:
            w.stop()

    def corpus_thread(self, wid, files):
        """Run hand-written cases (--corpus DIR) instead of generated ones."""
        w = Worker(self.out, wid, self.args.timeout)
        try:
            while True:
                with self.lock:
                    if not files:
                        return
                    path = files.pop(0)
                    n = self.next_id
                    self.next_id += 1
                with open(path, encoding="utf-8", errors="replace", newline="") as f:
                    src = f.read()
                req = {"path": path, "targets": self.targets, "run": not self.args.no_run, "seed": n,
                       "isa": self.isa.enabled, "sim": self.sim}
                res = w.run(req)
                if res.get("retire"):
                    w.stop()
                confirm = None
                if res.get("dead") and res["kind"] in ("signal", "exit", "run-signal"):
                    fresh = Worker(self.out, f"{wid}c", self.args.timeout)
                    try:
                        again = fresh.run(req)
                    finally:
                        fresh.stop()
                    confirm = "reproduced in a fresh process" if again.get("dead") else "NOT reproduced in a fresh process"
                    res["confirm"] = confirm
                self.record(n, path, src, {"corpus": os.path.basename(path)}, res, confirm)
        finally:
            w.stop()

    def run(self):
        if self.args.corpus:
            files = sorted(os.path.join(self.args.corpus, f) for f in os.listdir(self.args.corpus) if f.endswith(".py"))
            files = [os.path.abspath(f) for f in files]
            threads = [threading.Thread(target=self.corpus_thread, args=(i, files), daemon=True) for i in range(self.args.jobs)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            self.isa.finish()
            with self.lock:
                self.save()
            print(json.dumps(json.load(open(os.path.join(self.out, "summary.json"))), indent=1))
            return
        stop_at = self.t0 + self.args.minutes * 60
        threads = [threading.Thread(target=self.thread, args=(i, stop_at), daemon=True) for i in range(self.args.jobs)]
        for t in threads:
            t.start()
        last = 0
        while any(t.is_alive() for t in threads):
            time.sleep(5)
            if time.time() - last > 60:
                last = time.time()
                with self.lock:
                    self.save()
                    print(f"[{time.time() - self.t0:7.0f}s] {self.programs} programs, {len(self.findings)} distinct findings",
                          flush=True)
        self.isa.finish()
        with self.lock:
            self.save()
        print(json.dumps(json.load(open(os.path.join(self.out, "summary.json"))), indent=1))


def res_text(res, where):
    """The full error output of one step, for the report."""
    if res.get("dead"):
        return f"{res['msg']}\n--- stderr of the process ---\n{res.get('stderr', '')}"
    if where.startswith("compile "):
        rec = res["targets"].get(where[8:], {})
    elif where.startswith("run"):
        rec = res.get("run", {})
    elif where == "import":
        return res.get("import_tb", "")
    else:
        return res.get("stderr", "")
    text = rec.get("tb") or f"{rec.get('exc', '')}: {rec.get('msg', '')}"
    if res.get("stderr"):
        text += f"\n--- stderr ---\n{res['stderr']}"
    return text


# ---------------------------------------------------------------------- minimisation
def check_same(out, path, targets, key, timeout, run, seed=1):
    w = Worker(out, "min-" + os.path.basename(path)[:-3], timeout)
    try:
        res = w.run({"path": path, "targets": targets, "run": run, "seed": seed, "sim": "pto-a2a3sim" in targets and run})
    finally:
        w.stop()
    for where, kind, msg in outcomes_of(res):
        if f"{kind}|{normalize(msg, path)}" == key:
            return True, res
    return False, res


PROTECTED = re.compile(r"^(def __fuzz_|    return k\.compile|    return compiled\(|import htp|@htp\.kernel\s*$|def k\()")


def minimize(out, fid, f, timeout, max_tries=150):
    path = f["smallest_case"]
    with open(path, encoding="utf-8", errors="replace", newline="") as fh:
        src = fh.read()
    nl = "\r\n" if "\r\n" in src else "\n"
    lines = src.split(nl)
    where = f["where"][0]
    targets = [where[8:]] if where.startswith("compile ") else [where[4:]] if where.startswith("run ") else ["cpu"]
    run = where.startswith("run") or f["kind"] in ("run-signal", "run-timeout", "oob-write", "nondeterministic")
    if f["kind"] in ("signal", "exit", "timeout") and f.get("where"):
        step = where
        targets = [step[8:]] if step.startswith("compile ") else ["cpu"]
        run = step.startswith("run")
    work = os.path.join(out, "work", f"min_{fid}.py")
    seed = (f.get("meta") or {}).get("seed", 1)  # the run's random sizes come from the case's seed
    tries = 0

    def test(cand):
        nonlocal tries
        if tries >= max_tries:
            return False
        tries += 1
        with open(work, "w", encoding="utf-8", newline="") as fh:
            fh.write(nl.join(cand))
        same, _ = check_same(out, work, targets, f["key"], timeout, run, seed)
        return same

    # the key was computed with the original path; with the work path both normalise to FILE
    if not test(lines):
        return None, tries
    chunk = max(1, len(lines) // 2)
    while chunk >= 1:
        i = 0
        changed = False
        while i < len(lines):
            cand = lines[:i] + lines[i + chunk:]
            if any(PROTECTED.match(l) for l in lines[i:i + chunk]) or cand == lines:
                i += chunk
                continue
            if test(cand):
                lines = cand
                changed = True
            else:
                i += chunk
        if not changed:
            chunk //= 2
    # simplify remaining lines: drop 'import' lines, blank lines done above; try shortening expressions
    with open(work, "w", encoding="utf-8", newline="") as fh:
        fh.write(nl.join(lines))
    final = os.path.join(out, "findings", f"{fid}.min.py")
    with open(final, "w", encoding="utf-8", newline="") as fh:
        fh.write(nl.join(lines))
    _, res = check_same(out, final, targets, f["key"], timeout, run, seed)
    return final, tries, res


def build_report(out):
    """Recompute outcomes and findings from OUT/results.jsonl; write OUT/findings-auto.md and return the text."""
    counts = Counter()
    programs = 0
    compilations = Counter()
    runs = 0
    findings = {}
    artifacts = []
    elapsed = None
    try:
        with open(os.path.join(out, "summary.json")) as fh:
            elapsed = json.load(fh).get("elapsed_s")
    except OSError:
        pass
    with open(os.path.join(out, "results.jsonl")) as fh:
        for line in fh:
            r = json.loads(line)
            res, path = r["res"], r["path"]
            programs += 1
            if res.get("dead") and str(res.get("confirm", "")).startswith("NOT"):
                # a crash a fresh process does not repeat: the worker's memory was corrupted by an
                # earlier case (an out-of-bounds write), or the prebuilt module was replaced under it
                artifacts.append((path, res["kind"], res.get("rc"), res.get("step")))
                counts[("(any)", "crash-not-reproduced")] += 1
                continue
            for where, kind, msg in outcomes_of(res):
                w = where.split(" #")[0].split(" sizes")[0]
                if where.startswith("compile "):
                    compilations[where[8:]] += 1
                if where.startswith("run"):
                    runs += 1
                if kind == "stderr-output" and "SyntaxWarning" in msg:
                    kind = "python-warning"  # CPython's own warning about the case's code
                if kind == "run-py-exception" and re.match(re.escape(path) + r":\d+:\d+: error: ", msg.split(": ", 1)[-1]):
                    kind = "run-error-located"  # a deliberate run-time error (the bounds check's IndexError)
                counts[(w, kind)] += 1
                if kind not in FINDING_KINDS:
                    continue
                key = f"{kind}|{normalize(msg, path)}"
                f = findings.setdefault(key, {"kind": kind, "key": key, "count": 0, "where": set(), "cases": [],
                                              "message": msg, "path": path, "size": 1 << 60, "full": ""})
                f["count"] += 1
                f["where"].add(w)
                size = os.path.getsize(path) if os.path.exists(path) else 1 << 59
                if size < f["size"]:
                    f.update(size=size, path=path, message=msg, full=res_text(res, where))
    order = {k: i for i, k in enumerate(SEVERITY)}
    lines = [f"# Fuzz results in {out}", ""]
    if elapsed is not None:
        lines.append(f"Wall time: {elapsed} s ({elapsed / 60:.1f} min).")
    lines += [f"Programs: {programs}. Compilations: " + ", ".join(f"{t} {n}" for t, n in sorted(compilations.items()))
              + f". CPU run steps: {runs}.", "", "## Outcomes", "", "| step | outcome | count |", "|---|---|---|"]
    for (w, k), n in sorted(counts.items()):
        lines.append(f"| {w} | {k} | {n} |")
    lines += ["", f"## Distinct findings ({len(findings)})", ""]
    for f in sorted(findings.values(), key=lambda f: (order.get(f["kind"], 99), -f["count"])):
        lines += [f"### {f['kind']} x{f['count']} ({', '.join(sorted(f['where']))})", "",
                  f"Smallest case: `{f['path']}` ({f['size']} bytes)", "", "```", f["full"][:3000], "```", ""]
    if artifacts:
        lines += ["## Crashes not reproduced in a fresh process (not counted as findings)", ""]
        for a in artifacts:
            lines.append(f"* `{a[0]}`: {a[1]} rc={a[2]} in step {a[3]!r}")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(out, "findings-auto.md"), "w") as fh:
        fh.write(text)
    return text


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--minutes", type=float, default=30)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default="/tmp/htp-fuzz")
    ap.add_argument("--targets", default="cpu,pto-a2a3sim,pto-a2a3")
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--mutate", type=float, default=0.35)
    ap.add_argument("--no-run", action="store_true")
    ap.add_argument("--profile", default="any", choices=sorted(gen.PROFILES),
                    help="`pto`: programs a PTO target should package (gen.py PROFILES)")
    ap.add_argument("--no-isa", action="store_true", help="do not compile pto-a2a3sim packages against pto-isa")
    ap.add_argument("--no-sim", action="store_true", help="do not run reference programs on pto-runtime's a2a3sim")
    ap.add_argument("--reference", type=float, default=None,
                    help="share of reference programs (gen_ref.py; default gen.REFERENCE_SHARE of the profile)")
    ap.add_argument("--resume", action="store_true", help="keep findings.json of an earlier campaign")
    ap.add_argument("--minimize", action="store_true")
    ap.add_argument("--only", default=None, help="with --minimize: comma-separated finding ids")
    ap.add_argument("--max-tries", type=int, default=150, help="with --minimize: test runs per finding")
    ap.add_argument("--replay", default=None)
    ap.add_argument("--replay-seed", type=int, default=1, help="with --replay: the seed of the run's random sizes "
                    "(a generated case's seed is campaign seed * 10**7 + case number)")
    ap.add_argument("--corpus", default=None, help="run every .py in this directory (hand-written cases) instead")
    ap.add_argument("--report", action="store_true", help="summarise OUT/results.jsonl into OUT/findings-auto.md")
    args = ap.parse_args()
    if args.report:
        build_report(args.out)
        print(os.path.join(args.out, "findings-auto.md"))
        return
    if args.replay:
        w = Worker(args.out, "replay", args.timeout)
        try:
            res = w.run({"path": os.path.abspath(args.replay), "targets": args.targets.split(","), "run": not args.no_run,
                         "seed": args.replay_seed, "sim": "pto-a2a3sim" in args.targets and not args.no_sim})
        finally:
            w.stop()
        print(json.dumps(res, indent=1))
        return
    if args.minimize:
        with open(os.path.join(args.out, "findings.json")) as fh:
            findings = json.load(fh)
        only = set(args.only.split(",")) if args.only else None
        todo = [(fid, f) for fid, f in findings.items()
                if (not only or fid in only) and (only or f["kind"] != "stderr-output")]
        lock = threading.Lock()

        def one(fid, f):
            t0 = time.time()
            r = minimize(args.out, fid, f, args.timeout, args.max_tries)
            with lock:
                report_min(args, findings, fid, f, r, t0)

        def loop():
            while True:
                with lock:
                    if not todo:
                        return
                    fid, f = todo.pop(0)
                one(fid, f)

        threads = [threading.Thread(target=loop) for _ in range(args.jobs)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return
    Campaign(args).run()


def report_min(args, findings, fid, f, r, t0):
    """Record the result of minimize() for one finding in OUT/findings.json."""
    if r[0] is None:
        print(f"{fid} {f['kind']}: did not reproduce ({r[1]} tries)", flush=True)
        f["min_case"] = None
    else:
        final, tries, res = r
        f["min_case"] = final
        f["min_full"] = res_text(res, f["where"][0])
        print(f"{fid} {f['kind']}: {final} ({tries} tries, {time.time() - t0:.0f}s)", flush=True)
    with open(os.path.join(args.out, "findings.json"), "w") as fh:
        json.dump(findings, fh, indent=1)

if __name__ == "__main__":
    main()
