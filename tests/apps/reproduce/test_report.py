"""report.md's sections 1-2 from hand-made figures and tiny stores; the published tables against the paper's."""

from __future__ import annotations

import csv
import dataclasses
import warnings
from importlib import resources
from pathlib import Path

import pytest

from craftrdf.analysis.stats import ArticleStats
from craftrdf.apps.reproduce.published import load_published, parse_published
from craftrdf.apps.reproduce.report import Measured, render_report
from craftrdf.apps.reproduce.sections import (
    CellCause,
    CountRow,
    NestingCounts,
    StatsRow,
    count_causes,
    uberon_nesting,
    uberon_stats,
)
from craftrdf.building.loader import load_files
from craftrdf.core.errors import ConfigError
from craftrdf.core.model import Annotation, Span
from craftrdf.store.local import AnnotationStore
from tests.helpers.corpus import find_published

DATA = Path(__file__).resolve().parents[2] / "data" / "reproduce"


def _render(published, stats, *, counts=(), causes=(), nesting=(), documents=67):
    measured = Measured(
        counts=list(counts),
        public=[f"p{i}" for i in range(documents)],
        test=[f"t{i}" for i in range(30)],
        causes=list(causes),
        stats=list(stats),
        nesting=list(nesting),
        sweeps={},
        skipped=[],
        similarity=None,
        trained=None,
    )
    return render_report(measured, sweeps={}, quick=True, published=published, grid="g", header="h")


def _cells(text: str, start: str, nth: int = 0) -> list[str]:
    line = [x for x in text.splitlines() if x.startswith(start)][nth]
    return [c.strip() for c in line.strip("|").split("|")]


