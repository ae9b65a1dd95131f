"""The report's figures (matplotlib, Agg backend): SER against the Shared Task, the similarity histogram."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from types import ModuleType

from .sections import SimilarityDistribution


def _pyplot() -> ModuleType:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def ser_figure(ours: Mapping[str, float], published: Mapping[str, float], path: Path) -> Path:
    """Grouped bars per set: craftrdf's test SER and the Shared Task 2019 best (lower is better)."""
    plt = _pyplot()
    keys = [k for k in published if k in ours]
    fig, ax = plt.subplots(figsize=(9, 4))
    x = range(len(keys))
    ax.bar([i - 0.2 for i in x], [published[k] for k in keys], width=0.4, label="CRAFT-ST 2019 best", color="#999999")
    ax.bar([i + 0.2 for i in x], [ours[k] for k in keys], width=0.4, label="craftrdf matcher", color="#1f77b4")
    ax.set_xticks(list(x), keys, rotation=30, ha="right")
    ax.set_ylabel("test-set slot error rate")
    ax.set_title("Slot error rate on the test articles (lower is better)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def similarity_figure(dist: SimilarityDistribution, path: Path) -> Path:
    """Histogram of Wang similarity (gold class vs the matcher's class at the same spans), two ways."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    bins = [i / 20 for i in range(21)]
    ax.hist(
        [dist.plain, dist.classified],
        bins=bins,
        label=["extension classes as shipped", "--classify-extensions"],
        color=["#bbbbbb", "#d62728"],
    )
    ax.set_xlabel("Wang similarity (is_a 0.8, part_of 0.6)")
    ax.set_ylabel("gold annotations")
    ax.set_yscale("log")
    ax.set_title(f"{dist.key}: {dist.paired:,} gold annotations with a prediction on the same spans")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
