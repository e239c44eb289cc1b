"""Files HTP writes into shared places (the cache, a package folder) are
written atomically: into a temporary file with a unique name in the same
folder, flushed to disk, then renamed over the final name. Concurrent
writers (threads or processes) never collide on the temporary, and a
reader never sees a partial file, even when a writer is killed."""

from __future__ import annotations

import os
import tempfile
from typing import Union


def write_file(path: str, contents: Union[str, bytes]) -> None:
    """Write ``contents`` (``str``: UTF-8 text, ``bytes``: as is) to ``path``
    atomically (see the module's docstring)."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    data = contents.encode("utf-8") if isinstance(contents, str) else bytes(contents)
    descriptor, temporary = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
