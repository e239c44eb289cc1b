"""A mutator that rewrites sugar and asks for a pipeline when it did."""

import ast


class ExpandFma(ast.NodeTransformer):
    """``fma(a, b, c)`` -> ``a * b + c`` (tiles or scalars). Registered with
    the pipeline ``ctarget-cleanup``, which then runs on the kernel's tile IR."""

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "fma" and len(node.args) == 3 and not node.keywords:
            a, b, c = node.args
            product = ast.BinOp(left=a, op=ast.Mult(), right=b)
            return ast.copy_location(ast.BinOp(left=product, op=ast.Add(), right=c), node)
        return node
