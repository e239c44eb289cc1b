"""Package builds cannot poison each other (issue 26): `scripts/install-python`
with and without `HTP_RUST_EXTENSIONS`, in either order, each leaves an
importable `htp` whose native module has the Rust extensions it was built
with — the two builds share no artifact (D62: the extended binding depends on
`htp-binding`, a Rust library; only `python/` is a cdylib named `_htp`).

Run on this checkout (the builds reuse its `target/`; a copy elsewhere would
rebuild every crate), installing into a virtual environment of its own so the
package the other tests use is left alone. Skipped, visibly, when the
checkout has no Cargo build to reuse."""

import os
import pathlib
import subprocess
import sys
import venv

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXTENSION = "examples/extensions/htp-rust-sample"
PROFILE = os.environ.get("HTP_PROFILE", "release")

needs_a_build = pytest.mark.skipif(not (ROOT / "target" / PROFILE).is_dir(),
                                   reason=f"no target/{PROFILE} to reuse (scripts/install-python has not run here)")


def install(python, extensions):
    env = {k: v for k, v in os.environ.items() if k not in ("HTP_RUST_EXTENSIONS", "CARGO_TARGET_DIR")}
    env.update(PYTHON=str(python), HTP_PROFILE=PROFILE)
    if extensions:
        env["HTP_RUST_EXTENSIONS"] = extensions
    result = subprocess.run([str(ROOT / "scripts" / "install-python")], cwd=ROOT, env=env, capture_output=True, text=True, timeout=3000)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]


def imported_extensions(python):
    """The Rust extensions the installed package's native module names, importing it from outside the checkout."""
    result = subprocess.run([str(python), "-c", "import htp, htp._htp as m; print(','.join(m.rust_extensions()))"],
                            cwd="/", capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout.strip()


@needs_a_build
def test_plain_and_extended_installs_in_either_order(tmp_path):
    environment = tmp_path / "venv"
    venv.EnvBuilder(system_site_packages=True, with_pip=False).create(environment)
    python = environment / "bin" / "python"
    # pip is the machine's (system site packages); the venv's own site-packages receive the installs.
    assert subprocess.run([str(python), "-m", "pip", "--version"], capture_output=True).returncode == 0
    for extensions in (EXTENSION, "", EXTENSION, ""):
        install(python, extensions)
        names = imported_extensions(python)
        if extensions:
            assert names == "htp-rust-sample", names
        else:
            assert names == "", names
