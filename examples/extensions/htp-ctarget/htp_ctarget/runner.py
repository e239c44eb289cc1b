"""Runs a package of the ``c`` target: compiles ``kernel.c`` with the
system C compiler into a shared library (cached next to the package, by
the hash of the source and the command), loads it with ctypes and calls the
kernel's function on the numpy arrays HTP hands over (C-contiguous; outputs
are written in place)."""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from typing import Dict, List, Optional

import numpy as np

#: The compiler and its flags (``HTP_CTARGET_CC`` overrides the compiler).
COMPILER = os.environ.get("HTP_CTARGET_CC", "cc")
FLAGS = ["-O2", "-shared", "-fPIC", "-std=c99"]
LIBRARIES = ["-lm"]

CTYPES = {"f32": ctypes.c_float, "f64": ctypes.c_double, "i64": ctypes.c_int64, "i32": ctypes.c_int32,
          "i16": ctypes.c_int16, "i8": ctypes.c_int8, "i1": ctypes.c_uint8, "index": ctypes.c_int64}
ITEMSIZE = {"f32": 4, "f64": 8, "i64": 8, "i32": 4, "i16": 2, "i8": 1, "i1": 1}

_loaded: Dict[str, ctypes.CDLL] = {}


def find_runtime() -> Optional[str]:
    """None when a C compiler is on PATH, else what is missing."""
    if shutil.which(COMPILER) is None:
        return f"the c target needs a C compiler: '{COMPILER}' is not on PATH (set HTP_CTARGET_CC)"
    return None


def build(directory: str) -> str:
    """The shared library of the package in ``directory`` (compiled once)."""
    source = os.path.join(directory, "kernel.c")
    with open(source, "rb") as handle:
        text = handle.read()
    command = [COMPILER, *FLAGS]
    digest = hashlib.sha256(text + " ".join(command).encode()).hexdigest()[:16]
    library = os.path.join(directory, f"kernel-{digest}.so")
    if not os.path.exists(library):
        descriptor, temporary = tempfile.mkstemp(suffix=".so", dir=directory)
        os.close(descriptor)
        try:
            done = subprocess.run([*command, source, "-o", temporary, *LIBRARIES],
                                  capture_output=True, text=True)
            if done.returncode != 0:
                raise RuntimeError(f"the c target's kernel did not compile ({' '.join(command)} {source}):\n"
                                   f"{done.stderr.strip()}")
            os.replace(temporary, library)  # atomic: concurrent runs see a whole file
        finally:
            if os.path.exists(temporary):
                os.unlink(temporary)
    return library


def load(directory: str):
    """(function, manifest) of the package in ``directory``."""
    with open(os.path.join(directory, "manifest.json"), encoding="utf-8") as handle:
        manifest = json.load(handle)
    library = build(directory)
    if library not in _loaded:
        _loaded[library] = ctypes.CDLL(library)
    function = getattr(_loaded[library], manifest["symbol"])
    argtypes = []
    for argument in manifest["arguments"]:
        if argument["kind"] == "tensor":
            argtypes.append(ctypes.c_void_p)
            argtypes.extend([ctypes.c_int64] * len(argument["shape"]))
        else:
            argtypes.append(CTYPES[argument["dtype"]])
    function.argtypes = argtypes
    function.restype = ctypes.c_int32
    return function, manifest


def run_package(directory: str, tensors: List[np.ndarray], scalars: List[object]) -> None:
    """Runs the kernel: ``tensors`` and ``scalars`` in the kernel's order
    (its manifest interleaves them as the C function takes them)."""
    function, manifest = load(directory)
    tensors, scalars = list(tensors), list(scalars)
    expected = [a["kind"] for a in manifest["arguments"]]
    if expected.count("tensor") != len(tensors) or expected.count("scalar") != len(scalars):
        raise TypeError(f"{manifest['kernel']}: the c package takes {expected.count('tensor')} tensors and "
                        f"{expected.count('scalar')} scalars, got {len(tensors)} and {len(scalars)}")
    values = []
    keep = []
    for argument in manifest["arguments"]:
        if argument["kind"] == "tensor":
            array = tensors.pop(0)
            if not array.flags["C_CONTIGUOUS"] or array.dtype.itemsize != ITEMSIZE[argument["dtype"]] \
                    or array.ndim != len(argument["shape"]):
                raise TypeError(f"{manifest['kernel']}: a tensor of {argument['dtype']}, rank "
                                f"{len(argument['shape'])}, C-contiguous was expected, got {array.dtype} "
                                f"{array.shape}")
            keep.append(array)
            values.append(array.ctypes.data)
            values.extend(int(size) for size in array.shape)
        else:
            value = scalars.pop(0)
            if argument["dtype"] in ("f32", "f64"):
                values.append(float(value))
            else:
                values.append(int(value))
    status = function(*values)
    if status == 0:
        return
    if status < 0:
        raise MemoryError(f"{manifest['kernel']}: the c kernel could not allocate its tiles")
    site = manifest["sites"][status - 1]
    error = {"IndexError": IndexError, "ZeroDivisionError": ZeroDivisionError}.get(site["error"], RuntimeError)
    raise error(site["message"])
