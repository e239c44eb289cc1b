"""htp.trace_plot: a task trace (Chrome JSON, as htp-runtime writes it) drawn as a PNG timeline.

The module is loaded from its file, so the test needs neither the built `htp` package nor its
native module; it is skipped, visibly, where matplotlib is missing.
"""

import importlib.util
import json
import pathlib

import pytest

pytest.importorskip("matplotlib", reason="matplotlib is not installed (scripts/setup installs it)")

MODULE_PATH = pathlib.Path(__file__).resolve().parents[1] / "htp" / "trace_plot.py"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def load_trace_plot():
    spec = importlib.util.spec_from_file_location("htp_trace_plot_under_test", MODULE_PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


trace_plot = load_trace_plot()

# The shape Trace::to_chrome_json writes: two workers, two kinds of task, one zero-length task.
TRACE = {
    "traceEvents": [
        {"name": "attn[0,0]", "ph": "X", "ts": 10.5, "dur": 40.0, "pid": 0, "tid": 0},
        {"name": "attn[0,1]", "ph": "X", "ts": 12.0, "dur": 35.25, "pid": 0, "tid": 1},
        {"name": "norm[0]", "ph": "X", "ts": 51.0, "dur": 8.0, "pid": 0, "tid": 0},
        {"name": "norm[1]", "ph": "X", "ts": 48.0, "dur": 0.0, "pid": 0, "tid": 1},
        {"name": "a counter", "ph": "C", "ts": 1.0, "pid": 0, "tid": 0},
    ]
}


def assert_png(path):
    data = pathlib.Path(path).read_bytes()
    assert len(data) > len(PNG_SIGNATURE), "empty PNG"
    assert data.startswith(PNG_SIGNATURE), "not a PNG"


def test_draws_a_png_from_json_text(tmp_path):
    out = trace_plot.draw_timeline(json.dumps(TRACE), tmp_path / "timeline.png", title="two workers")
    assert out == tmp_path / "timeline.png"
    assert_png(out)


def test_draws_a_png_from_a_file(tmp_path):
    source = tmp_path / "trace.json"
    source.write_text(json.dumps(TRACE), encoding="utf-8")
    assert_png(trace_plot.draw_timeline(source, tmp_path / "from_path.png"))
    assert_png(trace_plot.draw_timeline(str(source), tmp_path / "from_str_path.png"))


def test_an_empty_trace_still_draws(tmp_path):
    # The runtime writes this for a run without tasks.
    assert trace_plot.load_events('{"traceEvents":[]}') == []
    assert_png(trace_plot.draw_timeline('{"traceEvents":[]}', tmp_path / "empty.png"))


def test_only_complete_events_are_drawn_and_prefixes_group_names():
    events = trace_plot.load_events(json.dumps(TRACE))
    assert [event["name"] for event in events] == ["attn[0,0]", "attn[0,1]", "norm[0]", "norm[1]"]
    assert trace_plot.name_prefix("attn[3,1]") == "attn"
    assert trace_plot.name_prefix("plain") == "plain"
    assert trace_plot.name_prefix("[odd]") == "[odd]"


def test_command_line(tmp_path, capsys):
    source = tmp_path / "trace.json"
    source.write_text(json.dumps(TRACE), encoding="utf-8")
    assert trace_plot.main([str(source), str(tmp_path / "cli.png"), "--title", "from the shell"]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "cli.png")
    assert_png(tmp_path / "cli.png")


def test_lanes_named_by_thread_name_metadata(tmp_path):
    named = {"traceEvents": TRACE["traceEvents"] + [
        {"name": "step 0", "ph": "X", "ts": 0.0, "dur": 70.0, "pid": 0, "tid": -1},
        {"name": "thread_name", "ph": "M", "pid": 0, "tid": -1, "args": {"name": "host"}},
        {"name": "thread_name", "ph": "M", "pid": 0, "tid": 5},  # no args: ignored
        {"name": "process_name", "ph": "M", "pid": 0, "tid": 0, "args": {"name": "not a lane"}},
    ]}
    assert trace_plot.lane_names(named["traceEvents"]) == {-1: "host"}
    assert [e["name"] for e in trace_plot.load_events(json.dumps(named))][-1] == "step 0"
    assert_png(trace_plot.draw_timeline(json.dumps(named), tmp_path / "named.png"))
