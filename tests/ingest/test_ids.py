"""Files of document ids (``--ids FILE``): read strictly; ``craftrdf evaluate --ids`` scores only those documents."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from craftrdf.apps.cli import main
from craftrdf.apps.demo import sample_dir
from craftrdf.core.errors import InputError
from craftrdf.ingest.ids import read_ids
from tests.matching.training.test_train import split_ids


def test_ids_file_comments_blank_lines_and_order(tmp_path):
    p = tmp_path / "ids.txt"
    p.write_text("# mine\n  b \n\na\n", encoding="utf-8")
    assert read_ids(p, {"a", "b", "c"}) == ["b", "a"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("a\nz\n", "line 2: unknown document 'z'"),
        ("a\nb\na\n", "line 3: document a is listed twice (first on line 1)"),
        ("# nothing\n\n", "no document id in the file"),
    ],
)
def test_bad_ids_file_is_refused_naming_file_and_line(tmp_path, body, message):
    p = tmp_path / "ids.txt"
    p.write_text(body, encoding="utf-8")
    with pytest.raises(InputError, match=re.escape(message)) as err:
        read_ids(p, {"a", "b"})
    assert str(p) in str(err.value)


def test_cli_evaluate_scores_only_the_listed_documents(sample_store_dir, tmp_path, capsys):
    store = str(sample_store_dir)
    run = tmp_path / "run"
    assert main(["annotate", "--store", store, "--set", "CL", str(sample_dir()), "--out", str(run)]) == 0
    assert len(list(run.glob("*.bionlp"))) == 3
    (dev,) = split_ids("dev")
    ids = tmp_path / "ids.txt"
    ids.write_text(f"{dev}\n", encoding="utf-8")
    out = tmp_path / "scores"
    assert (
        main(["evaluate", "--gold", "CL", "--pred", str(run), "--store", store, "--ids", str(ids), "--out", str(out)])
        == 0
    )
    rows = [line.split("\t")[0] for line in (out / "CL_results.tsv").read_text().splitlines()]
    assert [r for r in rows if not r.startswith("#")] == [dev, "TOTAL"]
    # the reference count is the dev article's CL annotations, counted in its Knowtator file
    xml = sample_dir() / "concept-annotation/CL/CL/knowtator" / f"{dev}.txt.knowtator.xml"
    n = sum(1 for _ in ET.parse(xml).getroot().iter("annotation"))
    table = capsys.readouterr().out.splitlines()
    (cl,) = [line.split() for line in table if line.startswith("CL ")]
    assert cl[1:3] == ["1", str(n)]
    bad = tmp_path / "bad.txt"
    bad.write_text(f"{dev}\n99999999\n", encoding="utf-8")
    args = [
        "evaluate",
        "--gold",
        "CL",
        "--pred",
        str(run),
        "--store",
        store,
        "--ids",
        str(bad),
        "--out",
        str(tmp_path / "x"),
    ]
    assert main(args) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"{bad}, line 2: unknown document '99999999'" in err[0]
    assert not (tmp_path / "x").exists()
