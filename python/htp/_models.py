"""The Python namespace of a registered programming model.

``sm = htp.model("sample")`` (by the model's name or namespace) gives a
module whose ``__htp_namespace__`` is the model's, so a kernel module that
binds it to any name writes ``@sm.program`` (the model's entry decorator:
the function becomes a kernel object called like ``@htp.kernel`` ones),
``sm.cell(...)`` (its constructs), ``for i, j in sm.grid(...)`` (its
loops), ``with sm.scope():`` (its blocks) and ``c: sm.Cell`` (its types).
Constructs, loops and blocks are lowered by HTP; called from Python they
raise ``TypeError``."""

import types
from typing import Dict

from . import _htp
from ._kernel import _require_function, Kernel

_made: Dict[str, types.ModuleType] = {}


def _outside(namespace: str, name: str, what: str):
    def refuse(*args, **kwargs):
        raise TypeError(
            f"{namespace}.{name}() is a {what} of the programming model '{namespace}': "
            f"it is written inside the model's functions, which HTP compiles, not called from Python")
    refuse.__name__ = name
    return refuse


def model(name: str) -> types.ModuleType:
    """The namespace of the programming model ``name`` (its name or its
    namespace; ``htp.models()`` lists them). ``LookupError`` if none."""
    for model_name, namespace, description, decorator, constructs, loops in _htp.programming_models():
        if name not in (model_name, namespace):
            continue
        if namespace in _made:
            return _made[namespace]
        module = types.ModuleType(f"htp.models.{namespace}", description)
        module.__htp_namespace__ = namespace

        def entry(function, _decorator=f"@{namespace}.{decorator}"):
            return Kernel(_require_function(function, _decorator))

        entry.__name__ = decorator
        setattr(module, decorator, entry)
        for construct, _ in constructs:
            setattr(module, construct, _outside(namespace, construct, "construct"))
        for loop, _ in loops:
            setattr(module, loop, _outside(namespace, loop, "loop"))
        for block in _htp.programming_model_blocks(model_name):
            setattr(module, block, _outside(namespace, block, "block construct"))
        for type_name in _htp.programming_model_types(model_name):
            # A marker: annotations are read by HTP's front end, not Python.
            setattr(module, type_name, type(type_name, (), {"__module__": module.__name__}))
        _made[namespace] = module
        surface = _htp.programming_model_python(model_name)
        if surface:
            try:
                exec(compile(surface, f"<htp model {model_name}>", "exec"), module.__dict__)
            except BaseException:
                del _made[namespace]
                raise
        return module
    known = ", ".join(m[0] for m in _htp.programming_models()) or "none"
    raise LookupError(f"no programming model named '{name}' (registered: {known})")
