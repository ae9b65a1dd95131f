"""``pr.png``: precision against recall for every configuration (matplotlib, Agg backend).

Iso-F1 curves in the background, the Pareto front (no configuration better on both
rates) highlighted, and, for UBERON and UBERON_EXT, the paper's ConceptMapper results:
its best-F1 configuration as a point, its best precision and best recall as marks on
the axes (the issue gives only that one rate for those two).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .report import PAPER
from .results import SweepRow, pareto_front


def plot_pr(rows: Sequence[SweepRow], path: Path, *, set_key: str, documents: str) -> Path:
    """Draw the precision-recall plot of ``rows`` into ``path`` (PNG); returns ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 6), dpi=120)
    try:
        _iso_f1(ax)
        ax.scatter(
            [x.recall for x in rows],
            [x.precision for x in rows],
            s=9,
            color="tab:blue",
            alpha=0.5,
            label=f"{len(rows)} configurations",
            zorder=2,
        )
        front = pareto_front(rows)
        ax.plot(
            [x.recall for x in front],
            [x.precision for x in front],
            "-o",
            color="tab:red",
            markersize=4,
            linewidth=1.2,
            label=f"Pareto front ({len(front)})",
            zorder=3,
        )
        best = max(rows, key=lambda x: x.f1) if rows else None
        if best is not None:
            ax.scatter(
                [best.recall],
                [best.precision],
                marker="*",
                s=140,
                color="tab:red",
                edgecolor="black",
                zorder=4,
                label=f"best F1 {best.f1:.3f}",
            )
        _paper_marks(ax, set_key)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.set_xlabel("recall (exact spans and class)")
        ax.set_ylabel("precision (exact spans and class)")
        ax.set_title(f"Matcher sweep, {set_key}: {documents}", fontsize=10)
        ax.legend(loc="lower left", fontsize=7)
        ax.grid(False)
        fig.tight_layout()
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path)
    finally:
        plt.close(fig)
    return path


def _iso_f1(ax: Any) -> None:
    """Light iso-F1 curves (F1 = 0.2 ... 0.9) behind the points, each labelled at the right edge."""
    import numpy as np

    r = np.linspace(0.01, 1, 200)
    for f in (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9):
        with np.errstate(divide="ignore", invalid="ignore"):
            p = f * r / (2 * r - f)
        ok = (p > 0) & (p <= 1) & (r >= f / 2)
        ax.plot(r[ok], p[ok], color="0.85", linewidth=0.8, zorder=0)
        ax.annotate(f"F1={f:.1f}", (1.0, f / (2 - f)), fontsize=7, color="0.55", ha="right", va="bottom")


def _paper_marks(ax: Any, set_key: str) -> None:
    """The paper's best F1 point and its best precision and recall lines, for a set the paper reports."""
    paper = PAPER.get(set_key.upper())
    if paper is None:
        return
    ax.scatter(
        [paper["f1_r"]],
        [paper["f1_p"]],
        marker="D",
        s=50,
        color="tab:green",
        edgecolor="black",
        zorder=4,
        label=f"paper best F1 {paper['f1']:.2f}",
    )
    ax.axhline(
        paper["precision"],
        color="tab:green",
        linestyle="--",
        linewidth=0.9,
        label=f"paper best precision {paper['precision']:.2f}",
    )
    ax.axvline(
        paper["recall"],
        color="tab:green",
        linestyle=":",
        linewidth=0.9,
        label=f"paper best recall {paper['recall']:.2f}",
    )
