"""Confidences of a trained model's annotations: in confidence.tsv, in the store, in the JSON-LD and
PubAnnotation exports; ``--min-confidence`` picks the operating point."""

from __future__ import annotations

import itertools
import json

import pyoxigraph as ox

from craftrdf.apps.cli import main
from craftrdf.apps.demo import sample_dir
from craftrdf.querying.webanno import fetch_annotations
from craftrdf.store.local import AnnotationStore

CONFIDENCE = "https://w3id.org/craftrdf/vocab#confidence"
XSD_DECIMAL = "http://www.w3.org/2001/XMLSchema#decimal"


def _tsv(path):
    rows = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()]
    assert rows[0] == ["document", "class", "spans", "confidence"]
    return {(d, c, s): float(v) for d, c, s, v in rows[1:]}


def _bionlp_spans(spans):
    """Spans as BioNLP (and confidence.tsv) write them: ``0 3;8 14``."""
    return ";".join(f"{p.start} {p.end}" for p in spans)


def test_confidence_in_the_store_and_the_exports(sample_store_dir, tmp_path, capsys):
    store = str(sample_store_dir)
    model = tmp_path / "model"
    assert main(["train", "--store", store, "--set", "PR", "--quick", "--out", str(model), "--no-cache"]) == 0
    # on the dev article, a training document: the model knows its names, so it predicts some
    args = ["annotate", "--store", store, "--set", "PR", "--model", str(model), str(sample_dir()), "--split", "dev"]
    assert main([*args, "--out", str(tmp_path / "run"), "--into-store", "PR_MODEL", "--no-cache"]) == 0
    tsv = _tsv(tmp_path / "run" / "confidence.tsv")
    assert tsv and all(0.0 <= v <= 1.0 for v in tsv.values())
    # in the store: one craft:confidence, an xsd:decimal, per annotation of the run's graph (read with pyoxigraph)
    s = ox.Store(str(sample_store_dir))
    graph = ox.NamedNode("https://w3id.org/craftrdf/set/PR_MODEL")
    stored = list(s.quads_for_pattern(None, ox.NamedNode(CONFIDENCE), None, graph))
    annotations = list(s.quads_for_pattern(None, ox.NamedNode("http://www.w3.org/ns/oa#hasBody"), None, graph))
    assert len(stored) == len(annotations) == len(tsv)
    assert all(q.object.datatype.value == XSD_DECIMAL for q in stored)
    assert sorted(float(q.object.value) for q in stored) == sorted(tsv.values())
    del s
    # read back as records: each annotation's confidence is the one confidence.tsv has for its document, class, spans
    with AnnotationStore.open(sample_store_dir, mode="read") as opened:
        back = fetch_annotations(opened, "PR_MODEL")
    assert {(a.document, a.class_id, _bionlp_spans(a.spans)): a.confidence for a in back} == tsv
    capsys.readouterr()
    # JSON-LD: "confidence" in each annotation, its context term an xsd:decimal of craft:confidence
    out = tmp_path / "run.jsonld"
    assert main(["export", "--store", store, "--set", "PR_MODEL", "--format", "jsonld", "--out", str(out)]) == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    items = data["first"]["items"] if "first" in data else data.get("items", data.get("@graph"))
    assert sorted(float(a["confidence"]) for a in items) == sorted(tsv.values())
    context = data["@context"][-1] if isinstance(data["@context"], list) else data["@context"]
    assert context["confidence"] == {"@id": "craft:confidence", "@type": "xsd:decimal"}
    # PubAnnotation: an attribute "confidence" per denotation
    pa = tmp_path / "pa"
    assert main(["export", "--store", store, "--set", "PR_MODEL", "--format", "pubannotation", "--out", str(pa)]) == 0
    pages = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(pa.glob("*.json"))]
    attributes = [a for page in pages for a in page.get("attributes", ())]
    for page in pages:
        ids = {d["id"] for d in page["denotations"]}
        assert all(a["pred"] == "confidence" and a["subj"] in ids for a in page.get("attributes", ()))
    assert sorted(a["obj"] for a in attributes) == sorted(tsv.values())


def test_min_confidence_picks_the_operating_point(sample_store_dir, tmp_path):
    store = str(sample_store_dir)
    model = tmp_path / "model"
    assert main(["train", "--store", store, "--set", "PR", "--quick", "--out", str(model), "--no-cache"]) == 0
    args = ["annotate", "--store", store, "--set", "PR", "--model", str(model), str(sample_dir()), "--split", "dev"]
    runs = {}
    for p in ("0", "0.5", "1"):
        assert main([*args, "--out", str(tmp_path / p), "--min-confidence", p, "--no-cache"]) == 0
        runs[p] = _tsv(tmp_path / p / "confidence.tsv")
    assert all(v >= 0.5 for v in runs["0.5"].values()) and all(v == 1.0 for v in runs["1"].values())
    # a lower threshold keeps more (the rules aside, what it keeps is a superset of a higher one's)
    assert len(runs["0"]) >= len(runs["0.5"]) >= len(runs["1"])
    assert len(runs["0"]) > len(runs["1"])
    assert main([*args, "--out", str(tmp_path / "bad"), "--min-confidence", "1.5", "--no-cache"]) == 1
    assert not (tmp_path / "bad").exists()


def test_the_train_report_has_the_cross_validated_precision_recall_curve(sample_store, tmp_path):
    from craftrdf.core.context import RunContext
    from craftrdf.matching.training.train import TrainOptions, train_set

    report, _ = train_set(sample_store, "CL", RunContext.create(), out=tmp_path / "m", options=TrainOptions(quick=True))
    curve = report.learned.curve
    thresholds = [t for t, _, _ in curve]
    assert thresholds == sorted(thresholds) and thresholds[0] == 0.0
    # a higher minimum confidence keeps a subset of the annotations: recall never rises
    recalls = [r for _, _, r in curve]
    assert all(a >= b for a, b in itertools.pairwise(recalls))
    assert all(0.0 <= p <= 1.0 and 0.0 <= r <= 1.0 for _, p, r in curve)
    meta = json.loads((tmp_path / "m" / "model.json").read_text(encoding="utf-8"))
    assert [(c["confidence"], c["precision"], c["recall"]) for c in meta["learned"]["pr_curve"]] == list(curve)


def test_the_train_report_names_the_window_kept(sample_store_dir, tmp_path, capsys):
    model = tmp_path / "m"
    args = ["train", "--store", str(sample_store_dir), "--set", "CL", "--quick", "--out", str(model), "--no-cache"]
    assert main(args) == 0
    out = capsys.readouterr().out
    learned = json.loads((model / "model.json").read_text(encoding="utf-8"))["learned"]
    # the window of lowest cross-validated SER, the first on ties (the grid's order: each reads more)
    tried = learned["window_spans_cv_ser"]
    assert list(tried) == ["0", "25", "25+names", "25+names+discourse"]
    kept = min(tried, key=tried.__getitem__)
    assert f"window {kept}): cross-validated SER" in out
    span, _, reads = kept.partition("+")
    assert (learned["window_span"], learned["window_names"], learned["window_discourse"]) == (
        int(span),
        "names" in reads,
        "discourse" in reads,
    )
