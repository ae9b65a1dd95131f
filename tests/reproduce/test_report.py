"""report.md's tables from hand-made figures: the published row, craftrdf's row and their difference."""

from __future__ import annotations

import dataclasses
from importlib import resources

import pytest

from craftrdf.errors import ConfigError
from craftrdf.reproduce import load_published
from craftrdf.reproduce.published import parse_published
from craftrdf.reproduce.report import render_report
from craftrdf.reproduce.sections import StatsRow
from craftrdf.stats import ArticleStats


def _render(published, stats):
    return render_report(
        counts=[],
        stats=stats,
        stats_documents=67,
        test_documents=30,
        sweeps={},
        ser_sweeps={},
        quick=True,
        similarity=None,
        published=published,
        grid="g",
        header="h",
    )


def _row(text: str, start: str) -> list[str]:
    line = next(x for x in text.splitlines() if x.startswith(start))
    return [c.strip() for c in line.strip("|").split("|")]


STATS = [StatsRow("UBERON", "core", ArticleStats(67, 10_000, 800, 149.3, 120.0, 612, 40.5, 38.0, 101))]


def test_without_published_statistics_the_section_says_so():
    text = _render(dataclasses.replace(load_published(), uberon_stats={}), STATS)
    assert _row(text, "| UBERON | core | craftrdf |")[3:] == [
        "10,000",
        "149.3",
        "120",
        "612",
        "800",
        "40.5",
        "38",
        "101",
    ]
    assert "| 2017 paper |" not in text and "not shipped" in text


def test_published_statistics_get_their_row_and_the_difference():
    pub = dataclasses.replace(
        load_published(),
        uberon_stats_source="Tables 3-4",
        uberon_stats={("UBERON", "core"): (9_500, 141.8, 115, 600, 850, 42.0, 40, 99)},
    )
    text = _render(pub, STATS)
    assert _row(text, "| UBERON | core | 2017 paper |")[3:] == [
        "9,500",
        "141.8",
        "115",
        "600",
        "850",
        "42.0",
        "40",
        "99",
    ]
    # 10000-9500, 149.3-141.8, 120-115, 612-600, 800-850, 40.5-42.0, 38-40, 101-99, by hand
    assert _row(text, "| UBERON | core | diff |")[3:] == ["+500", "+7.5", "+5.0", "+12", "-50", "-1.5", "-2.0", "+2"]
    assert "Published: Tables 3-4." in text and "not shipped" not in text


def test_a_published_row_of_the_wrong_length_is_refused():
    text = resources.files("craftrdf.reproduce").joinpath("published.toml").read_text(encoding="utf-8")
    assert parse_published(text).uberon_stats == {}  # as shipped
    with pytest.raises(ConfigError, match="UBERON core: need 8 figures"):
        parse_published(text + "[uberon_paper.stats.UBERON]\ncore = [1, 2, 3]\n")
