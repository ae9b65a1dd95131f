"""The command line: the demo, one-line errors with exit status 1, load and query on a disk store."""

from __future__ import annotations

import csv
import io
import logging
import re
import subprocess
import sys
from pathlib import Path

from craftrdf.apps.demo import sample_dir
from tests.helpers.corpus import DATA


def craftrdf(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "craftrdf", "-q", *args], capture_output=True, text=True, timeout=300)


def test_demo_reports_the_sample(tmp_path):
    r = craftrdf("demo", "--out", str(tmp_path))  # its export goes there, not into a new temporary folder
    assert r.returncode == 0, r.stderr
    # the brain count printed equals the UBERON:0000955 mentionClass count in the sample's UBERON sets
    ca = sample_dir() / "concept-annotation"
    raw = sum(
        p.read_text().count('mentionClass id="UBERON:0000955"')
        for p in list((ca / "UBERON/UBERON/knowtator").glob("*.xml"))
        + list((ca / "UBERON/UBERON+extensions/knowtator").glob("*.xml"))
    )
    m = re.search(r"cls=UBERON:0000955\): (\d+)", r.stdout)
    assert m and int(m.group(1)) >= raw > 0
    assert "annotation-counts" in r.stdout and "PR_EXT" in r.stdout


def test_errors_are_one_line_and_exit_1(tmp_path):
    r = craftrdf("query", "annotation-counts", "--store", str(tmp_path / "absent"))
    assert r.returncode == 1
    assert r.stderr.strip().count("\n") == 0 and "no craftrdf store here" in r.stderr
    r = craftrdf("query", "no-such-query", "--store", str(tmp_path))
    assert r.returncode == 1 and "no query named" in r.stderr
    r = craftrdf("build", "--craft", str(tmp_path), "--store", str(tmp_path / "s"))
    assert r.returncode == 1 and "not a CRAFT directory" in r.stderr


def test_paths_and_counts_that_cannot_work_are_one_line_errors(tmp_path):
    a_file = tmp_path / "a_file"
    a_file.write_text("keep me")
    sample = str(sample_dir())
    r = craftrdf("reproduce", "--craft", sample, "--out", str(a_file), "--quick")
    assert r.returncode == 1 and r.stderr.count("\n") == 1 and "is not a directory" in r.stderr
    assert a_file.read_text() == "keep me"
    for args in (
        ["reproduce", "--craft", sample, "--out", str(tmp_path / "r"), "--quick", "--workers", "0"],
        ["sweep", "--store", str(tmp_path), "--set", "CL", "--out", str(tmp_path / "s"), "--workers", "-2"],
    ):
        r = craftrdf(*args)
        assert r.returncode == 1 and r.stderr.count("\n") == 1 and "--workers needs a positive number" in r.stderr
    assert not (tmp_path / "r").exists() and not (tmp_path / "s").exists()
    r = craftrdf("query", "sets", "--endpoint", "http://127.0.0.1:9/query", "--timeout", "0")
    assert r.returncode == 1 and "--timeout needs a positive number" in r.stderr
    # an output path below a file: the operating system's refusal, as one line naming the path
    store = tmp_path / "st"
    assert craftrdf("build", "--craft", sample, "--store", str(store)).returncode == 0
    r = craftrdf(
        "sweep",
        "--store",
        str(store),
        "--set",
        "MOP",
        "--grid",
        "quick",
        "--workers",
        "1",
        "--out",
        str(a_file / "sweep"),
    )
    assert r.returncode == 1 and r.stderr.count("\n") == 1 and str(a_file / "sweep") in r.stderr, r.stderr


def test_build_then_query_with_a_bound_parameter(tmp_path):
    store = str(tmp_path / "s")
    r = craftrdf("build", "--craft", str(sample_dir()), "--store", store, "--sets", "UBERON,UBERON_EXT")
    assert r.returncode == 0, r.stderr
    r = craftrdf("query", "annotation-counts", "--store", store, "--param", "set=UBERON", "--format", "csv")
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    raw = sum(
        p.read_text().count("<annotation>")
        for p in (sample_dir() / "concept-annotation/UBERON/UBERON/knowtator").glob("*.xml")
    )
    assert {row["set"] for row in rows} == {"UBERON"}
    assert sum(int(row["annotations"]) for row in rows) == raw


def test_query_list_shows_the_queries_for_users(tmp_path):
    import craftrdf as package
    from craftrdf.querying.library import library

    r = craftrdf("query", "--list")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    listed = [line.split()[0] for line in lines[:-1]]
    # the library files whose header does not say "# Internal:", read here without craftrdf's parser
    queries = Path(package.__file__).parent / "querying" / "queries"
    for_users = sorted(p.stem for p in queries.glob("*.rq") if "\n# Internal:" not in p.read_text())
    assert listed == for_users and "annotation-counts" in listed and "viewer-document" not in listed
    internal = len(list(queries.glob("*.rq"))) - len(for_users)
    assert lines[-1].startswith(f"({internal} internal queries") and "--list --all" in lines[-1]
    row = next(line for line in lines if line.startswith("annotation-counts "))
    assert row.endswith("[set, split]") and "per annotation set and split" in row
    r = craftrdf("query", "--list", "--all")
    assert r.returncode == 0 and len(r.stdout.splitlines()) == len(library())
    assert re.search(r"^viewer-document +\(internal\) ", r.stdout, re.MULTILINE)


