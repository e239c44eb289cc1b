"""HTP_DUMP_IR=<dir>: the IR after the import and after every pass of the
target's pipeline, one numbered file each (htp_pass::dump)."""

import os

import htp
from htp import f32


@htp.kernel
def doubled(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = x[i:i + 16, :] * 2.0


def test_every_pass_of_the_pipeline_leaves_a_dump(tmp_path, monkeypatch):
    monkeypatch.setenv("HTP_DUMP_IR", str(tmp_path))
    for target in ("cpu", "pto-a2a3sim"):
        doubled._cache.clear()
        doubled.compile(target)
        files = sorted(os.listdir(tmp_path / f"doubled-{target}"))
        assert files[0] == "00-import.mlir", files
        numbers = [int(name.split("-")[0]) for name in files]
        assert numbers == list(range(len(files))), files
        text = (tmp_path / f"doubled-{target}" / files[-1]).read_text()
        assert "func.func" in text or "llvm.func" in text
    cpu = sorted(os.listdir(tmp_path / "doubled-cpu"))
    assert any("convert-tile-to-linalg" in name for name in cpu) and any("convert-to-llvm" in name for name in cpu), cpu
    assert "tile.mul" in (tmp_path / "doubled-cpu" / cpu[0]).read_text()
    pto = sorted(os.listdir(tmp_path / "doubled-pto-a2a3sim"))
    assert any("pto-insert-sync" in name for name in pto), pto


def test_without_the_variable_nothing_is_written(tmp_path, monkeypatch):
    monkeypatch.delenv("HTP_DUMP_IR", raising=False)
    monkeypatch.chdir(tmp_path)
    doubled._cache.clear()
    doubled.compile("cpu")
    assert os.listdir(tmp_path) == []
