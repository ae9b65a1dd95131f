"""Set and document pairing, the report files, and the corpus: gold against itself."""

from __future__ import annotations

import json
import subprocess
import sys
from decimal import Decimal

import pytest

from craftrdf.analysis.evaluation.inputs import load_directory
from craftrdf.analysis.evaluation.official import official_row
from craftrdf.analysis.evaluation.run import (
    RESULTS_HEADER,
    SetReport,
    evaluate_sets,
    format_table,
    parse_criteria,
    write_report,
)
from craftrdf.analysis.evaluation.scores import Scores
from craftrdf.core.errors import ConfigError
from tests.helpers.scoring import exact_scorers


def write(root, key, pmid, lines):
    d = root / key
    d.mkdir(parents=True, exist_ok=True)
    (d / f"{pmid}.bionlp").write_text("".join(line + "\n" for line in lines), encoding="utf-8")


@pytest.fixture
def dirs(tmp_path):
    gold, pred = tmp_path / "gold", tmp_path / "pred"
    write(gold, "CL", "111", ["T1\tCL:1 0 10\tabcdefghij", "T2\tCL:2 20 30\tklmnopqrst"])
    write(gold, "CL", "222", ["T1\tCL:1 0 4\tabcd"])
    write(gold, "CL", "333", ["T1\tCL:3 0 4\tabcd"])  # not predicted: not scored
    # doc 111: T1 exact (1), T2 half overlap [25,35) vs [20,30): 5/15; doc 222: nothing
    write(pred, "cl", "111", ["T1\tCL:1 0 10\tabcdefghij", "T2\tCL:2 25 35\tpqrstuvwxy"])
    write(pred, "cl", "222", [])
    return gold, pred


def test_directories_scored_per_document_and_in_total(dirs, tmp_path):
    gold, pred = (load_directory(d) for d in dirs)
    assert set(gold) == {"CL"} and set(pred) == {"CL"}
    (rep,) = evaluate_sets(gold, pred, exact_scorers(gold, pred), criteria=["exact", "partial"])
    assert rep.key == "CL"
    docs = dict(rep.documents)
    assert list(docs) == ["111", "222"]
    # 111: M = 1 + 1/3, N = P = 2, no D, no I; S = 2/3; SER = 1/3
    assert float(docs["111"].matches) == pytest.approx(4 / 3)
    assert docs["111"].ser == pytest.approx(1 / 3)
    # 222: N = 1, P = 0
    assert (docs["222"].deletions, docs["222"].ser, docs["222"].f1) == (1, 1.0, 0.0)
    # total: M = 4/3, N = 3, P = 2, D = 1, I = 0; S = 3 - 1 - 4/3 = 2/3; SER = (2/3 + 1) / 3
    t = rep.total
    assert (t.ref_count, t.pred_count, t.deletions, t.insertions) == (3, 2, 1, 0)
    assert t.ser == pytest.approx(5 / 9)
    assert t.precision == pytest.approx(2 / 3)
    assert t.recall == pytest.approx(4 / 9)
    crit = {(c.criterion, c.classes): (c.tp, c.ref_count, c.pred_count) for c in rep.criteria}
    assert crit[("exact", "exact")] == (1, 3, 2)
    assert crit[("partial", "exact")] == (2, 3, 2)
    assert crit[("partial", "ignore")] == (2, 3, 2)

    out = tmp_path / "out"
    write_report([rep], out)
    lines = (out / "CL_results.tsv").read_text().splitlines()
    assert lines[0] == RESULTS_HEADER
    assert [line.split("\t")[0] for line in lines[1:]] == ["111", "222", "TOTAL"]
    assert lines[-1].split("\t")[1:] == ["0.6667", "0", "1", "1.3333", "3", "2", "0.5556", "0.6667", "0.4444", "0.5333"]
    assert (out / "CL_criteria.tsv").read_text().startswith("#criterion\t")
    summary = json.loads((out / "summary.json").read_text())
    assert summary["sets"]["CL"]["total"]["deletions"] == 1