def _load(store: AnnotationStore, path: Path, key: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        load_files(store, [path], set_key=key)


def test_the_published_tables_are_the_papers():
    path = find_published()
    if path is None:
        pytest.skip("../shared/published/bada2017-tables-3-4.csv not found")
    rows = list(csv.reader(line for line in path.read_text().splitlines() if not line.startswith("#")))
    expected: dict[str, list[float]] = {}
    for table, name, *figures in rows:  # Table 3 gives the first four figures of a row, Table 4 the last four
        expected.setdefault(name, [0.0] * 8)[(int(table) - 3) * 4 : (int(table) - 2) * 4] = map(float, figures)
    published = load_published()
    assert published.uberon_stats == {k: tuple(v) for k, v in expected.items()}
    assert list(published.uberon_stats) == [
        "UBERON_core",
        "UBERON_core+extensions",
        "UBERON_core+nested",
        "UBERON_core+extensions+nested",
    ]  # the paper's order
    assert "bax087" in published.uberon_stats_source and "Tables 3 and 4" in published.uberon_stats_source


UBERON = ArticleStats(67, 12_269, 838, 183.119, 130.0, 575, 30.61, 24.0, 107)


def test_each_distributed_set_is_one_row_with_paper_craftrdf_and_difference():
    text = _render(load_published(), [StatsRow("UBERON_core", "UBERON", "outermost", UBERON)])
    table3 = _cells(text, "| UBERON_core |", 0)
    table4 = _cells(text, "| UBERON_core |", 1)
    # paper 12,187 182 130 575 | 842 31 25 108; by hand: 12269-12187, 183.1-182, 130-130, 575-575
    assert table3 == [
        "UBERON_core",
        "UBERON, `--nesting outermost`",
        "12,187 / 12,269 / +82",
        "182 / 183.1 / +1.1",
        "130 / 130 / +0",
        "575 / 575 / +0",
    ]
    assert table4[2:] == ["842 / 838 / -4", "31 / 30.6 / -0.4", "25 / 24 / -1", "108 / 107 / -1"]
    assert "Table 3: annotations." in text and "Table 4: unique concepts." in text
    ext = ArticleStats(67, 14_910, 888, 222.5, 165.0, 702, 35.97, 29.0, 125)
    text_ext = _render(load_published(), [StatsRow("UBERON_core+extensions", "UBERON_EXT", "outermost", ext)])
    assert _cells(text_ext, "| UBERON_core+extensions |", 1)[3] == "36 / 36.0 / +0.0"  # 35.97 - 36, not -0.0
    assert "- **UBERON_core**: UBERON" in text  # why this set and view
    assert "Published: Bada et al., Database 2017, bax087, Tables 3 and 4" in text


def test_without_published_statistics_the_section_says_so():
    text = _render(
        dataclasses.replace(load_published(), uberon_stats={}), [StatsRow("UBERON_core", "UBERON", "outermost", UBERON)]
    )
    assert _cells(text, "| UBERON_core |")[2] == "— / 12,269 / —"
    assert "values are not in craftrdf/apps/reproduce/published.toml" in text


def test_nesting_counts_and_what_moved_are_stated_in_counts():
    stats = [
        StatsRow("UBERON_core", "UBERON", "outermost", UBERON),
        StatsRow("UBERON_core+nested", "UBERON", "all", UBERON),
    ]
    nesting = [NestingCounts("UBERON", 12_269, 838, 0, 61, 1_266, 119, 0, 9, 2)]
    text = _render(load_published(), stats, nesting=nesting)
    # the paper's nested annotations: 13,625 - 12,187 = 1,438; concepts 867 - 842 = 25 (by hand)
    assert _cells(text, "| UBERON | 12,269 |") == [
        "UBERON",
        "12,269",
        "838",
        "0",
        "61",
        "1,266",
        "119 (0)",
        "1,438",
        "25",
    ]
    assert "+82 annotations and -4 unique concepts, net" in text
    assert "the paper counted 1,438 nested annotations (bringing 25 concepts" in text
    assert "so that row differs by -1,356 annotations" in text  # 12,269 - 13,625
    assert "1,266 of UBERON's annotations would go, leaving 11,003" in text
    # 119 - 9 = 110 of the nested project's annotations lie within nothing
    assert "0 of them lie within another annotation of UBERON, 9 within an annotation of any set, and 110" in text
    assert "2 of its 838 concepts are used by these annotations alone" in text
    partial = _render(load_published(), stats, nesting=nesting, documents=2)
    assert "holds 2 of the paper's 67 articles" in partial and "net, between" not in partial


def test_differing_count_cells_name_their_cause():
    counts = [
        CountRow("GO_BP_EXT", (13_955, 526, 5_847, 287), (13_954, 526, 5_847, 287)),
        CountRow("SO_EXT", (24_955, 182, 9_136, 73), (24_955, 182, 9_136, 72)),
        CountRow("CL", (4_044, 244, 1_749, 175), (4_043, 244, 1_749, 175)),
    ]
    causes = [
        CellCause("GO_BP_EXT", 0, "no span", (Annotation("M_150074", "17696610", "GO:0007049", ()),)),
        CellCause(
            "SO_EXT",
            3,
            "repeated span",
            (Annotation("M_222229", "16968134", "SO_EXT:x", (Span(20131, 20136),) * 2, "fused ... fused"),),
        ),
    ]
    text = _render(load_published(), [], counts=counts, causes=causes)
    lines = text.splitlines()
    go = next(x for x in lines if x.startswith("- GO_BP_EXT train+dev (+1): "))
    so = next(x for x in lines if x.startswith("- SO_EXT test discontinuous (+1): "))
    cl = next(x for x in lines if x.startswith("- CL train+dev (+1): "))
    assert "without any span" in go and "17696610 `M_150074`" in go
    assert "one and the same range" in so and "16968134 `M_222229` (SO_EXT:x, 20131–20136, 20131–20136" in so
    assert "cause not identified" in cl


def test_a_published_row_of_the_wrong_length_is_refused():
    text = resources.files("craftrdf.apps.reproduce").joinpath("published.toml").read_text(encoding="utf-8")
    assert len(parse_published(text).uberon_stats) == 4  # as shipped
    broken = text.replace('"UBERON_core" = [12187, 182, 130, 575, 842, 31, 25, 108]', '"UBERON_core" = [1, 2, 3]')
    with pytest.raises(ConfigError, match="UBERON_core: need 8 figures"):
        parse_published(broken)


def test_statistics_and_nesting_of_a_hand_made_set():
    # d1: 'retinal ganglion cell layer' [0,27), 'retinal' [0,7) inside it (its id from the nested project),
    # 'brain' [35,40); OTHER's 'brain stem' [35,45) holds 'brain'. d2 has no annotation.
    store = AnnotationStore.memory()
    _load(store, DATA / "d1.txt.knowtator.xml", "MINE")
    _load(store, DATA / "other" / "d1.bionlp", "OTHER")
    core, nested = uberon_stats(
        store, ["d1", "d2"], rows=(("core", "MINE", "outermost"), ("core+nested", "MINE", "all"))
    )
    # outermost drops 'retinal': d1 has 2 annotations and 2 concepts, d2 none -> mean 1, median 1, max 2
    assert core.stats == ArticleStats(2, 2, 2, 1.0, 1.0, 2, 1.0, 1.0, 2)
    assert nested.stats == ArticleStats(2, 3, 3, 1.5, 1.5, 3, 1.5, 1.5, 3)
    # 'retinal' within the set; 'retinal' and 'brain' within some annotation of any set
    # the nested project's 'retinal' lies within 'retinal ganglion cell layer'; retina is its class alone
    assert uberon_nesting(store, ["MINE"], ["d1", "d2"]) == [NestingCounts("MINE", 3, 3, 1, 1, 2, 1, 1, 1, 1)]


def test_annotations_of_the_nested_project_that_lie_within_nothing_are_counted_with_their_own_concepts():
    store = AnnotationStore.memory()
    _load(store, DATA / "moved.txt.knowtator.xml", "MINE")
    # by hand from the file: 3 annotations, 2 classes; 'optic' [16,21) within 'optic nerve' [16,27);
    # 2 nested-project ids, 1 of them within another annotation, 1 ('brain') within none; brain is
    # used by no other annotation, optic nerve's class is also A_2's: 1 concept they alone bring
    (n,) = uberon_nesting(store, ["MINE"], ["moved"])
    assert n == NestingCounts("MINE", 3, 2, 1, 1, 1, 2, 1, 1, 1)


def test_causes_are_the_spanless_and_repeated_span_annotations_when_they_make_the_difference():
    store = AnnotationStore.memory()
    _load(store, DATA / "causes.txt.knowtator.xml", "MINE")
    # the file: C_1 ordinary, C_2 without span, C_3 two copies of [10,15)
    found = count_causes(store, [CountRow("MINE", (3, 1, 0, 0), (2, 0, 0, 0))])
    assert [(c.column, c.kind, [a.id for a in c.annotations]) for c in found] == [
        (0, "no span", ["C_2"]),
        (1, "repeated span", ["C_3"]),
    ]
    # a difference of 2 is not one spanless annotation: no cause is claimed for that cell
    assert [c.column for c in count_causes(store, [CountRow("MINE", (3, 1, 0, 0), (1, 0, 0, 0))])] == [1]
