"""Source text for a kernel rewritten by user AST mutators, laid out so that
diagnostics still point at the user's file, line and column.

Statements a mutator left unchanged are copied from the original lines
(same line, same columns); a changed statement is re-printed with
``ast.unparse`` on the line of the statement it replaces (the line is
exact, columns inside it follow the re-printed text); a statement a
mutator added goes on the line its position names, or the next free one.
Lines in between stay blank, so the Rust front end, told the snippet's
first line, reports the user's lines.
"""

from __future__ import annotations

import ast
from typing import List, Optional

# Fields of compound statements that hold nested statements.
_BODIES = ("body", "orelse")


class _Layout:
    """Output lines of the snippet; line numbers are the snippet's (1 = its
    first line), as ``ast.parse`` of the dedented snippet numbers them."""

    def __init__(self, raw_lines: List[str]):
        self.raw = raw_lines
        self.base = raw_lines[0][: len(raw_lines[0]) - len(raw_lines[0].lstrip())] if raw_lines else ""
        self.out: List[str] = []

    def place(self, line: Optional[int], lines: List[str]) -> None:
        """Writes `lines` from snippet line `line` on, or from the next free
        line when that one is already written (or unknown)."""
        while line is not None and len(self.out) + 1 < line:
            self.out.append("")
        self.out.extend(lines)

    def printed(self, node: ast.AST, indent: str) -> List[str]:
        return [self.base + indent + text for text in ast.unparse(node).splitlines()]

    def copied(self, node: ast.AST) -> List[str]:
        return self.raw[node.lineno - 1:node.end_lineno]


def reprint(original: ast.stmt, mutated: ast.stmt, raw_lines: List[str]) -> str:
    """The text of `mutated`, a mutator's output for `original` (both from
    ``ast.parse`` of the dedented `raw_lines`)."""
    layout = _Layout(raw_lines)
    for decorator in getattr(mutated, "decorator_list", []):
        layout.place(getattr(decorator, "lineno", None), [layout.base + "@" + ast.unparse(decorator)])
    _statement(layout, original, mutated, indent="")
    return "\n".join(layout.out) + "\n"


def _same(a: ast.AST, b: ast.AST) -> bool:
    return ast.dump(a, include_attributes=False) == ast.dump(b, include_attributes=False)


def _statement(layout: _Layout, original: Optional[ast.stmt], node: ast.stmt, indent: str) -> None:
    line = original.lineno if original is not None else getattr(node, "lineno", None)
    top = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not indent
    if original is not None and _same(original, node) and not top:
        layout.place(line, layout.copied(original))
        return
    compound = isinstance(node, (ast.For, ast.While, ast.If, ast.With, ast.FunctionDef)) and node.body
    if not compound:
        layout.place(line, layout.printed(node, indent))
        return
    layout.place(line, [layout.base + indent + _header(node)])
    for name in _BODIES:
        statements = getattr(node, name, None) or []
        if not statements:
            continue
        if name == "orelse":
            layout.place(None, [layout.base + indent + "else:"])
        originals = (getattr(original, name, None) or []) if original is not None else []
        by_line = {s.lineno: s for s in originals}
        for child in statements:
            _statement(layout, by_line.get(getattr(child, "lineno", -1)), child, indent + "    ")


def _header(node: ast.stmt) -> str:
    """The first line of a compound statement, re-printed (no decorators)."""
    fields = {name: getattr(node, name) for name in node._fields}
    fields["body"] = [ast.Pass()]
    if "orelse" in fields:
        fields["orelse"] = []
    if "decorator_list" in fields:
        fields["decorator_list"] = []
    shell = ast.fix_missing_locations(type(node)(**fields))
    return ast.unparse(shell).splitlines()[0]