def test_query_names_and_set_keys_that_do_not_exist_are_one_line(sample_store_dir):
    store = str(sample_store_dir)
    r = craftrdf("query", "annotation-count", "--store", store)
    assert r.returncode == 1 and r.stderr.count("\n") == 1 and r.stdout == ""
    assert "did you mean annotation-counts" in r.stderr and "craftrdf query --list" in r.stderr
    assert "viewer-document" not in r.stderr
    # the sample's sets, from its concept-annotation folders: UBERON/UBERON+extensions is UBERON_EXT
    r = craftrdf("query", "annotation-counts", "--store", store, "--param", "set=UBERN_EXT")
    assert r.returncode == 1 and r.stderr.count("\n") == 1 and r.stdout == ""
    assert "no annotation set 'UBERN_EXT'" in r.stderr and "UBERON_EXT" in r.stderr and "CL_EXT" in r.stderr
    r = craftrdf("query", "annotation-counts", "--store", store, "--param", "set=uberon_ext", "--format", "csv")
    assert r.returncode == 0, r.stderr
    assert {row["set"] for row in csv.DictReader(io.StringIO(r.stdout))} == {"UBERON_EXT"}
    for args in (["query"], ["query", "annotation-counts"], ["query", "--all", "sets", "--store", store]):
        r = craftrdf(*args)
        assert r.returncode == 1 and r.stderr.count("\n") == 1, (args, r.stderr)


def test_load_ontology_and_bionlp_set(tmp_path):
    store = str(tmp_path / "s")
    obo = DATA / "obo" / "valid.obo"
    ann = tmp_path / "mine"
    ann.mkdir()
    (ann / "doc1.bionlp").write_text("T1\tCL:0000540 0 6\tneuron\nT2\tCL:0000540 10 14;20 25\tbrain ... cells\n")
    r = craftrdf("load", str(obo), str(ann), "--store", store, "--set", "MINE")
    assert r.returncode == 0, r.stderr
    r = craftrdf("query", "annotation-counts", "--store", store, "--format", "csv")
    assert list(csv.DictReader(io.StringIO(r.stdout))) == [
        {"set": "MINE", "split": "none", "annotations": "2", "discontinuous": "1"}
    ]


def test_load_of_a_bad_file_changes_nothing(tmp_path):
    store = str(tmp_path / "s")
    good = tmp_path / "good.bionlp"
    good.write_text("T1\tCL:0000540 0 6\tneuron\n")
    assert craftrdf("load", str(good), "--store", store, "--set", "A").returncode == 0
    bad = tmp_path / "bad.bionlp"
    bad.write_text("T1\tCL:0000540 0 6\tneuron\nT2\tCL:0000540 9 x\toops\n")
    r = craftrdf("load", str(good), str(bad), "--store", store, "--set", "B")
    assert r.returncode == 1 and "bad.bionlp" in r.stderr and "line 2" in r.stderr
    r = craftrdf("query", "sets", "--store", store, "--format", "csv")
    assert [row["set"] for row in csv.DictReader(io.StringIO(r.stdout))] == ["A"]


