# Sources as deep as CPython compiles (a 500-term sum, 1000 unary minuses) and
# deeper (1000 `.T`, 3000 nested run-time ifs, a 20000-term sum) import
# without overflowing the stack (issue 21). This file writes each source.
# RUN: python3 %s sum 500 > %t.sum.py && htp-translate --import-python %t.sum.py | FileCheck %s
# RUN: python3 %s minus 1000 > %t.minus.py && htp-translate --import-python %t.minus.py | FileCheck %s
# RUN: python3 %s transpose 1000 > %t.transpose.py && htp-translate --import-python %t.transpose.py | FileCheck %s
# RUN: python3 %s if 3000 > %t.if.py && htp-translate --import-python %t.if.py | FileCheck %s --check-prefix=IF
# RUN: python3 %s sum 20000 > %t.sum20000.py && htp-translate --import-python %t.sum20000.py | FileCheck %s
# CHECK: func.func @k
# CHECK: tile.store
# IF-COUNT-3000: scf.if
import sys

if __name__ == "__main__":
    kind, count = sys.argv[1], int(sys.argv[2])
    print("import htp\n\n@htp.kernel")
    print("def k(x: htp.Tensor[htp.f32, 16, 16], y: htp.Out[htp.f32, 16, 16], s: htp.f32):")
    print("    t = x[:, :]")
    if kind == "sum":
        print("    y[:, :] = " + " + ".join(["t"] * count))
    elif kind == "minus":
        print("    y[:, :] = " + "-" * count + "t")
    elif kind == "transpose":
        print("    y[:, :] = t" + ".T" * count)
    else:
        for depth in range(count):
            print("    " + "    " * depth + f"if s > {depth}.0:")
        print("    " + "    " * count + "y[:, :] = t")
