"""User AST mutators: ``ast.NodeTransformer`` subclasses that rewrite a
kernel's Python source before HTP's Rust front end reads it (HTP's own
sugar mutators run in Rust after these)."""

from __future__ import annotations

import ast
from typing import List, Tuple

_registered: List[type] = []


def register(mutator: type) -> type:
    """Run ``mutator`` on every kernel compiled from now on. Usable as a
    class decorator; returns the class."""
    if not (isinstance(mutator, type) and issubclass(mutator, ast.NodeTransformer)):
        raise TypeError("an HTP AST mutator is an ast.NodeTransformer subclass")
    if mutator not in _registered:
        _registered.append(mutator)
    return mutator


def unregister(mutator: type) -> None:
    if mutator in _registered:
        _registered.remove(mutator)


def registered() -> Tuple[type, ...]:
    return tuple(_registered)
