# What a user can get wrong with a programming model's values, loops,
# blocks and types: each an error at their line.
# RUN: not htp-translate --import-python %s 2>&1 | FileCheck %s
import htp
import sample


@htp.func
def takes_cell(c: sample.Cell):
    sample.put(c, 1.0)


@htp.func
def takes_channel(c: sample.Channel):
    pass


@sample.program
def wrong_value(x: htp.Tensor[htp.f32, 16, 64], s: htp.f32):
    takes_cell(s)
# CHECK: error-model-sample.py:[[# @LINE - 1]]:16: error: argument 'c' of takes_cell(): expected a sample.Cell, got a f32 scalar


@sample.program
def unknown_type(x: htp.Tensor[htp.f32, 16, 64]):
    takes_channel(sample.cell(0.0))
# CHECK: error-model-sample.py:14:22: error: the programming model 'sample' has no type 'Channel' (it has: Cell)


@sample.program
def entry_cell(c: sample.Cell):
    pass
# CHECK: error-model-sample.py:[[# @LINE - 2]]:16: error: parameter 'c' of an entry function is a sample.Cell


@sample.program
def three_names(x: htp.Tensor[htp.f32, 16, 64]):
    for i, j, k in sample.grid(2, 2):
        pass
# CHECK: error-model-sample.py:[[# @LINE - 2]]:5: error: sample.grid() gives 2 value(s) per iteration, but the loop names 3


@sample.program
def unknown_block(x: htp.Tensor[htp.f32, 16, 64]):
    with sample.region():
        pass
# CHECK: error-model-sample.py:[[# @LINE - 2]]:10: error: the programming model 'sample' has no block 'region' (it has: scope)


@sample.program
def not_a_model_block(x: htp.Tensor[htp.f32, 16, 64]):
    with open("f"):
        pass
# CHECK: error-model-sample.py:[[# @LINE - 2]]:5: error: {{.*}}a with statement (only a programming model's block constructs


@sample.program
def cell_changes_type(x: htp.Tensor[htp.f32, 16, 64], s: htp.f32):
    c = sample.cell(0.0)
    for i in sample.each(4):
        c = s
# CHECK: error-model-sample.py:[[# @LINE - 2]]:5: error: 'c' is a value of type !cells.cell<f32> before the construct but a f32 scalar elsewhere
