"""Issue 21, "safe to call": a kernel never writes what it may not, never
runs stale code, never takes the interpreter down. Each test is a case a
careless or hostile user hits (docs/language.md, "What a call may and may
not do")."""

import importlib
import linecache
import os
import sys
import textwrap
import threading
import time

import numpy as np
from conftest import run_and_interrupt
import pytest

import htp
from htp import f32
from test_errors import assert_points_at

HERE = os.path.abspath(__file__)


def line_of(text: str) -> int:
    """The line of this file that holds ``text`` (once)."""
    with open(HERE, encoding="utf-8") as handle:
        lines = [i + 1 for i, line in enumerate(handle) if text in line and "line_of(" not in line]
    assert len(lines) == 1, (text, lines)
    return lines[0]


def module_from(tmp_path, name: str, source: str):
    """A module written to a file and imported (a new one per test)."""
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(source))
    sys.path.insert(0, str(tmp_path))
    try:
        return importlib.import_module(name), path
    finally:
        sys.path.remove(str(tmp_path))


# --- 1. stores into inputs ---------------------------------------------------

def test_a_store_into_an_input_is_a_compile_error_at_the_store(tmp_path):
    module, path = module_from(tmp_path, "store_input", """
        import htp
        from htp import f32

        @htp.kernel
        def scribble(x: htp.Tensor[f32, 16], y: htp.Out[f32, 16]):
            y[0:16] = x[0:16]
            x[0:16] = y[0:16] * 2.0
    """)
    frozen = np.frombuffer(bytes(64), np.float32)  # an immutable bytes object underneath
    with pytest.raises(htp.CompileError) as info:
        module.scribble(frozen)
    assert_points_at(info.value, "store_input.py", 8, 5)
    assert "htp.InOut" in str(info.value) and "'x'" in str(info.value)
    assert bytes(frozen.tobytes()) == bytes(64)


def test_a_store_through_a_helper_into_an_input_is_refused_too(tmp_path):
    module, _ = module_from(tmp_path, "store_helper", """
        import htp
        from htp import f32

        @htp.func
        def clear(t):
            t[0:16] = 0.0

        @htp.kernel
        def k(x: htp.Tensor[f32, 16], y: htp.Out[f32, 16]):
            clear(x)
            y[0:16] = x[0:16]
    """)
    with pytest.raises(htp.CompileError) as info:
        module.k(np.ones(16, np.float32))
    assert_points_at(info.value, "store_helper.py", 7, 5)


# --- 2. overlapping arguments ------------------------------------------------

@htp.kernel
def inc(x: htp.Tensor[f32, "N"], z: htp.Out[f32, "N"]):
    for i in range(0, x.shape[0], 64):
        z[i:i + 64] = x[i:i + 64] + 1.0


@htp.kernel
def two_outputs(x: htp.Tensor[f32, "N"], a: htp.Out[f32, "N"], b: htp.Out[f32, "N"]):
    for i in range(0, x.shape[0], 64):
        a[i:i + 64] = x[i:i + 64]
        b[i:i + 64] = x[i:i + 64] * 2.0


@pytest.mark.parametrize("shift", [1, -1, 5])
def test_overlapping_input_and_output_give_numpys_as_if_copied_result(shift):
    n = 1 << 16
    b = np.arange(n + abs(shift), dtype=np.float32)
    expected = b.copy()
    if shift > 0:
        expected[shift:] = b[:-shift] + 1.0
        inc(b[:-shift], b[shift:])
    else:
        expected[:shift] = b[-shift:] + 1.0
        inc(b[-shift:], b[:shift])
    np.testing.assert_array_equal(b, expected)


def test_the_same_array_as_input_and_output_is_as_if_copied():
    b = np.arange(256, dtype=np.float32)
    inc(b, b)
    np.testing.assert_array_equal(b, np.arange(256, dtype=np.float32) + 1.0)


def test_two_outputs_on_one_buffer_are_an_argument_error():
    x = np.ones(128, np.float32)
    y = np.zeros(128, np.float32)
    with pytest.raises(htp.ArgumentError) as info:
        two_outputs(x, y, y)  # the error line
    assert_points_at(info.value, "test_safety.py", line_of("two_outputs(x, y, y)  # the error line"))
    assert "share memory" in str(info.value)
    assert not y.any()  # nothing ran


