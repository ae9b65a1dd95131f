"""``craftrdf reproduce --quick`` on the bundled sample, checked against the sample's raw Knowtator files."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest

from craftrdf.apps.cli import main
from craftrdf.apps.demo import sample_dir
from craftrdf.apps.reproduce.published import load_published
from craftrdf.querying import webanno


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
def run(tmp_path_factory) -> tuple[Path, Counter[str]]:
    """The report's directory, and how many times each set was read whole (``fetch_annotations``)."""
    out = tmp_path_factory.mktemp("reproduce")
    reads: Counter[str] = Counter()
    set_rows = webanno.set_rows

    def counted(store: object, set_key: str, **kwargs: object) -> object:
        reads[set_key] += 1
        return set_rows(store, set_key, **kwargs)  # type: ignore[arg-type]

    with pytest.MonkeyPatch.context() as mp:  # fetch_annotations reads a whole set through webanno.set_rows
        mp.setattr(webanno, "set_rows", counted)
        assert main(["-q", "reproduce", "--craft", str(sample_dir()), "--out", str(out), "--quick"]) == 0
    return out, reads


@pytest.fixture(scope="module")
def report(run) -> Path:
    return run[0]


def test_each_set_is_read_once_for_every_section(run):
    # counts, sweeps, training and the similarity section share one read of each set's annotations
    reads = run[1]
    assert {"CL", "UBERON", "UBERON_EXT", "SO_EXT"} <= set(reads)
    assert {k: n for k, n in reads.items() if n != 1} == {}


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


def _ours(text: str, start: str, table: int) -> list[int]:
    """craftrdf's figures (the middle of "paper / craftrdf / diff") of a section-2 row of Table 3 or 4."""
    line = [x for x in text.splitlines() if x.startswith(start)][table - 3]
    return [int(float(c.split(" / ")[1].replace(",", ""))) for c in line.strip("|").split("|")[2:]]


def test_uberon_statistics_with_nesting_kept_are_the_raw_counts(report):
    craft = sample_dir()
    split = _splits(craft)
    raw = [(d, c) for d, c, _ in _raw(craft, "UBERON", "UBERON") if split[d] != "test"]
    per_doc = {d: sum(1 for x, _ in raw if x == d) for d in split if split[d] != "test"}
    text = (report / "report.md").read_text()
    total, _, _, most = _ours(text, "| UBERON_core+nested | UBERON, `--nesting all` |", 3)
    assert (total, most) == (len(raw), max(per_doc.values()))
    assert _ours(text, "| UBERON_core+nested | UBERON, `--nesting all` |", 4)[0] == len({c for _, c in raw})


def _nested(craft: Path, module: str, folder: str, documents: set[str], *, any_set: bool) -> list[tuple[str, bool]]:
    """(class, nested) of each of a set's annotations on ``documents``: nested when an annotation of the same
    set (or of any set in ``craft``) strictly covers it. Read from the Knowtator files (both formats) by
    character positions, independently of the store.
    """
    chars: dict[str, list[frozenset[int]]] = {}
    mine: list[tuple[str, str, frozenset[int]]] = []
    for f in sorted((craft / "concept-annotation").glob("*/*/knowtator*/*.xml")):
        doc = f.name.split(".")[0]
        ours = f.parent.parent == craft / "concept-annotation" / module / folder
        root = ET.parse(f).getroot()
        classes = {m.get("id"): m.find("mentionClass").get("id") for m in root.iter("classMention")}
        for a in root.iter("annotation"):
            covered = frozenset(c for sp in a.iter("span") for c in range(int(sp.get("start")), int(sp.get("end"))))
            if any_set or ours:
                chars.setdefault(doc, []).append(covered)
            if ours and doc in documents:
                mine.append((doc, classes[a.find("mention").get("id")], covered))
    return [(c, any(covered < other for other in chars[d])) for d, c, covered in mine]


def test_the_core_rows_drop_the_papers_nesting_and_the_cross_set_nesting_is_counted(report):
    craft = sample_dir()
    split = _splits(craft)
    public = {d for d, s in split.items() if s != "test"}
    text = (report / "report.md").read_text()
    for key, folder, paper in (
        ("UBERON", "UBERON", "UBERON_core"),
        ("UBERON_EXT", "UBERON+extensions", "UBERON_core+extensions"),
    ):
        same = _nested(craft, "UBERON", folder, public, any_set=False)
        across = sum(n for _, n in _nested(craft, "UBERON", folder, public, any_set=True))
        nested = sum(n for _, n in same)
        assert _ours(text, f"| {paper} | {key}, `--nesting outermost` |", 3)[0] == len(same) - nested
        assert _ours(text, f"| {paper} | {key}, `--nesting outermost` |", 4)[0] == len({c for c, n in same if not n})
        section = text.split("Where the numbers differ")[1]  # the nesting table, after the statistics
        row = [c.strip() for c in next(x for x in section.splitlines() if x.startswith(f"| {key} | ")).split("|")[1:-1]]
        assert [int(row[i].replace(",", "")) for i in (1, 3, 5)] == [len(same), nested, across]
        # nesting across sets is real in the sample: some annotations lie within a CL or GO one
        assert across > nested


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


def test_section_4_has_a_trained_matcher_column_learned_on_train_and_dev_only(report):
    import json

    split = _splits(sample_dir())
    public = sorted(d for d, s in split.items() if s != "test")
    section = (report / "report.md").read_text().split("## 4.")[1].split("## 5.")[0]
    header = next(x for x in section.splitlines() if x.startswith("| set | CRAFT-ST 2019 best"))
    cells = [c.strip() for c in header.strip("|").split("|")]
    col = cells.index("trained")
    row = [c.strip() for c in next(x for x in section.splitlines() if x.startswith("| CL |")).strip("|").split("|")]
    trained_ser = float(row[col].strip("*"))
    detail = next(x for x in section.split("### The trained matcher")[1].splitlines() if x.startswith("| CL |"))
    assert f"| {trained_ser:.3f} |" in detail
    meta = json.loads((report / "models" / "CL" / "model.json").read_text())
    assert meta["trained_on"]["documents"] == public
    assert meta["selection"]["quick"] is True
