"""RDF files that are not UTF-8: one InputError naming the file, from the reader and from ``craftrdf load``."""

from __future__ import annotations

from pathlib import Path

import pytest

from craftrdf.apps.cli import main
from craftrdf.core.errors import InputError
from craftrdf.ingest.rdfsource import rdf_file_nquads
from craftrdf.store.local import AnnotationStore

# Latin-1 "é" (0xe9) inside a literal: valid RDF in any 8-bit reading, not UTF-8
BODIES = {
    "bad.ttl": b'<http://e/s> <http://e/p> "caf\xe9" .\n',
    "bad.nt": b'<http://e/s> <http://e/p> "caf\xe9" .\n',
    "bad.jsonld": b'{"@id": "http://e/s", "http://e/p": "caf\xe9"}\n',
}


@pytest.mark.parametrize("name", sorted(BODIES))
def test_a_file_that_is_not_utf8_is_one_error_naming_it(tmp_path: Path, name: str) -> None:
    f = tmp_path / name
    f.write_bytes(BODIES[name])
    with pytest.raises(InputError, match=r"not UTF-8 text \(byte 0xe9\)") as info:
        list(rdf_file_nquads(f, graph="http://example.org/g"))
    assert name in str(info.value)


def test_load_of_a_file_that_is_not_utf8_is_one_line_and_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "s.store"
    good = tmp_path / "good.ttl"
    good.write_text('<http://e/s> <http://e/p> "cafe" .\n', encoding="utf-8")
    assert main(["-q", "load", "--store", str(store), str(good)]) == 0
    with AnnotationStore.open(store, mode="read") as s:
        before = (len(s), s.batches())
    bad = tmp_path / "bad.ttl"
    bad.write_bytes(BODIES["bad.ttl"])
    capsys.readouterr()
    assert main(["-q", "load", "--store", str(store), str(bad)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "bad.ttl" in err[0] and "not UTF-8" in err[0], err
    with AnnotationStore.open(store, mode="read") as s:
        assert (len(s), s.batches()) == before
