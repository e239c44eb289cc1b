"""Where HTP keeps files it makes (packages, transform scripts):
``$XDG_CACHE_HOME/htp`` or ``~/.cache/htp``."""

import os


def cache_directory(*parts: str) -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "htp", *parts)
