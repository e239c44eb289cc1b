"""A minimal HTP extension for the tests: a target that can only copy f32
tiles (its emitter returns the IR it was given; its runner copies the input
tensor to the output), a pipeline, a Python intrinsic set and a mutator
that asks for a pipeline."""

import ast
import json
import sys

import numpy as np

import htp
from htp import extensions

#: The JSON IR the emitter saw, per kernel (for the tests to inspect).
SEEN = {}


def emit(ir_json, kernel):
    module = json.loads(ir_json)
    SEEN[kernel] = module
    return {"ir.json": ir_json, "kernel.txt": kernel}


def find_runtime():
    return None


def run_package(directory, tensors, scalars):
    # The kernels this target accepts copy their first tensor to the last.
    tensors[-1][...] = tensors[0]


@htp.func
def twice(t):
    return t + t


@htp.func
def affine(t, a, b):
    return twice(t) * a + b


class ExpandCube(ast.NodeTransformer):
    """`cube(x)` -> `x * x * x`."""

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "cube":
            x = node.args[0]
            return ast.BinOp(left=ast.BinOp(left=x, op=ast.Mult(), right=x), op=ast.Mult(), right=x)
        return node


def register(registry):
    registry.target(
        "copy-only",
        description="copies f32 tiles (a test extension)",
        capabilities=["model:kernel", "op:tile.load", "op:tile.store", "dtype:f32", "dtype:index"],
        emitter=emit,
        runner=__name__,
        architecture=htp.Architecture(
            levels=(htp.ParallelLevel("thread", 1, "the calling thread"),),
            memories=(htp.MemorySpace("host", None, 16, "host memory"),),
        ),
    )
    registry.pipeline("test-ext-cleanup", "canonicalize,cse", "canonicalize + cse, registered from Python")
    registry.intrinsics(sys.modules[__name__], "testext")
    registry.mutator(ExpandCube, pipeline="test-ext-cleanup")
    registry.transform("test-ext-transform", CLEANUP_SCRIPT)


#: Canonicalization and CSE on every function, as a transform script.
CLEANUP_SCRIPT = """
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.apply_cse to %f : !transform.any_op
    transform.yield
  }
}
"""