def test_interleaved_outputs_of_one_buffer_do_not_overlap():
    x = np.arange(128, dtype=np.float32)
    both = np.zeros(256, np.float32)
    two_outputs(x, both[0::2], both[1::2])
    np.testing.assert_array_equal(both[0::2], x)
    np.testing.assert_array_equal(both[1::2], x * 2.0)


# --- 3. edited source --------------------------------------------------------

def test_the_source_compiled_is_the_source_python_imported(tmp_path):
    module, path = module_from(tmp_path, "edited_source", """
        import htp
        from htp import f32

        @htp.kernel
        def k(x: htp.Tensor[f32, 16], y: htp.Out[f32, 16]):
            y[0:16] = x[0:16] + 1.0
    """)
    # Edited (lines shifted, the body changed) between the import and the first call.
    path.write_text(path.read_text().replace("import htp\n", "import htp\n\n\n\n").replace("+ 1.0", "+ 100.0"))
    os.utime(path, (time.time() + 5, time.time() + 5))
    linecache.checkcache(str(path))
    y = module.k(np.zeros(16, np.float32))
    np.testing.assert_array_equal(y, np.ones(16, np.float32))


# --- 4. stale helpers ----------------------------------------------------------

def define(namespace: dict, name: str, source: str):
    """Runs ``source`` in ``namespace`` with its text in linecache (a notebook cell)."""
    source = textwrap.dedent(source)
    linecache.cache[name] = (len(source), None, source.splitlines(True), name)
    exec(compile(source, name, "exec"), namespace)


def test_a_redefined_helper_recompiles_the_kernels_that_call_it():
    cell = {"htp": htp, "f32": f32}
    define(cell, "<cell-1>", """
        @htp.func
        def bump(t):
            return t + 1.0
    """)
    define(cell, "<cell-2>", """
        @htp.kernel
        def k(x: htp.Tensor[f32, 16], y: htp.Out[f32, 16]):
            y[0:16] = bump(x[0:16])
    """)
    x = np.zeros(16, np.float32)
    np.testing.assert_array_equal(cell["k"](x), x + 1.0)
    define(cell, "<cell-1 again>", """
        @htp.func
        def bump(t):
            return t + 2.0
    """)
    np.testing.assert_array_equal(cell["k"](x), x + 2.0)
    assert len(cell["k"]._cache) == 1  # the compile for the old helper is dropped


def test_a_reloaded_helper_module_recompiles(tmp_path):
    helpers, path = module_from(tmp_path, "reloaded_helpers", """
        import htp

        @htp.func
        def bump(t):
            return t + 1.0

        @htp.kernel
        def k(x: htp.Tensor[htp.f32, 16], y: htp.Out[htp.f32, 16]):
            y[0:16] = bump(x[0:16])
    """)
    kernel = helpers.k
    x = np.zeros(16, np.float32)
    np.testing.assert_array_equal(kernel(x), x + 1.0)
    path.write_text(path.read_text().replace("t + 1.0", "t + 3.0"))
    os.utime(path, (time.time() + 5, time.time() + 5))
    sys.path.insert(0, str(tmp_path))
    try:
        importlib.reload(helpers)
    finally:
        sys.path.remove(str(tmp_path))
    # The old kernel object calls the module's new helper (its globals are the module's).
    np.testing.assert_array_equal(kernel(x), x + 3.0)


class OneToTwo(__import__("ast").NodeTransformer):
    """Turns the constant 1.0 into 2.0 (a mutator that changes the code)."""

    def visit_Constant(self, node):
        if node.value == 1.0 and isinstance(node.value, float):
            node.value = 2.0
        return node


@htp.kernel
def plus_one(x: htp.Tensor[f32, 16], y: htp.Out[f32, 16]):
    y[0:16] = x[0:16] + 1.0


def test_a_mutator_registered_after_a_call_recompiles_and_unregistering_it_restores_the_code():
    x = np.zeros(16, np.float32)
    np.testing.assert_array_equal(plus_one(x), x + 1.0)
    htp.mutators.register(OneToTwo)
    try:
        np.testing.assert_array_equal(plus_one(x), x + 2.0)
    finally:
        htp.mutators.unregister(OneToTwo)
    np.testing.assert_array_equal(plus_one(x), x + 1.0)


# --- 5. bool bytes -----------------------------------------------------------

@htp.kernel
def choose(m: htp.Tensor[htp.bool_, 16, 16], y: htp.Out[f32, 16, 16]):
    y[:, :] = htp.where(m[:, :], 1.0, 0.0)


