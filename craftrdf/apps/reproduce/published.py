"""The published figures that ``craftrdf reproduce`` sets craftrdf's own beside (``published.toml``)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from importlib import resources

from ...core.errors import ConfigError


@dataclass(frozen=True, slots=True)
class ConceptMapperBest:
    """The Uberon paper's best ConceptMapper results for one set (67 articles, exact spans)."""

    precision: float
    recall: float
    f1: float
    tp: int
    fp: int
    fn: int
    best_precision: float
    best_recall: float


@dataclass(frozen=True, slots=True)
class Published:
    """Every published table the report uses, each with its source."""

    counts: dict[str, tuple[int, int, int, int]]
    counts_source: str
    ser: dict[str, float]
    ser_source: str
    conceptmapper: dict[str, ConceptMapperBest]
    conceptmapper_source: str
    #: The Uberon paper's Tables 3-4: distributed set (``UBERON_core``, ...) -> the eight figures of
    #: its row (annotations: total, average, median, maximum per article; the same for unique concepts).
    uberon_stats: dict[str, tuple[float, ...]] = field(default_factory=dict)
    uberon_stats_source: str = ""


def load_published() -> Published:
    """The figures shipped in ``craftrdf/apps/reproduce/published.toml``."""
    return parse_published(resources.files(__package__).joinpath("published.toml").read_text(encoding="utf-8"))


def parse_published(text: str) -> Published:
    """The figures of a ``published.toml`` text; ConfigError for a malformed statistics row."""
    data = tomllib.loads(text)
    t4, ser, cm = data["st2019_table4"], data["st2019_ser"], data["conceptmapper"]
    best = {
        k: ConceptMapperBest(*_best_f1(v["best_f1"]), v["best_precision"], v["best_recall"])
        for k, v in cm.items()
        if isinstance(v, dict)
    }
    paper = data.get("uberon_paper", {})
    stats = {name: tuple(float(x) for x in row) for name, row in paper.get("stats", {}).items()}
    bad = [name for name, row in stats.items() if len(row) != 8]
    if bad:
        raise ConfigError(f"published.toml [uberon_paper.stats]: {', '.join(bad)}: need 8 figures per row")
    return Published(
        {k: tuple(v) for k, v in t4["counts"].items()},
        t4["source"],
        dict(ser["ser"]),
        ser["source"],
        best,
        cm["source"],
        stats,
        paper.get("source", ""),
    )


def _best_f1(row: list[float]) -> tuple[float, float, float, int, int, int]:
    """``[precision, recall, f1, tp, fp, fn]`` with the counts as integers."""
    p, r, f, tp, fp, fn = row
    return p, r, f, int(tp), int(fp), int(fn)