def test_predicted_document_without_gold_is_an_error(dirs):
    gold_dir, pred_dir = dirs
    write(pred_dir, "cl", "999", ["T1\tCL:1 0 4\tabcd"])
    with pytest.raises(ConfigError, match="999"):
        gold, pred = load_directory(gold_dir), load_directory(pred_dir)
        evaluate_sets(gold, pred, exact_scorers(gold, pred))


def test_predicted_set_without_gold_is_an_error(dirs):
    gold_dir, pred_dir = dirs
    write(pred_dir, "UBERON", "111", [])
    with pytest.raises(ConfigError, match="UBERON"):
        gold, pred = load_directory(gold_dir), load_directory(pred_dir)
        evaluate_sets(gold, pred, exact_scorers(gold, pred))


def test_parse_criteria():
    assert parse_criteria("all")[0] == "exact" and "fragment" in parse_criteria("ALL")
    assert parse_criteria("left-or-right,partial") == ("left_or_right", "partial")
    with pytest.raises(ConfigError, match="middle"):
        parse_criteria("exact,middle")


def test_cli_on_the_sample_with_a_class_moved_to_its_parent(tmp_path, capsys):
    from craftrdf import similarity_index
    from craftrdf.apps.cli import main
    from craftrdf.apps.demo import sample_dir
    from craftrdf.querying.webanno import fetch_annotations
    from craftrdf.store.local import AnnotationStore

    store_path = tmp_path / "s.store"
    assert main(["-q", "build", "--craft", str(sample_dir()), "--store", str(store_path), "--sets", "UBERON"]) == 0
    with AnnotationStore.open(store_path, mode="read") as store:
        gold = [a for a in fetch_annotations(store, "UBERON") if a.document == "11597317"]
        index = similarity_index(store, method="bossy", cache=None)
        first = gold[0]
        # the is_a parent: the ancestor with S-value 0.65 (bossy weight)
        parent = next(t for t, s in index.semantic_values(first.class_id).items() if s == pytest.approx(0.65))
        sim = index.similarity(first.class_id, parent)
    assert len(gold) == 8 and 0 < sim < 1
    lines = []
    for k, a in enumerate(gold):
        cls = parent if a is first else a.class_id
        spans = ";".join(f"{s.start} {s.end}" for s in a.spans)
        lines.append(f"T{k + 1}\t{cls} {spans}\t{a.text}")
    write(tmp_path / "pred", "uberon", "11597317", lines)
    out = tmp_path / "out"
    assert (
        main(
            [
                "evaluate",
                "--gold",
                "UBERON",
                "--pred",
                str(tmp_path / "pred"),
                "--store",
                str(store_path),
                "--craft",
                str(sample_dir()),
                "--out",
                str(out),
            ]
        )
        == 0
    )
    assert "UBERON" in capsys.readouterr().out
    summary = json.loads((out / "summary.json").read_text())
    t = summary["sets"]["UBERON"]["total"]
    # M = 7 + sim, S = 8 - 0 - M = 1 - sim, SER = S / 8; precision = recall = M / 8
    assert (t["ref_count"], t["pred_count"], t["insertions"], t["deletions"]) == (8, 8, 0, 0)
    assert t["SER"] == pytest.approx((1 - sim) / 8)
    assert t["precision"] == pytest.approx((7 + sim) / 8)
    crit = {(c["criterion"], c["classes"]): c["tp"] for c in summary["sets"]["UBERON"]["criteria"]}
    assert crit[("exact", "exact")] == 7
    assert crit[("exact", "ignore")] == 8
    assert crit[("exact", "hierarchy")] == 8
    assert ("fragment", "exact") in crit
    assert (out / "UBERON_results.tsv").read_text().splitlines()[1].startswith("11597317\t")


def _ann(doc, cls, start, end, ident):
    from craftrdf.core.model import Annotation, Span

    return Annotation(ident, doc, cls, (Span(start, end),))