def test_bool_bytes_that_are_not_0_or_1_read_as_numpy_reads_them():
    raw = np.arange(256, dtype=np.uint8).reshape(16, 16)
    mask = raw.view(np.bool_)
    y = choose(mask)
    np.testing.assert_array_equal(y, np.where(mask, 1.0, 0.0).astype(np.float32))
    assert y[0, 2] == 1.0 and y[0, 0] == 0.0
    np.testing.assert_array_equal(raw, np.arange(256, dtype=np.uint8).reshape(16, 16))  # the input untouched


# --- 7. a failed call ---------------------------------------------------------

@htp.kernel
def copy_past_the_end(x: htp.Tensor[f32, "N", 16], y: htp.Out[f32, "N", 16]):
    for i in htp.range(0, x.shape[0] + 32, 16, parallel=False):
        y[i:i + 16, :] = x[i:i + 16, :]


@pytest.mark.parametrize("strided", [False, True])
def test_a_failed_call_keeps_the_writes_it_made_in_contiguous_and_strided_outputs(strided):
    x = np.arange(64 * 16, dtype=np.float32).reshape(64, 16) + 1.0
    backing = np.zeros((128, 16), np.float32)
    y = backing[::2] if strided else backing[:64]
    with pytest.raises(IndexError):
        copy_past_the_end(x, y)
    np.testing.assert_array_equal(y, x)  # every in-bounds block was written before the failing one
    if strided:
        assert not backing[1::2].any()


# --- 6. files written atomically ------------------------------------------------

def test_concurrent_writers_of_one_file_never_collide_nor_leave_a_partial_file(tmp_path):
    from htp import _atomic
    target = tmp_path / "shared" / "manifest.json"
    payloads = [(str(i) * 100_000).encode() for i in range(8)]
    errors = []

    def write(payload):
        try:
            for _ in range(20):
                _atomic.write_file(str(target), payload)
                assert target.read_bytes() in payloads
        except Exception as error:  # collected: asserted below
            errors.append(error)

    threads = [threading.Thread(target=write, args=(p,)) for p in payloads]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert target.read_bytes() in payloads
    assert os.listdir(target.parent) == ["manifest.json"]  # no temporary left


