"""``craftrdf export --format sssom``: a set's extension-class mappings as SSSOM TSV, checked by sssom-py."""

from __future__ import annotations

import csv
import shutil
import subprocess
import warnings

import pytest

from craftrdf.apps.cli import main
from craftrdf.core.errors import ConfigError
from craftrdf.publishing.exports.sssom import export_sssom, sssom_rows
from tests.helpers.corpus import REPO

RAW = (
    REPO
    / "craftrdf/sample/craft/concept-annotation/UBERON/UBERON+extensions"
    / "UBERON_extension_classes_and_related_UBERON_classes.txt"
)


def _raw_pairs() -> set[tuple[str, str]]:
    """(extension class, related class) from the corpus file itself, and each line's first related class."""
    out = set()
    for line in RAW.read_text(encoding="utf-8").splitlines():
        fields = [f for f in line.split("\t") if f.strip()]
        out.update((fields[0], t) for t in fields[1:])
    return out


def _table(path):
    with open(path, encoding="utf-8") as fh:
        return list(csv.DictReader((line for line in fh if not line.startswith("#")), delimiter="\t"))


def test_rows_are_the_mapping_files_pairs(sample_store):
    rows = sssom_rows(sample_store, "UBERON_EXT")
    assert {(r["subject_id"], r["object_id"]) for r in rows} == _raw_pairs()
    assert {r["predicate_id"] for r in rows} == {"skos:relatedMatch"}
    firsts = {r["subject_id"]: r["object_id"] for r in rows if r["comment"]}
    raw_firsts = {f[0]: f[1] for f in (ln.split("\t") for ln in RAW.read_text(encoding="utf-8").splitlines() if ln)}
    assert firsts == raw_firsts
    # labels from the ontology graph: UBERON:0000955 is "brain" in any UBERON release
    assert all(r["object_label"] == "brain" for r in rows if r["object_id"] == "UBERON:0000955")


def test_sets_without_mappings_and_unknown_sets(sample_store):
    with pytest.raises(ConfigError, match="no extension-class mappings"):
        sssom_rows(sample_store, "UBERON")
    with pytest.raises(ConfigError, match="UBERON_EXT"):  # the error lists the sets
        sssom_rows(sample_store, "NOPE")


def test_sssom_py_accepts_the_export(sample_store, tmp_path):
    pytest.importorskip("sssom", reason="sssom-py is not installed (pip install 'craftrdf[sssom]')")
    from sssom.parsers import parse_sssom_table

    out = tmp_path / "uberon_ext.sssom.tsv"
    report = export_sssom(sample_store, "UBERON_EXT", out)
    assert report.mappings == len(_raw_pairs()) == len(_table(out))
    with warnings.catch_warnings():  # pandas' deprecation notices about sssom-py's own calls: not ours
        warnings.simplefilter("ignore")
        msdf = parse_sssom_table(out)
    assert len(msdf.df) == report.mappings  # sssom-py drops a row it finds malformed: none is
    assert msdf.metadata["license"] == "http://creativecommons.org/licenses/by/3.0/"
    exe = shutil.which("sssom")
    assert exe is not None
    done = subprocess.run([exe, "validate", str(out)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    # the same check fails on a file that breaks the schema: an unknown mapping justification
    bad = tmp_path / "bad.sssom.tsv"
    bad.write_text(out.read_text().replace("semapv:ManualMappingCuration", "semapv:Guesswork"))
    assert subprocess.run([exe, "validate", str(bad)], capture_output=True, timeout=300).returncode != 0


def test_cli_export_sssom(sample_store_dir, tmp_path, capsys):
    out = tmp_path / "m.tsv"
    assert (
        main(
            ["export", "--set", "uberon_ext", "--format", "sssom", "--out", str(out), "--store", str(sample_store_dir)]
        )
        == 0
    )
    assert "SSSOM" in capsys.readouterr().out and len(_table(out)) == len(_raw_pairs())
    code = main(
        ["-q", "export", "--set", "UBERON", "--format", "sssom", "--out", str(out), "--store", str(sample_store_dir)]
    )
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1 and "no extension-class mappings" in err