def test_craft_rules_run_on_the_prediction_before_scoring():
    from craftrdf.analysis.rules import Mappings, craft_rules

    gold = {"CL": {"1": [_ann("1", "CL:1", 0, 10, "g1")]}, "CL_EXT": {"1": [_ann("1", "CL_EXT:x", 20, 30, "g2")]}}
    pred = {
        "CL": {"1": [_ann("1", "CL:1", 0, 10, "p1"), _ann("1", "CL:9", 20, 30, "p2")]},
        "CL_EXT": {"1": [_ann("1", "CL:7", 20, 30, "p3"), _ann("1", "CL:8", 0, 5, "p4")]},
    }
    maps = {
        "CL": Mappings(unused=frozenset({"CL:9"})),
        "CL_EXT": Mappings(substitutes={"CL:7": ("CL_EXT:x",), "CL:8": ()}),
    }
    plain = {r.key: r for r in evaluate_sets(gold, pred, exact_scorers(gold, pred), criteria=["exact"])}
    # without the rules: CL has one insertion; in CL_EXT the overlapping CL:7 pairs with the reference at
    # score 0 (a substitution) and CL:8 is an insertion
    assert (plain["CL"].total.insertions, plain["CL"].total.ser) == (1, 1.0)
    assert (plain["CL_EXT"].total.insertions, plain["CL_EXT"].total.deletions) == (1, 0)
    ruled = {
        r.key: r
        for r in evaluate_sets(gold, pred, exact_scorers(gold, pred), criteria=["exact"], rules=maps.__getitem__)
    }
    assert craft_rules("CL") == ("unused",) and craft_rules("CL_EXT") == ("substitute",)
    assert (ruled["CL"].total.pred_count, ruled["CL"].total.ser) == (1, 0.0)
    assert (ruled["CL_EXT"].total.pred_count, ruled["CL_EXT"].total.ser) == (1, 0.0)
    (cl_rule,) = ruled["CL"].rules
    assert (cl_rule.rule, cl_rule.dropped) == ("unused", 1)
    (ext_rule,) = ruled["CL_EXT"].rules
    assert (ext_rule.rule, ext_rule.replaced, ext_rule.dropped) == ("substitute", 1, 1)


def test_cli_with_the_craft_directory_instead_of_a_store(tmp_path, capsys):
    """--craft alone reads the sample into memory; with --apply-craft-rules an unused class that
    substitutes to an extension class already on the same spans is removed (CRAFT's rule 2)."""
    from craftrdf.apps.cli import main
    from craftrdf.apps.demo import sample_dir
    from craftrdf.ingest.knowtator import read_knowtator

    craft = sample_dir()
    doc, ext = "11319941", "UBERON_EXT:cell_clump_or_cluster_or_group_or_mass_or_population"
    folder = craft / "concept-annotation" / "UBERON" / "UBERON+extensions"
    raw = read_knowtator(folder / "knowtator" / f"{doc}.txt.knowtator.xml")
    # the mapping file says: UBERON:0014778 -> that extension class (and nothing else)
    mapping = folder / "unused_classes_and_substitute_extension_classes_for_UBERON+extensions_annotations.txt"
    assert [
        line.split("\t")[1] for line in mapping.read_text().splitlines() if line.startswith("UBERON:0014778\t")
    ] == [ext]
    target = next(a for a in raw if a.class_id == ext)

    def line(i, cls, a):
        return f"T{i}\t{cls} " + ";".join(f"{s.start} {s.end}" for s in a.spans) + f"\t{a.text}"

    lines = [line(i, a.class_id, a) for i, a in enumerate(raw, 1)] + [line(len(raw) + 1, "UBERON:0014778", target)]
    write(tmp_path / "pred", "UBERON_EXT", doc, lines)
    out = tmp_path / "out"
    common = [
        "evaluate",
        "--gold",
        "UBERON_EXT",
        "--pred",
        str(tmp_path / "pred"),
        "--craft",
        str(craft),
        "--criteria",
        "exact",
    ]
    assert main([*common, "--out", str(out / "plain")]) == 0
    assert main([*common, "--apply-craft-rules", "--out", str(out / "ruled")]) == 0
    plain = json.loads((out / "plain" / "summary.json").read_text())["sets"]["UBERON_EXT"]
    ruled = json.loads((out / "ruled" / "summary.json").read_text())["sets"]["UBERON_EXT"]
    n = len(raw)
    assert n == 233
    assert (plain["total"]["ref_count"], plain["total"]["pred_count"], plain["total"]["insertions"]) == (n, n + 1, 1)
    assert plain["craft_rules"] == []
    assert (ruled["total"]["pred_count"], ruled["total"]["insertions"], ruled["total"]["SER"]) == (n, 0, 0.0)
    assert ruled["craft_rules"] == [
        {"rule": "substitute", "before": n + 1, "after": n, "dropped": 0, "replaced": 0, "duplicates": 1}
    ]