def test_transform_scripts_registered_from_many_threads_do_not_collide(tmp_path, monkeypatch):
    from htp import extensions
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    script = ('module attributes {transform.with_named_sequence} {\n'
              '  transform.named_sequence @__transform_main(%m: !transform.any_op {transform.readonly}) {\n'
              '    transform.yield\n  }\n}\n')
    errors = []

    def register(index):
        try:
            extensions.Registry(f"collide_{index}_{os.getpid()}").transform(f"collide-{index}-{os.getpid()}", script)
        except Exception as error:
            errors.append(error)

    threads = [threading.Thread(target=register, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    leftovers = [n for n in os.listdir(tmp_path / "htp" / "transforms") if n.endswith(".tmp")]
    assert leftovers == []


# --- 8. huge tiles --------------------------------------------------------------

@htp.kernel
def huge_pad(x: htp.Tensor[f32, "N", "M"], y: htp.Out[f32, "N", "M"]):
    y[0:1048576, 0:1048576] = htp.pad(x[0:1048576, 0:1048576], 1.0)  # the huge tile


def test_a_tile_larger_than_memory_is_a_compile_error_not_a_crash():
    with pytest.raises(htp.CompileError) as info:
        huge_pad(np.ones((16, 16), np.float32))
    assert_points_at(info.value, "test_safety.py", line_of("the huge tile"))
    assert "memory" in str(info.value)


# --- 9. deep sources --------------------------------------------------------------

def deep_module(tmp_path, name: str, expression: str):
    return module_from(tmp_path, name, f"""
        import htp

        @htp.kernel
        def k(x: htp.Tensor[htp.f32, 16], y: htp.Out[htp.f32, 16]):
            t = x[0:16]
            y[0:16] = {expression}
    """)[0]


def test_a_500_term_sum_and_1000_unary_minuses_compile(tmp_path):
    x = np.arange(16, dtype=np.float32)
    np.testing.assert_allclose(deep_module(tmp_path, "sum500", " + ".join(["t"] * 500)).k(x), x * 500)
    np.testing.assert_array_equal(deep_module(tmp_path, "minus1000", "-" * 1000 + "t").k(x), x)


class Identity(__import__("ast").NodeTransformer):
    """A mutator that changes nothing (but makes HTP walk the Python AST)."""


def test_a_1000_term_sum_with_a_mutator_installed_is_no_recursion_error(tmp_path):
    module = deep_module(tmp_path, "sum1000", " + ".join(["t"] * 1000))
    htp.mutators.register(Identity)
    try:
        x = np.ones(16, np.float32)
        np.testing.assert_allclose(module.k(x), x * 1000)
    finally:
        htp.mutators.unregister(Identity)


# --- 10. unroll budget ---------------------------------------------------------------

@htp.kernel
def unrolled(x: htp.Tensor[f32, 16, 16], y: htp.Out[f32, 16, 16]):
    acc = x[:, :]
    for i in htp.static_range(1000):
        for j in htp.static_range(1000):  # the inner loop
            acc = acc + 1.0
    y[:, :] = acc


def test_nested_static_ranges_past_the_kernel_budget_are_a_fast_compile_error():
    start = time.monotonic()
    with pytest.raises(htp.CompileError) as info:
        unrolled(np.zeros((16, 16), np.float32))
    assert time.monotonic() - start < 60
    assert_points_at(info.value, "test_safety.py", line_of("# the inner loop"))
    assert "16384" in str(info.value)


# --- 12. messages ---------------------------------------------------------------------

@htp.kernel
def with_constant(x: htp.Tensor[f32, 16], y: htp.Out[f32, 16], C: htp.Const[float] = 1.0):
    y[0:16] = x[0:16] * C


@htp.kernel
def with_flag(x: htp.Tensor[f32, 16], y: htp.Out[f32, 16], FLAG: htp.Const[bool] = True):
    if FLAG:
        y[0:16] = x[0:16]
    else:
        y[0:16] = x[0:16] * 2.0


@htp.kernel
def with_count(x: htp.Tensor[f32, 16], y: htp.Out[f32, 16], N: htp.Const[int] = 1):
    y[0:16] = x[0:16] * N


def test_a_nan_constant_is_usable_on_every_call():
    x = np.ones(16, np.float32)
    assert np.isnan(with_constant(x, C=float("nan"))).all()
    assert np.isnan(with_constant(x, C=float("nan"))).all()
    compiled = with_constant.compile(C=float("nan"))
    assert np.isnan(compiled(x, C=float("nan"))).all()


def test_numpy_scalars_are_the_constants_they_stand_for():
    x = np.ones(16, np.float32)
    np.testing.assert_array_equal(with_flag(x, FLAG=np.False_), x * 2.0)
    np.testing.assert_array_equal(with_count(x, N=np.int64(3)), x * 3.0)


def test_an_int_constant_out_of_range_says_so():
    with pytest.raises(htp.ArgumentError) as info:
        with_count(np.ones(16, np.float32), N=2**70)  # out of range
    assert "out of range" in str(info.value) and "1.18e" not in str(info.value)
    assert_points_at(info.value, "test_safety.py", line_of("N=2**70)  # out of range"))


def test_helpers_under_other_names_and_through_their_module(tmp_path):
    # Issue 26: `from m import helper as h`, `h2 = helper` and `m.helper(...)` were refused.
    module_from(tmp_path, "alias_helpers", """
        import htp

        @htp.func
        def twice(t):
            return t * 2.0

        @htp.func
        def plus_one(t):
            return t + 1.0
    """)
    module, _ = module_from(tmp_path, "alias_user", """
        import htp
        import alias_helpers
        import alias_helpers as helpers
        from alias_helpers import twice as double

        h2 = alias_helpers.plus_one

        @htp.kernel
        def k(x: htp.Tensor[htp.f32, 16], y: htp.Out[htp.f32, 16]):
            y[0:16] = h2(double(x[0:16])) + helpers.twice(alias_helpers.plus_one(x[0:16]))
    """)
    sys.path.insert(0, str(tmp_path))
    try:
        x = np.arange(16, dtype=np.float32)
        np.testing.assert_array_equal(module.k(x), (2 * x + 1) + 2 * (x + 1))
    finally:
        sys.path.remove(str(tmp_path))


def test_two_helpers_of_one_name_are_a_located_error(tmp_path):
    for name in ("same_a", "same_b"):
        module_from(tmp_path, name, """
            import htp

            @htp.func
            def twice(t):
                return t * 2.0
        """)
    module, _ = module_from(tmp_path, "same_user", """
        import htp
        from same_a import twice as first
        from same_b import twice as second

        @htp.kernel
        def k(x: htp.Tensor[htp.f32, 16], y: htp.Out[htp.f32, 16]):
            y[0:16] = first(second(x[0:16]))
    """)
    sys.path.insert(0, str(tmp_path))
    try:
        with pytest.raises(htp.CompileError) as info:
            module.k(np.ones(16, np.float32))
    finally:
        sys.path.remove(str(tmp_path))
    assert "two different kernels or helpers named 'twice' (same_" in str(info.value), info.value
    assert "rename one of them" in str(info.value)


def test_a_huge_zero_stride_view_is_an_argument_error():
    base = np.zeros(1, np.float32)
    view = np.lib.stride_tricks.as_strided(base, shape=(1 << 20, 1 << 20), strides=(0, 0))

    @htp.kernel
    def first(x: htp.Tensor[f32, "N", "M"], y: htp.Out[f32, 16, 16]):
        y[:, :] = x[0:16, 0:16]

    with pytest.raises(htp.ArgumentError) as info:
        first(view)  # the view
    assert_points_at(info.value, "test_safety.py", line_of("first(view)  # the view"))
    assert "dense copy" in str(info.value)


# --- 14. threads ----------------------------------------------------------------------

def test_eight_threads_making_the_same_first_call_compile_once(monkeypatch):
    from htp import _kernel
    calls = []
    real = _kernel._htp.compile

    def counting(*args, **kwargs):
        calls.append(args[1])
        time.sleep(0.2)  # a slow compile: every thread arrives while it runs
        return real(*args, **kwargs)

    @htp.kernel
    def racy(x: htp.Tensor[f32, 16], y: htp.Out[f32, 16]):
        y[0:16] = x[0:16] + 5.0

    monkeypatch.setattr(_kernel._htp, "compile", counting)
    results = [None] * 8
    barrier = threading.Barrier(8)

    def call(index):
        barrier.wait()
        results[index] = racy(np.zeros(16, np.float32))

    threads = [threading.Thread(target=call, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert calls == ["racy"]
    for result in results:
        np.testing.assert_array_equal(result, np.full(16, 5.0, np.float32))


# --- 11. Ctrl-C ------------------------------------------------------------------------

LONG_CALL = """
import sys, time
import numpy as np
import htp
from htp import f32

@htp.kernel
def slow(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64]):
    for i in htp.range(0, x.shape[0], 16, grain=1):
        t = x[i:i + 16, :]
        for r in range(100000):
            t = htp.exp(t * 0.5) - 1.0
        y[i:i + 16, :] = t

x = np.zeros((16 * 1024, 64), np.float32)  # about a minute uninterrupted
slow(x[:32])  # compiled, and a short run
print("ready", flush=True)
try:
    slow(x)
except KeyboardInterrupt:
    print("interrupted", flush=True)
    sys.exit(3)
print("finished", flush=True)
"""


SERIAL_CALL = LONG_CALL.replace("""    for i in htp.range(0, x.shape[0], 16, grain=1):
        t = x[i:i + 16, :]
        for r in range(100000):
            t = htp.exp(t * 0.5) - 1.0
        y[i:i + 16, :] = t""", """    t = x[0:16, :]
    for r in range(x.shape[0] * 100000 // 16):  # carries t: one chunk, polled per iteration
        t = htp.exp(t * 0.5) - 1.0
    y[0:16, :] = t""")


# Issue 26: one long iteration of the outer loop (its inner loop is long) was not stopped.
INNER_CALL = LONG_CALL.replace("""    for i in htp.range(0, x.shape[0], 16, grain=1):
        t = x[i:i + 16, :]
        for r in range(100000):
            t = htp.exp(t * 0.5) - 1.0
        y[i:i + 16, :] = t""", """    for i in range(0, 16, 16):  # one iteration, busy in its inner loop
        t = x[i:i + 16, :]
        for r in range(x.shape[0] * 100000 // 16):
            t = htp.exp(t * 0.5) - 1.0
        y[i:i + 16, :] = t""")


@pytest.mark.parametrize("source", [LONG_CALL, SERIAL_CALL, INNER_CALL], ids=["chunks", "serial", "inner"])
def test_ctrl_c_stops_a_long_call_with_keyboard_interrupt(tmp_path, source):
    assert "carries t" in SERIAL_CALL and "one iteration, busy" in INNER_CALL
    returncode, out, seconds = run_and_interrupt(tmp_path, source)
    assert returncode == 3, out
    assert "interrupted" in out
    # Stopped between chunks (each ~0.1 s), not after the whole call.
    assert seconds < 15
