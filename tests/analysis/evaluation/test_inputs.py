"""Reading the sides of an evaluation: the two directory layouts, and holding them against the article texts."""

from __future__ import annotations

import json
import re

import pytest

from craftrdf.analysis.evaluation.inputs import check_against_texts, load_directory, set_keys
from craftrdf.analysis.evaluation.run import evaluate_sets, write_report
from craftrdf.core.errors import ConfigError, DataWarning, InputError, ValidationError
from craftrdf.core.model import Annotation, Span
from tests.helpers.scoring import exact_scorers

# a 26-character article: "granule" is [0, 7), "cell" [8, 12), "layer" [13, 18), "neurons" [19, 26)
ARTICLE = "granule cell layer neurons"
TEXTS = {"111": ARTICLE}


def write(folder, pmid, lines):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{pmid}.bionlp").write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def test_a_folder_of_bionlp_files_is_one_set_named_after_it(tmp_path):
    write(tmp_path / "run", "111", ["T1\tCL:1 0 7\tgranule"])
    write(tmp_path / "run", "222", [])
    side = load_directory(tmp_path / "run")
    assert list(side) == ["RUN"]
    assert {d: [a.spans for a in anns] for d, anns in side["RUN"].items()} == {"111": [(Span(0, 7),)], "222": []}
    # a folder named after a set key is that set, as a Shared Task subdirectory would be
    write(tmp_path / "GO_mf", "111", [])
    assert list(load_directory(tmp_path / "GO_mf")) == ["GO_MF"]


def test_both_layouts_in_one_folder_or_neither_is_an_input_error(tmp_path):
    write(tmp_path / "run", "111", [])
    write(tmp_path / "run" / "CL", "111", [])
    with pytest.raises(InputError, match=re.escape("both .bionlp files and set subdirectories of them (CL)")):
        load_directory(tmp_path / "run")
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match=re.escape("no .bionlp files")):
        load_directory(tmp_path / "empty")


def test_set_keys_of_a_folder_of_files_are_none(tmp_path):
    write(tmp_path / "run", "111", [])
    write(tmp_path / "st" / "cl_ext", "111", [])
    assert set_keys(str(tmp_path / "run"), ["CL"]) == []
    assert set_keys(str(tmp_path / "st"), ["CL_EXT"]) == ["cl_ext"]
    assert set_keys("cl*", ["CL", "CL_EXT", "GO_BP"]) == ["CL", "CL_EXT"]


def test_offsets_past_the_article_name_the_file_and_line(tmp_path):
    write(tmp_path / "run", "111", ["T1\tCL:1 0 7\tgranule", "T2\tCL:1 19 27\tneurons?"])
    write(tmp_path / "run", "999", ["T1\tCL:1 500 501\tx"])  # no text known: not bounded here
    with pytest.raises(ValidationError) as info:
        load_directory(tmp_path / "run", texts=TEXTS)
    assert (info.value.source, info.value.line) == (str(tmp_path / "run" / "111.bionlp"), 2)
    assert "[19, 27)" in info.value.message and "26 characters" in info.value.message


def test_a_differing_text_column_is_counted_and_warned_once_per_set():
    def ann(i, spans, text):
        return Annotation(f"T{i}", "111", "CL:1", tuple(Span(*s) for s in spans), text)

    side = {
        "CL": {
            "111": [
                ann(1, [(0, 7)], "granule"),  # right
                ann(2, [(0, 7), (13, 18)], "granule ... layer"),  # CRAFT's join of pieces
                ann(3, [(0, 7), (13, 18)], "granule layer"),  # plain brat's join
                ann(4, [(8, 12)], "cells"),  # wrong
                ann(5, [(19, 26)], None),  # no column: nothing to compare
                ann(6, [(19, 26)], "neuron"),  # wrong
            ],
            "999": [ann(7, [(0, 1)], "not in TEXTS")],
        },
        "SO": {"111": [ann(1, [(0, 7)], "granule")]},
    }
    with pytest.warns(DataWarning) as caught:
        assert check_against_texts(side, TEXTS) == {"CL": 2, "SO": 0}
    (message,) = [str(w.message) for w in caught]
    assert message.startswith("set CL: 2 annotation(s)") and "111 T4" in message and "'cells'" in message
    side["SO"]["111"].append(ann(2, [(20, 30)], "x"))
    with pytest.raises(ValidationError) as info, pytest.warns(DataWarning):
        check_against_texts(side, TEXTS)
    assert (info.value.source, info.value.element) == ("SO/111", "annotation T2")


def test_the_count_reaches_the_report_and_summary(tmp_path):
    gold = {"CL": {"111": [Annotation("T1", "111", "CL:1", (Span(8, 12),), "cell")]}}
    pred = {"CL": {"111": [Annotation("T1", "111", "CL:1", (Span(8, 12),), "cells")]}}
    with pytest.warns(DataWarning, match="set CL: 1 annotation"):
        (report,) = evaluate_sets(gold, pred, exact_scorers(gold, pred), criteria=["exact"], articles=TEXTS)
    # scored by the offsets, as the official scorer does: an exact match
    assert (report.text_mismatches, report.total.matches, report.total.ser) == (1, 1, 0.0)
    write_report([report], tmp_path)
    assert json.loads((tmp_path / "summary.json").read_text())["sets"]["CL"]["text_mismatches"] == 1
    (unchecked,) = evaluate_sets(gold, pred, exact_scorers(gold, pred), criteria=["exact"])
    assert unchecked.text_mismatches == 0


def test_the_craft_directory_alone_needs_a_side_that_names_its_set(tmp_path):
    from craftrdf.analysis.evaluation.run import evaluate_craft
    from craftrdf.apps.demo import sample_dir
    from craftrdf.core.registry import load_registry

    write(tmp_path / "gold", "11319941", [])
    write(tmp_path / "pred", "11319941", [])
    with pytest.raises(ConfigError, match="--gold UBERON_EXT"):
        evaluate_craft(sample_dir(), str(tmp_path / "gold"), str(tmp_path / "pred"), load_registry())
