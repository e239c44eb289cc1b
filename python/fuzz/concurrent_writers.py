"""Concurrent processes against HTP's shared files (issue 21): WRITERS
processes write one compiled kernel's PTO package into the same folder over
and over (``CompiledKernel.write_package``), the same package into the cache
(``_package_directory``) and the same transform script (``Registry.transform``)
while a reader checks that every ``manifest.json`` it opens reads whole.
Prints the counts; exits 1 on any partial read or writer error.

Run: python3 python/fuzz/concurrent_writers.py [--writers 4] [--seconds 20]
"""

import argparse
import json
import multiprocessing
import os
import sys
import tempfile
import time

KERNEL = '''
import htp
from htp import f32

@htp.kernel
def scale(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = x[i:i + 16, :] * 2.0
'''

SCRIPT = ('module attributes {transform.with_named_sequence} {\n'
          '  transform.named_sequence @__transform_main(%m: !transform.any_op {transform.readonly}) {\n'
          '    transform.yield\n  }\n}\n')


def writer(index, folder, cache, deadline, results):
    os.environ["XDG_CACHE_HOME"] = cache
    sys.path.insert(0, folder)
    import htp
    import concurrent_kernel

    compiled = concurrent_kernel.scale.compile("pto-a2a3sim")
    writes = errors = 0
    while time.time() < deadline:
        try:
            compiled.write_package(os.path.join(folder, "package"))
            compiled._package = None  # write it into the cache again
            compiled._package_directory()
            htp.extensions.Registry(f"w{index}").transform(f"concurrent-{index}-{writes}", SCRIPT)
            writes += 1
        except Exception as error:  # counted and reported
            errors += 1
            print(f"writer {index}: {type(error).__name__}: {error}", flush=True)
    results.put(("writer", writes, errors))


def reader(folder, deadline, results):
    reads = partial = 0
    path = os.path.join(folder, "package", "manifest.json")
    while time.time() < deadline:
        try:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
        except FileNotFoundError:
            continue
        reads += 1
        try:
            json.loads(text)
        except ValueError:
            partial += 1
    results.put(("reader", reads, partial))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--writers", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=20)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        with open(os.path.join(folder, "concurrent_kernel.py"), "w") as handle:
            handle.write(KERNEL)
        cache = os.path.join(folder, "cache")
        deadline = time.time() + options.seconds
        results = multiprocessing.Queue()
        processes = [multiprocessing.Process(target=writer, args=(i, folder, cache, deadline, results))
                     for i in range(options.writers)]
        processes.append(multiprocessing.Process(target=reader, args=(folder, deadline, results)))
        for process in processes:
            process.start()
        totals = {"writes": 0, "writer_errors": 0, "reads": 0, "partial_reads": 0}
        for _ in processes:
            kind, count, bad = results.get(timeout=options.seconds + 300)
            if kind == "writer":
                totals["writes"] += count
                totals["writer_errors"] += bad
            else:
                totals["reads"] += count
                totals["partial_reads"] += bad
        for process in processes:
            process.join()
        leftovers = [name for _, _, names in os.walk(cache) for name in names if name.endswith(".tmp")]
        leftovers += [name for name in os.listdir(os.path.join(folder, "package")) if name.endswith(".tmp")]
        totals["temporaries_left"] = len(leftovers)
        print(json.dumps(totals))
        bad = totals["writer_errors"] or totals["partial_reads"] or totals["temporaries_left"] or not totals["writes"]
        sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
