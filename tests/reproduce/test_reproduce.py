"""``craftrdf reproduce --quick`` on the bundled sample, checked against the sample's raw Knowtator files."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from craftrdf.cli import main
from craftrdf.demo import sample_dir
from craftrdf.reproduce import load_published


def _splits(craft: Path) -> dict[str, str]:
    out = {}
    for split in ("train", "dev", "test"):
        for pmid in (craft / "articles" / "ids" / f"craft-ids-{split}.txt").read_text().split():
            out[pmid] = split
    return out


def _raw(craft: Path, module: str, folder: str) -> list[tuple[str, str, int]]:
    """(document, class, number of spans) of every annotation in a set's Knowtator files."""
    out = []
    for f in sorted((craft / "concept-annotation" / module / folder / "knowtator").glob("*.knowtator.xml")):
        root = ET.parse(f).getroot()
        classes = {m.get("id"): m.find("mentionClass").get("id") for m in root.iter("classMention")}
        for a in root.iter("annotation"):
            mention = a.find("mention").get("id")
            out.append((f.name.split(".")[0], classes[mention], len(a.findall("span"))))
    return out


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("reproduce")
    assert main(["-q", "reproduce", "--craft", str(sample_dir()), "--out", str(out), "--quick"]) == 0
    return out


def test_writes_the_report_and_its_figures(report):
    for name in (
        "report.md",
        "ser.png",
        "similarity.png",
        "sweeps/UBERON/pr.png",
        "sweeps/UBERON_EXT/pr.png",
        "sweeps/UBERON/results.csv",
        "sweeps/CL/best.md",
    ):
        p = report / name
        assert p.is_file() and p.stat().st_size > 0, name
        if name.endswith(".png"):
            assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
    text = (report / "report.md").read_text()
    for heading in ("## 1.", "## 2.", "## 3.", "## 4.", "## 5."):
        assert heading in text


def test_counts_match_the_raw_files_beside_the_published_table(report):
    craft = sample_dir()
    split = _splits(craft)
    text = (report / "report.md").read_text()
    published = load_published().counts
    for key, module, folder in (("CL", "CL", "CL"), ("UBERON_EXT", "UBERON", "UBERON+extensions")):
        raw = _raw(craft, module, folder)
        td = sum(1 for d, _, _ in raw if split[d] != "test")
        te = sum(1 for d, _, _ in raw if split[d] == "test")
        te_disc = sum(1 for d, _, n in raw if split[d] == "test" and n > 1)
        pub = published[key]
        row = next(line for line in text.splitlines() if line.startswith(f"| {key} |"))
        cells = [c.strip() for c in row.strip("|").split("|")][1:]
        assert cells[0] == f"{pub[0]:,} / {td:,} / {td - pub[0]:+,}"
        assert cells[2] == f"{pub[2]:,} / {te:,} / {te - pub[2]:+,}"
        assert cells[3] == f"{pub[3]:,} / {te_disc:,} / {te_disc - pub[3]:+,}"