def test_view_and_postprocess_commands(tmp_path):
    store = str(tmp_path / "s")
    assert (
        craftrdf("build", "--craft", str(sample_dir()), "--store", store, "--sets", "UBERON,CL,CL_EXT").returncode == 0
    )
    r = craftrdf("view", "--store", store, "--sets", "uberon,CL", "--nesting", "nested", "--format", "count")
    assert r.returncode == 0, r.stderr
    counts = dict(line.split("\t") for line in r.stdout.split("\n") if line)
    # the sample's 11319941 has CL 'granule cell' inside UBERON 'granule cell layer of ... dentate gyrus'
    assert int(counts["CL"]) >= 1 and int(counts["TOTAL"]) == sum(int(v) for k, v in counts.items() if k != "TOTAL")
    out = tmp_path / "bionlp"
    r = craftrdf("view", "--store", store, "--sets", "CL", "--split", "test", "--format", "bionlp", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert [p.name for p in out.iterdir()] == ["11319941.bionlp"]
    raw = (
        (sample_dir() / "concept-annotation/CL/CL/knowtator/11319941.txt.knowtator.xml")
        .read_text()
        .count("<annotation>")
    )
    assert (out / "11319941.bionlp").read_text().count("\n") == raw
    r = craftrdf("postprocess", "--store", store, "--set", "CL_EXT", "--rules", "related", "--into", "CL_EXT_RELATED")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[1].split()[0] == "related"
    r = craftrdf("view", "--store", store, "--sets", "NOPE", "--format", "count")
    assert r.returncode == 1 and "no annotation set in the store matches" in r.stderr


def test_a_mistyped_store_is_one_line_for_every_command_that_does_not_make_stores(tmp_path):
    typo = tmp_path / "craft.stor"
    expected = f"craftrdf: error: {typo}: no craftrdf store here; build one with `craftrdf build --craft CRAFT_DIR --store {typo}`\n"
    for args in (
        ["view", "--sets", "UBERON_EXT", "--nesting", "outermost"],
        ["view", "--sets", "UBERON_EXT", "--materialize", "MINE"],
        ["postprocess", "--set", "UBERON_EXT", "--rules", "substitute", "--into", "MINE"],
        ["query", "sets"],
        ["index"],
        ["classify", "--ontology", "UBERON"],
        ["export", "--set", "UBERON", "--format", "turtle", "--out", str(tmp_path / "x.ttl")],
    ):
        r = craftrdf(*args, "--store", str(typo))
        assert (r.returncode, r.stderr) == (1, expected), args
        assert list(tmp_path.iterdir()) == [], args  # not even an empty store directory


def test_load_keeps_the_indexes_a_read_only_view_needs(tmp_path):
    # a set loaded into a built store: the view that reads it beside the others, read-only, needs
    # the nested-annotation index brought up to date by the load (one new link, by hand below)
    store = str(tmp_path / "s")
    assert craftrdf("build", "--craft", str(sample_dir()), "--store", store, "--sets", "CL").returncode == 0
    pmid = "11319941"
    text = (sample_dir() / "articles/txt" / f"{pmid}.txt").read_text(encoding="utf-8")
    first = re.search(
        r'<span start="(\d+)" end="(\d+)"',
        (sample_dir() / f"concept-annotation/CL/CL/knowtator/{pmid}.txt.knowtator.xml").read_text(),
    )
    assert first is not None
    start, end = int(first.group(1)), int(first.group(2))
    mine = tmp_path / f"{pmid}.bionlp"  # one annotation one character longer than CL's first one
    mine.write_text(f"T1\tCL:0000540 {start} {end + 1}\t{text[start : end + 1]}\n", encoding="utf-8")
    r = craftrdf("-v", "load", str(mine), "--store", store, "--set", "MINE")
    assert r.returncode == 0, r.stderr
    assert "nested-annotation index: 1 links" in r.stderr  # made again by the load, with the one new link
    r = craftrdf("view", "--store", store, "--sets", "CL,MINE", "--nesting", "nested", "--format", "csv")
    assert r.returncode == 0 and r.stderr == "", r.stderr
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert [(row["set"], row["document"]) for row in rows] == [("CL", pmid)]
    r = craftrdf("index", "--store", store)
    assert (r.returncode, r.stdout) == (0, f"{store}: view indexes already current\n")


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _steps(progress, total: int) -> None:
    for i in range(total + 1):
        progress(i, total, f"step {i}")


def test_progress_off_a_terminal_is_a_start_and_an_end_line(caplog):
    from craftrdf.apps.cli._common import PROGRESS_LOGGER, progress_bar

    caplog.set_level(logging.INFO, logger=PROGRESS_LOGGER)
    out = io.StringIO()  # not a terminal: nothing is drawn on it, two records are logged
    ticks = iter([10.0, 12.5])
    _steps(progress_bar(False, name="build", stream=out, clock=lambda: next(ticks)), 300)
    assert out.getvalue() == "" and caplog.messages == [
        "build: started, 300 batches",
        "build: finished, 300 batches in 2.5 s",
    ]
    caplog.clear()  # a resumed sweep starts part-way; without a name the first label names the stage
    progress = progress_bar(False, unit="configuration", stream=out, clock=lambda: 0.0)
    for done in (3, 4, 5):
        progress(done, 5, "CL")
    assert caplog.messages == [
        "CL: started, 5 configurations (3 already done)",
        "CL: finished, 5 configurations in 0.0 s",
    ]
    caplog.clear()
    _steps(progress_bar(True, name="build", stream=out), 3)  # -q: nothing
    assert out.getvalue() == "" and caplog.messages == []


def test_progress_on_a_terminal_is_a_bar():
    from craftrdf.apps.cli._common import progress_bar

    out = _Terminal()
    _steps(progress_bar(False, name="build", stream=out), 50)
    assert "\r" in out.getvalue() and "50/50" in out.getvalue() and "started" not in out.getvalue()


def test_demo_with_stderr_in_a_file_writes_a_few_readable_lines(tmp_path):
    log = tmp_path / "log"
    with open(log, "w") as err:  # `craftrdf demo 2> log`, without -q
        r = subprocess.run(
            [sys.executable, "-m", "craftrdf", "demo", "--out", str(tmp_path)],
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
            timeout=300,
            check=False,
        )
    assert r.returncode == 0
    text = log.read_text()
    lines = text.splitlines()
    assert "\r" not in text and len(lines) <= 6, text
    assert re.fullmatch(r"INFO: build the sample: started, \d+ batches", lines[0]), text
    assert re.fullmatch(r"INFO: build the sample: finished, \d+ batches in [\d.]+ s", lines[1]), text
