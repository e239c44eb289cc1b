"""Errors HTP raises. Each message starts with ``file:line:col: error:`` and
shows the offending source line with a caret, so an error reads like a
compiler's, never like a traceback from inside HTP."""


class CompileError(Exception):
    """A kernel cannot be compiled: syntax, unsupported construct, unknown
    function, shape or element-type mismatch, or a target's limit."""


class ArgumentError(CompileError, TypeError):
    """A kernel was called with the wrong number, kinds, dtypes or shapes of
    arguments, or a scalar of the wrong kind or out of its type's range.
    Points at the call site."""


class TargetError(CompileError):
    """The target cannot do what was asked (unknown target, or its tools are
    missing on this machine)."""