def test_uberon_statistics_with_nesting_kept_are_the_raw_counts(report):
    craft = sample_dir()
    split = _splits(craft)
    raw = [(d, c) for d, c, _ in _raw(craft, "UBERON", "UBERON") if split[d] != "test"]
    per_doc = {d: sum(1 for x, _ in raw if x == d) for d in split if split[d] != "test"}
    text = (report / "report.md").read_text()
    row = next(line for line in text.splitlines() if line.startswith("| UBERON | core+nested | craftrdf |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert int(cells[3].replace(",", "")) == len(raw)
    assert int(cells[6].replace(",", "")) == max(per_doc.values())
    assert int(cells[7].replace(",", "")) == len({c for _, c in raw})


def _outermost(craft: Path, module: str, folder: str, documents: set[str]) -> list[tuple[str, str]]:
    """(document, class) of a set's annotations that no annotation of any set in ``craft`` strictly covers.

    Read from every Knowtator file (both formats) by character positions, independently of the store.
    """
    chars: dict[str, list[frozenset[int]]] = {}
    mine: list[tuple[str, str, frozenset[int]]] = []
    for f in sorted((craft / "concept-annotation").glob("*/*/knowtator*/*.xml")):
        doc = f.name.split(".")[0]
        root = ET.parse(f).getroot()
        classes = {m.get("id"): m.find("mentionClass").get("id") for m in root.iter("classMention")}
        for a in root.iter("annotation"):
            covered = frozenset(c for sp in a.iter("span") for c in range(int(sp.get("start")), int(sp.get("end"))))
            chars.setdefault(doc, []).append(covered)
            if f.parent.parent == craft / "concept-annotation" / module / folder and doc in documents:
                mine.append((doc, classes[a.find("mention").get("id")], covered))
    return [(d, c) for d, c, covered in mine if not any(covered < other for other in chars[d])]


def test_uberon_statistics_of_outermost_annotations_are_the_raw_counts(report):
    craft = sample_dir()
    split = _splits(craft)
    public = {d for d, s in split.items() if s != "test"}
    kept = _outermost(craft, "UBERON", "UBERON", public)
    text = (report / "report.md").read_text()
    row = next(line for line in text.splitlines() if line.startswith("| UBERON | core | craftrdf |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert int(cells[3].replace(",", "")) == len(kept)
    assert int(cells[7].replace(",", "")) == len({c for _, c in kept})
    # nesting across sets is real in the sample: some UBERON annotations are dropped
    assert len(kept) < sum(1 for d, _, _ in _raw(craft, "UBERON", "UBERON") if d in public)


def test_sweep_counts_add_up_to_the_gold_annotations(report):
    craft = sample_dir()
    split = _splits(craft)
    gold = {(d, c) for d, c, _ in _raw(craft, "UBERON", "UBERON") if split[d] != "test"}
    text = (report / "report.md").read_text()
    row = next(line for line in text.splitlines() if line.startswith("| UBERON | best-F1 TP / FP / FN |"))
    ours = [c.strip() for c in row.strip("|").split("|")][3]
    tp, _fp, fn = (int(x) for x in re.findall(r"\d+", ours.replace(",", "")))
    raw_count = sum(1 for d, _, _ in _raw(craft, "UBERON", "UBERON") if split[d] != "test")
    assert tp + fn == raw_count and len(gold) <= raw_count


def test_quick_runs_the_default_configuration_alone_on_the_other_sets(report):
    craft = sample_dir()
    split = _splits(craft)
    raw = _raw(craft, "CL", "CL")
    for name, docs in (("results.csv", {"train", "dev"}), ("report.csv", {"test"})):
        header, *rows = (report / "sweeps" / "CL" / name).read_text().splitlines()
        assert len(rows) == 1  # the default configuration only
        row = dict(zip(header.split(","), rows[0].split(",")))
        assert int(row["tp"]) + int(row["fn"]) == sum(1 for d, _, _ in raw if split[d] in docs)
        assert (row["caseMatch"], row["stemmer"], row["synonyms"]) == ("CASE_INSENSITIVE", "PORTER", "EXACT_ONLY")
    section = (report / "report.md").read_text().split("## 4.")[1]
    line = next(x for x in section.splitlines() if x.startswith("| CL |"))
    assert f"| {float(row['ser']):.3f} |" in line
    assert not (report / "sweeps" / "CL" / "pr.png").exists()  # one point is not a precision-recall figure


def test_a_directory_that_is_not_craft_is_refused_before_anything_is_created(tmp_path, capsys):
    not_craft = tmp_path / "empty"
    not_craft.mkdir()
    out, store = tmp_path / "out", tmp_path / "s.store"
    assert main(["-q", "reproduce", "--craft", str(not_craft), "--out", str(out), "--quick"]) == 1
    assert main(["-q", "build", "--craft", str(not_craft), "--store", str(store)]) == 1
    assert capsys.readouterr().err.count("not a CRAFT directory") == 2
    assert not out.exists() and not store.exists()
