"""Task timelines as pictures: one row per worker, one bar per task.

Reads the Chrome trace-event JSON that ``htp-runtime`` writes (``Trace::to_chrome_json``: complete
events ``{"name", "ph": "X", "ts", "dur", "pid", "tid"}``, times in microseconds, ``tid`` the
worker) — the same file Perfetto opens — and draws it with matplotlib, for reports and quick looks
where a browser is not at hand. Bars are coloured by the task name's prefix (``attn`` for
``attn[3,1]``), so the kernels of a workload tell apart at a glance.

matplotlib is imported when drawing, so ``import htp`` does not need it (``scripts/setup``
installs it; ``pip install 'htp[trace]'`` too). From a shell: ``python -m htp.trace_plot
trace.json timeline.png``.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
from typing import Dict, List, Optional, Union

TraceSource = Union[str, bytes, "os.PathLike[str]"]

__all__ = ["draw_timeline", "lane_names", "load_events", "main", "name_prefix"]


def _all_events(chrome_json_text_or_path: TraceSource) -> List[dict]:
    if isinstance(chrome_json_text_or_path, bytes):
        text = chrome_json_text_or_path.decode("utf-8")
    elif isinstance(chrome_json_text_or_path, str) and chrome_json_text_or_path.lstrip().startswith(("{", "[")):
        text = chrome_json_text_or_path
    else:
        text = pathlib.Path(chrome_json_text_or_path).read_text(encoding="utf-8")
    document = json.loads(text)
    # Both forms the format allows: an object with "traceEvents", or a bare array of events.
    events = document.get("traceEvents", []) if isinstance(document, dict) else document
    if not isinstance(events, list):
        raise ValueError("a Chrome trace's traceEvents must be a list")
    return [event for event in events if isinstance(event, dict)]


def load_events(chrome_json_text_or_path: TraceSource) -> List[dict]:
    """The complete (``"ph": "X"``) events of a Chrome trace given as JSON text or a file path."""
    return [event for event in _all_events(chrome_json_text_or_path) if event.get("ph") == "X"]


def lane_names(events: List[dict]) -> Dict[int, str]:
    """``tid -> name`` from the trace's ``thread_name`` metadata events (``"ph": "M"``), the
    format's way of naming a lane (a trace that merges the host's calls with the tasks names
    its host lane so)."""
    return {int(event.get("tid", 0)): str(event["args"]["name"]) for event in events
            if event.get("ph") == "M" and event.get("name") == "thread_name"
            and isinstance(event.get("args"), dict) and "name" in event["args"]}


def name_prefix(name: str) -> str:
    """The part of a task name before its indices: ``attn[3,1]`` -> ``attn``."""
    prefix = re.split(r"[\[(<{#@ ]", name, maxsplit=1)[0]
    return prefix or name


def draw_timeline(chrome_json_text_or_path: TraceSource, png_path: Union[str, "os.PathLike[str]"],
                  title: Optional[str] = None) -> pathlib.Path:
    """Draws the trace as a timeline PNG at ``png_path`` and returns that path.

    One row per lane (worker, or the name a ``thread_name`` metadata event gives it), a bar per
    task from its start to its end, colours by :func:`name_prefix`, the time axis in
    microseconds from the earliest task's start.
    """
    from matplotlib.figure import Figure  # no pyplot: no global state, no display needed

    everything = _all_events(chrome_json_text_or_path)
    events = [event for event in everything if event.get("ph") == "X"]
    names = lane_names(everything)
    lanes = sorted({int(event.get("tid", 0)) for event in events})
    row_of = {lane: row for row, lane in enumerate(lanes)}
    origin = min((float(event["ts"]) for event in events), default=0.0)
    prefixes: List[str] = []
    for event in events:
        prefix = name_prefix(str(event.get("name", "")))
        if prefix not in prefixes:
            prefixes.append(prefix)
    colour_of = _colours(prefixes)

    figure = Figure(figsize=(10, 1.2 + 0.45 * max(len(lanes), 1)), layout="constrained")
    axes = figure.subplots()
    bars: Dict[int, List[tuple]] = {lane: [] for lane in lanes}
    colours: Dict[int, List[tuple]] = {lane: [] for lane in lanes}
    for event in events:
        lane = int(event.get("tid", 0))
        bars[lane].append((float(event["ts"]) - origin, float(event.get("dur", 0.0))))
        colours[lane].append(colour_of[name_prefix(str(event.get("name", "")))])
    for lane in lanes:
        axes.broken_barh(bars[lane], (row_of[lane] - 0.4, 0.8), facecolors=colours[lane],
                         edgecolors="black", linewidths=0.2)
    axes.set_yticks(range(len(lanes)), [names.get(lane, f"worker {lane}") for lane in lanes])
    axes.set_ylim(-0.6, max(len(lanes), 1) - 0.4)
    axes.invert_yaxis()
    axes.set_xlabel("time (µs)")
    axes.set_title(title or f"{len(events)} tasks on {len(lanes)} workers")
    if not events:
        axes.text(0.5, 0.5, "no tasks", transform=axes.transAxes, ha="center", va="center")
    if prefixes:
        from matplotlib.patches import Patch

        shown = prefixes[:20]
        axes.legend(handles=[Patch(color=colour_of[p], label=p) for p in shown], loc="upper left",
                    bbox_to_anchor=(1.0, 1.0), fontsize="small", frameon=False)
    path = pathlib.Path(png_path)
    figure.savefig(path, format="png", dpi=120)
    return path


def _colours(prefixes: List[str]) -> Dict[str, tuple]:
    """A colour per prefix in order of first appearance: ten distinct hues, then their light
    variants (tab20's odd entries), then again."""
    import matplotlib

    palette = matplotlib.colormaps["tab20"]
    return {prefix: palette((2 * index + (index // 10) % 2) % 20) for index, prefix in enumerate(prefixes)}


def main(argv: Optional[List[str]] = None) -> int:
    """``python -m htp.trace_plot TRACE.json OUT.png [--title TITLE]``."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m htp.trace_plot", description=draw_timeline.__doc__)
    parser.add_argument("trace", help="Chrome trace-event JSON, as htp-runtime writes it")
    parser.add_argument("png", help="the PNG to write")
    parser.add_argument("--title", default=None)
    arguments = parser.parse_args(argv)
    print(draw_timeline(pathlib.Path(arguments.trace), arguments.png, title=arguments.title))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
