"""Training on the bundled sample: the model folder, no test document in it, the CLI, bad input."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import craftrdf
from craftrdf.apps.cli import main
from craftrdf.apps.demo import sample_dir
from craftrdf.core.context import RunContext
from craftrdf.core.errors import ConfigError, InputError
from craftrdf.matching.training.features import FEATURES, Window
from craftrdf.matching.training.folder import read_model
from craftrdf.matching.training.learn import Learned
from craftrdf.matching.training.train import TrainOptions, annotate_with_model, train_set
from tests.helpers.sample import article_text

IDS = sample_dir() / "articles" / "ids"


def split_ids(*splits: str) -> list[str]:
    """The sample's document ids of the splits, read from CRAFT's own id files."""
    return sorted(
        line.strip() for s in splits for line in (IDS / f"craft-ids-{s}.txt").read_text().split() if line.strip()
    )


def word_at(text: str, word: str) -> tuple[int, int]:
    m = re.search(rf"\b{re.escape(word)}\b", text)
    assert m is not None, word
    return m.span()


@pytest.fixture(scope="module")
def planted(sample_store, tmp_path_factory):
    """A set PLANT: a word only the test article has, annotated PLANT:9 there; "cells" in the train
    article, annotated PLANT:1."""
    (test_doc,) = split_ids("test")
    (train_doc,) = split_ids("train")
    folder = tmp_path_factory.mktemp("plant")
    test_text, train_text = article_text(test_doc), article_text(train_doc)
    # a word in the test article that the train and dev articles never contain
    others = " ".join(article_text(d) for d in split_ids("train", "dev")).lower()
    test_word = next(w for w in re.findall(r"\b[a-z]{7,}\b", test_text) if w not in others)
    s, e = word_at(test_text, test_word)
    (folder / f"{test_doc}.bionlp").write_text(f"T1\tPLANT:9 {s} {e}\t{test_word}\n", encoding="utf-8")
    s, e = word_at(train_text, "cells")
    (folder / f"{train_doc}.bionlp").write_text(f"T1\tPLANT:1 {s} {e}\tcells\n", encoding="utf-8")
    craftrdf.load(sample_store, [folder / f"{test_doc}.bionlp", folder / f"{train_doc}.bionlp"], set_key="PLANT")
    return test_doc, test_word


def test_no_test_document_reaches_the_model(sample_store, planted, tmp_path):
    test_doc, test_word = planted
    report, model = train_set(sample_store, "PLANT", RunContext.create(), on="train,dev", out=tmp_path / "m")
    assert model.documents == tuple(split_ids("train", "dev"))
    assert test_doc not in model.documents
    meta = json.loads((tmp_path / "m" / "model.json").read_text())
    assert meta["trained_on"] == {"splits": ["train", "dev"], "documents": split_ids("train", "dev")}
    written = (tmp_path / "m" / "names.tsv").read_text() + (tmp_path / "m" / "terms.tsv").read_text()
    assert "PLANT:9" not in written and test_word not in written
    assert "PLANT:1" in written
    _, predictions = annotate_with_model(
        sample_store, "PLANT", tmp_path / "m", {test_doc: article_text(test_doc)}, RunContext.create()
    )
    assert all(a.class_id != "PLANT:9" for a in predictions[test_doc])
    assert report.exact_only  # PLANT has no ontology: exact classes only


def test_model_folder_is_read_back_as_written(sample_store, tmp_path):
    report, model = train_set(
        sample_store, "PR", RunContext.create(), out=tmp_path / "pr", options=TrainOptions(quick=True)
    )
    again = read_model(tmp_path / "pr", set_key="PR")
    assert again.names == model.names and sorted(again.terms) == sorted(model.terms)
    assert again.config == report.selection.config and again.decision == report.selection.decision
    assert again.meta["scoring"].startswith("exact classes only")
    header = (tmp_path / "pr" / "names.tsv").read_text().splitlines()[0]
    assert header == "tokens\tclass\tannotations\tdocuments\twritten"


@pytest.fixture(scope="module")
def pr_model(sample_store, tmp_path_factory):
    out = tmp_path_factory.mktemp("m") / "pr"
    train_set(sample_store, "PR", RunContext.create(), out=out, options=TrainOptions(quick=True))
    return out


def _copy(src: Path, dst: Path) -> Path:
    dst.mkdir()
    for f in src.iterdir():
        (dst / f.name).write_bytes(f.read_bytes())
    return dst


def test_model_of_another_set_is_refused(sample_store, pr_model, tmp_path):
    with pytest.raises(ConfigError, match="trained for set PR, not CL"):
        annotate_with_model(sample_store, "CL", pr_model, {"x": "text"}, RunContext.create(), out_dir=tmp_path / "o")
    assert not (tmp_path / "o").exists()


def test_model_of_another_version_is_refused(pr_model, tmp_path):
    m = _copy(pr_model, tmp_path / "m")
    meta = json.loads((m / "model.json").read_text())
    meta["version"] = 99
    (m / "model.json").write_text(json.dumps(meta))
    with pytest.raises(InputError, match="version 99"):
        read_model(m)


def test_rules_written_and_a_rule_a_folder_predates_reads_as_off(pr_model, tmp_path):
    m = _copy(pr_model, tmp_path / "m")
    meta = json.loads((m / "model.json").read_text())
    assert set(meta["rules"]) == {"abbreviations", "coordination", "families", "parentheses", "modifiers"}
    for absent in ("modifiers", "parentheses"):  # rules added after version 2 first shipped
        meta["rules"][absent] = True
        (m / "model.json").write_text(json.dumps(meta))
        assert getattr(read_model(m).rules, absent) is True
        del meta["rules"][absent]
        (m / "model.json").write_text(json.dumps(meta))
        assert getattr(read_model(m).rules, absent) is False


def test_corrupt_table_is_refused(pr_model, tmp_path):
    m = _copy(pr_model, tmp_path / "m")
    (m / "terms.tsv").write_text((m / "terms.tsv").read_text() + "x\ty\tnot-a-count\t1\t0.5\tyes\n")
    with pytest.raises(InputError, match="changed since the model was written"):
        read_model(m)
    (m / "model.json").write_text("{not json")
    with pytest.raises(InputError, match=r"model\.json: unreadable"):
        read_model(m)


def test_cli_bad_input_is_one_line_and_writes_nothing(sample_store_dir, pr_model, tmp_path, capsys):
    store = str(sample_store_dir)
    out = tmp_path / "run"
    code = main(
        ["annotate", "--store", store, "--set", "CL", "--model", str(pr_model), str(sample_dir()), "--out", str(out)]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(err) == 1 and "trained for set PR, not CL" in err[0]
    assert not out.exists()
    # an unknown set: one line, no folder
    code = main(["train", "--store", store, "--set", "PLANT_NONE", "--out", str(tmp_path / "m")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(err) == 1 and "no annotation set 'PLANT_NONE'" in err[0]
    assert not (tmp_path / "m").exists()


def test_no_gold_in_the_split_writes_nothing(sample_store, tmp_path):
    folder = tmp_path / "only_test"
    folder.mkdir()
    (test_doc,) = split_ids("test")
    s, e = word_at(article_text(test_doc), "cells")
    (folder / f"{test_doc}.bionlp").write_text(f"T1\tEMPTY:1 {s} {e}\tcells\n", encoding="utf-8")
    craftrdf.load(sample_store, [folder / f"{test_doc}.bionlp"], set_key="EMPTYTRAIN")
    with pytest.raises(ConfigError, match="no gold annotations in split train,dev"):
        train_set(sample_store, "EMPTYTRAIN", RunContext.create(), out=tmp_path / "m")
    assert not (tmp_path / "m").exists()


def test_cli_train_then_annotate(sample_store_dir, tmp_path, capsys):
    store = str(sample_store_dir)
    model = tmp_path / "model"
    assert main(["train", "--store", store, "--set", "PR", "--quick", "--out", str(model), "--no-cache"]) == 0
    out = capsys.readouterr().out
    assert "trained PR on 2 documents" in out and "exact classes only" in out
    run = tmp_path / "run"
    args = ["annotate", "--store", store, "--set", "PR", "--model", str(model), str(sample_dir()), "--split", "test"]
    assert main([*args, "--out", str(run), "--no-cache"]) == 0
    assert sorted(p.name for p in run.iterdir()) == [f"{split_ids('test')[0]}.bionlp", "confidence.tsv"]
    # on a training document (whose names the model knows): one confidence per BioNLP line, by class and spans
    (doc,) = split_ids("dev")
    again = tmp_path / "again"
    assert main([*args[:-1], "dev", "--out", str(again), "--no-cache"]) == 0
    bionlp = (again / f"{doc}.bionlp").read_text().splitlines()
    written = sorted(tuple(line.split("\t")[1].split(" ", 1)) for line in bionlp)  # "T1\tPR:1 0 3;8 14\ttext"
    rows = [line.split("\t") for line in (again / "confidence.tsv").read_text().splitlines()]
    assert rows[0] == ["document", "class", "spans", "confidence"]
    assert written and sorted((c, s) for _, c, s, _ in rows[1:]) == written
    assert all(d == doc and 0.0 <= float(v) <= 1.0 for d, _, _, v in rows[1:])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=st.text(alphabet=st.sampled_from("ab \t\n:;-019x"), max_size=200))
def test_any_table_text_is_read_or_refused_with_input_error(pr_model, tmp_path_factory, body):
    # a table rewritten with its digest updated (so the content itself is what is checked)
    import hashlib

    m = tmp_path_factory.mktemp("fuzz") / "m"
    _copy(pr_model, m)
    text = "form\tclass\ttrue_positives\tfinds\n" + body
    (m / "forms.tsv").write_text(text, encoding="utf-8")
    meta = json.loads((m / "model.json").read_text())
    meta["files"]["forms.tsv"] = hashlib.sha256(text.encode("utf-8")).hexdigest()
    (m / "model.json").write_text(json.dumps(meta))
    try:
        model = read_model(m)
    except InputError as exc:
        assert "forms.tsv" in str(exc)
    else:
        assert all(r.tp <= r.n for r in model.terms)


def _rewrite(m: Path, name: str, data: bytes) -> None:
    """Replace one table and record its new digest, so the content itself is what is checked."""
    import hashlib

    (m / name).write_bytes(data)
    meta = json.loads((m / "model.json").read_text())
    meta["files"][name] = hashlib.sha256(data).hexdigest()
    (m / "model.json").write_text(json.dumps(meta))


def _version_1(m: Path) -> None:
    """A folder as the previous craftrdf wrote it: version 1, no contexts.tsv, no learned decision."""
    meta = json.loads((m / "model.json").read_text())
    meta["version"] = 1
    del meta["learned"], meta["files"]["contexts.tsv"]
    (m / "contexts.tsv").unlink()
    (m / "model.json").write_text(json.dumps(meta))


def _features_of_the_third_round(m: Path) -> None:
    """A learned decision as craftrdf wrote it before 2026-11-29's fourth round: the window's lowest and highest lift."""
    n = len(FEATURES)
    learned = Learned((0.0,) * n, (1.0,) * n, (0.0,) * n, 0.0, 0.5, 1.0, Window(25)).to_json() | {"chosen": True}
    renamed = {"window_against": "window_low", "window_for": "window_high"}
    learned["features"] = {renamed.get(k, k): v for k, v in learned["features"].items()}
    meta = json.loads((m / "model.json").read_text())
    meta["learned"] = learned
    (m / "model.json").write_text(json.dumps(meta))


def _a_weight_not_a_number(m: Path) -> None:
    """A learned decision whose one weight is JSON's NaN (Python's json writes and reads it)."""
    n = len(FEATURES)
    learned = Learned((0.0,) * n, (1.0,) * n, (0.0,) * n, 0.0, 0.5, 1.0, Window(25)).to_json() | {"chosen": True}
    learned["features"]["tokens"]["weight"] = float("nan")
    meta = json.loads((m / "model.json").read_text())
    meta["learned"] = learned
    (m / "model.json").write_text(json.dumps(meta))
    assert "NaN" in (m / "model.json").read_text()


def _files_not_a_table(m: Path) -> None:
    meta = json.loads((m / "model.json").read_text())
    meta["files"] = ["names.tsv"]
    (m / "model.json").write_text(json.dumps(meta))


#: (what is done to a copy of a good model folder, what the one line must say)
BAD_FOLDERS = {
    "the previous version": (_version_1, "model format version 1; this craftrdf reads version 2: train it again"),
    "learned features of an earlier craftrdf": (
        _features_of_the_third_round,
        "model.json: bad configuration, decision, rules or learned decision: the learned decision's features are "
        "not this craftrdf's: train again",
    ),
    "a learned weight not a number": (
        _a_weight_not_a_number,
        "model.json: bad configuration, decision, rules or learned decision: the learned decision has a number "
        "that is not finite, or a scale of 0: train again",
    ),
    "model.json not JSON": (lambda m: (m / "model.json").write_text("{"), "model.json: unreadable"),
    "a table edited": (
        lambda m: (m / "terms.tsv").write_text((m / "terms.tsv").read_text() + "a\tPR:1\t1\t1\t1.0\tyes\n"),
        "terms.tsv: changed since the model was written",
    ),
    "a table missing": (lambda m: (m / "forms.tsv").unlink(), "forms.tsv: cannot read"),
    "a table not UTF-8": (
        lambda m: _rewrite(m, "names.tsv", b"tokens\tclass\tannotations\tdocuments\twritten\n\xff\tPR:1\t1\t1\t\n"),
        "names.tsv: not UTF-8",
    ),
    "a count not a number": (
        lambda m: _rewrite(m, "forms.tsv", b"form\tclass\ttrue_positives\tfinds\ncells\tPR:1\tmany\t1\n"),
        "forms.tsv, line 2: not a count: 'many'",
    ),
    "digests not a table": (_files_not_a_table, "model.json: 'files' must map each table to its SHA-256"),
}


@pytest.mark.parametrize("case", sorted(BAD_FOLDERS))
def test_cli_bad_model_folder_is_one_line_and_writes_nothing(sample_store_dir, pr_model, tmp_path, capsys, case):
    spoil, message = BAD_FOLDERS[case]
    m = _copy(pr_model, tmp_path / "m")
    spoil(m)
    out = tmp_path / "run"
    args = ["annotate", "--store", str(sample_store_dir), "--set", "PR", "--model", str(m), str(sample_dir())]
    code = main([*args, "--split", "test", "--out", str(out), "--no-cache"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(err) == 1, err
    assert message in err[0] and "model.json: model.json" not in err[0]
    assert not out.exists()


def test_cli_train_with_no_gold_in_the_split_is_one_line_and_keeps_the_old_folder(
    sample_store_dir, pr_model, tmp_path, capsys
):
    # the sample's dev article (17244351) has no MOP annotation: its knowtator file holds no <annotation>
    m = _copy(pr_model, tmp_path / "m")
    before = {p.name: p.read_bytes() for p in m.iterdir()}
    args = ["train", "--store", str(sample_store_dir), "--set", "MOP", "--on", "dev", "--out", str(m), "--no-cache"]
    assert main(args) == 1
    assert capsys.readouterr().err.strip().splitlines() == [
        "craftrdf: error: set MOP has no gold annotations in split dev: nothing to learn"
    ]
    assert {p.name: p.read_bytes() for p in m.iterdir()} == before


def test_cli_train_and_annotate_on_an_ids_file(sample_store_dir, tmp_path, capsys):
    store = str(sample_store_dir)
    ids = tmp_path / "ids.txt"
    (train_doc,), (dev_doc,) = split_ids("train"), split_ids("dev")
    ids.write_text(f"# my own split\n{dev_doc}\n\n{train_doc}\n", encoding="utf-8")
    model = tmp_path / "model"
    assert main(["train", "--store", store, "--set", "PR", "--ids", str(ids), "--out", str(model), "--no-cache"]) == 0
    meta = json.loads((model / "model.json").read_text())
    assert meta["trained_on"] == {"splits": [], "documents": sorted([train_doc, dev_doc])}
    one = tmp_path / "one.txt"
    one.write_text(f"{dev_doc}\n", encoding="utf-8")
    run = tmp_path / "run"
    args = ["annotate", "--store", store, "--set", "PR", "--model", str(model), str(sample_dir()), "--ids", str(one)]
    assert main([*args, "--out", str(run), "--no-cache"]) == 0
    assert sorted(p.name for p in run.iterdir()) == [f"{dev_doc}.bionlp", "confidence.tsv"]


@pytest.mark.parametrize("command", ["train", "annotate"])
def test_cli_ids_file_naming_an_unknown_document_is_one_line_and_writes_nothing(
    sample_store_dir, pr_model, tmp_path, capsys, command
):
    ids = tmp_path / "ids.txt"
    ids.write_text(f"{split_ids('train')[0]}\n99999999\n", encoding="utf-8")
    out = tmp_path / "out"
    store = ["--store", str(sample_store_dir), "--set", "PR"]
    if command == "train":
        args = ["train", *store, "--ids", str(ids), "--out", str(out)]
    else:
        args = ["annotate", *store, "--model", str(pr_model), str(sample_dir()), "--ids", str(ids), "--out", str(out)]
    assert main([*args, "--no-cache"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"{ids}, line 2: unknown document '99999999'" in err[0], err
    assert not out.exists()