def test_cli_needs_a_store_or_a_craft_directory(tmp_path, capsys):
    from craftrdf.apps.cli import main

    assert main(["evaluate", "--gold", "UBERON", "--pred", str(tmp_path), "--out", str(tmp_path / "o")]) == 1
    assert "--store" in capsys.readouterr().err


def _evaluate(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "craftrdf", "-q", "evaluate", *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_cli_bad_predictions_are_one_line_and_write_nothing(sample_store_dir, tmp_path):
    """A prediction that is not UTF-8, or whose offsets pass the end of the article: exit 1, one line
    naming the file and line, no report. A text column that differs from the article: scored by the
    offsets (as the official scorer, which never reads it), with one warning line and the count."""
    from craftrdf.apps.demo import sample_dir

    doc = "11319941"
    size = len((sample_dir() / "articles" / "txt" / f"{doc}.txt").read_text(encoding="utf-8"))
    first = "T1\tUBERON:0000955 0 5\tbrain"
    cases = {
        "latin1": ("T2\tUBERON:0000955 0 5\tbr\xe2in\n".encode("latin-1"), "line 2: not UTF-8: byte 0xe2"),
        "past": (
            f"T2\tUBERON:0000955 {size - 2} {size + 1}\tx\n".encode(),
            f"line 2: T2: span [{size - 2}, {size + 1})",
        ),
    }
    for name, (second, expected) in cases.items():
        run = tmp_path / name
        run.mkdir()
        (run / f"{doc}.bionlp").write_bytes((first + "\n").encode() + second)
        out = tmp_path / f"scores-{name}"
        r = _evaluate("--gold", "UBERON_EXT", "--pred", str(run), "--store", str(sample_store_dir), "--out", str(out))
        assert r.returncode == 1 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
        assert f"{run / doc}.bionlp, {expected}" in r.stderr, r.stderr
        assert not out.exists()
    # the article's first five characters are not "brain": the column differs, the offsets are scored
    article = (sample_dir() / "articles" / "txt" / f"{doc}.txt").read_text(encoding="utf-8")
    assert article[:5] != "brain"
    run = tmp_path / "mismatch"
    run.mkdir()
    (run / f"{doc}.bionlp").write_text(first + "\n" + f"T2\tUBERON:0000955 0 5\t{article[:5]}\n", encoding="utf-8")
    out = tmp_path / "scores-mismatch"
    r = _evaluate("--gold", "UBERON_EXT", "--pred", str(run), "--store", str(sample_store_dir), "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("\n") == 1 and "set UBERON_EXT: 1 annotation(s) whose text column differs" in r.stderr
    summary = json.loads((out / "summary.json").read_text())["sets"]["UBERON_EXT"]
    assert (summary["text_mismatches"], summary["total"]["pred_count"]) == (1, 2)


def test_the_terminal_table_prints_the_tsv_s_numbers():
    # 20,000 gold, all matched, 3 insertions: SER = 3/20,000 = 0.00015 exactly, which the official scorer
    # writes half-up as 0.0002; P = 20,000/20,003 = 0.99985002..., R = F1's other half = 1
    s = Scores(20000.0, 3, 0, 20000, 20003, Decimal(20000))
    report = SetReport("GO_MF", (("1", s),), s, ())
    row = format_table([report]).splitlines()[1].split()
    assert row == ["GO_MF", "1", "20000", "20003", "20000.00", "0.0002", "0.9999", "1.0000", "0.9999"]
    # the TOTAL row of the TSV has the same rates in its last four columns
    assert official_row("TOTAL", s).split("\t")[-4:] == row[-4:]
