"""Drawings of the topologies schedlab builds with NetworkX."""

from __future__ import annotations

from typing import Any

from schedlab.plots._mpl import new_figure

__all__ = ["draw_topology"]


def _layout(graph: Any) -> dict[Any, tuple[float, float]]:
    import math

    nodes = list(graph.nodes)
    sides = {graph.nodes[n].get("bipartite") for n in nodes}
    if sides == {0, 1}:  # a broker/resource grid: brokers on the left, resources on the right
        pos = {}
        for side in (0, 1):
            column = [n for n in nodes if graph.nodes[n].get("bipartite") == side]
            for i, n in enumerate(column):
                pos[n] = (float(side), 1.0 - (i + 0.5) / len(column))
        return pos
    # a ring (small-world or ordinal): nodes on a circle, in their order
    n = len(nodes)
    return {v: (math.cos(2 * math.pi * i / n), math.sin(2 * math.pi * i / n)) for i, v in enumerate(nodes)}


def draw_topology(graph: Any, *, title: str = "", ax: Any = None) -> Any:
    """Draw a ring (shortcuts dashed) or a bipartite broker/resource grid; returns the Figure.

    Drawn with plain matplotlib lines from the graph's nodes and edges, so a layout
    never depends on a random draw: the same graph gives the same picture.
    """
    if graph.number_of_nodes() == 0:
        raise ValueError("cannot draw an empty graph")
    if ax is None:
        ax = new_figure(5.0, 5.0).axes[0]
    pos = _layout(graph)
    for u, v, data in graph.edges(data=True):
        (x0, y0), (x1, y1) = pos[u], pos[v]
        shortcut = data.get("kind") == "shortcut"
        ax.plot(
            [x0, x1],
            [y0, y1],
            color="tab:red" if shortcut else "0.6",
            linestyle="--" if shortcut else "-",
            linewidth=1.0,
            zorder=1,
        )
    xs, ys = zip(*(pos[n] for n in graph.nodes), strict=True)
    colors = ["tab:green" if graph.nodes[n].get("bipartite") == 1 else "tab:blue" for n in graph.nodes]
    ax.scatter(xs, ys, s=120, c=colors, zorder=2)
    if graph.number_of_nodes() <= 40:
        for n, (x, y) in pos.items():
            label = n[1] if isinstance(n, tuple) else n
            ax.text(x, y, str(label), ha="center", va="center", fontsize=6, color="white", zorder=3)
    ax.set_aspect("equal" if len({graph.nodes[n].get("bipartite") for n in graph.nodes}) == 1 else "auto")
    ax.set_axis_off()
    ax.set_title(title or f"{graph.number_of_nodes()} nodes, {graph.number_of_edges()} edges")
    return ax.figure
