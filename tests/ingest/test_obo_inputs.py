"""Files that are not OBO ontologies are errors, never empty ontologies (issue 17, "Writers").

A 0-byte file, a header alone, binary junk, and a file whose every stanza is malformed were
loaded with exit status 0 as an empty ontology; each must now be an InputError naming the
file, and a load of one must leave the store as it was.
"""

from __future__ import annotations

import random
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from craftrdf.core.errors import DataWarning, InputError, OboSyntaxError
from craftrdf.core.model import Term, Typedef
from craftrdf.ingest.obo import iter_obo
from tests.helpers.corpus import DATA

JUNK = random.Random(17).randbytes(4096)  # fixed seed: the same junk every run

CASES = {
    "empty.obo": b"",
    "blank.obo": b"\n\n   \n! only a comment\n",
    "header.obo": b"format-version: 1.2\nontology: xx\ndefault-namespace: xx\n",
    "junk.obo": JUNK,
    "junk-no-nul.obo": JUNK.replace(b"\0", b""),
    "instances.obo": b"format-version: 1.2\n\n[Instance]\nid: X:1\n",
    "malformed.obo": b"format-version: 1.2\n\n[Term]\nname: no id here\n\n[Term]\nid: X:1\nid: X:2\n",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_not_an_ontology_is_an_error_naming_the_file(tmp_path: Path, name: str) -> None:
    f = tmp_path / name
    f.write_bytes(CASES[name])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        with pytest.raises(OboSyntaxError, match=rf"^{tmp_path / name}(, line \d+)?: not an OBO"):
            list(iter_obo(f))


def test_one_good_stanza_is_enough(tmp_path: Path) -> None:
    f = tmp_path / "one.obo"
    f.write_text("[Term]\nid: X:1\n")
    items = list(iter_obo(f))
    assert [i.id for i in items if isinstance(i, Term)] == ["X:1"]


def test_the_cli_refuses_them_and_leaves_the_store_as_it_was(tmp_path: Path) -> None:
    store = str(tmp_path / "store")

    def craftrdf(*args: str) -> subprocess.CompletedProcess[str]:
        cmd = [sys.executable, "-m", "craftrdf", "-q", *args]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=120)

    assert craftrdf("load", str(DATA / "obo" / "valid.obo"), "--store", store).returncode == 0
    before = dump(store)
    for name in ("empty.obo", "junk.obo", "header.obo"):
        f = tmp_path / name
        f.write_bytes(CASES[name])
        r = craftrdf("load", str(f), "--store", store)
        assert r.returncode == 1, (name, r.stderr)
        assert len(r.stderr.strip().splitlines()) == 1 and str(f) in r.stderr, r.stderr
    assert dump(store) == before and "<http://purl.obolibrary.org/obo/" in before


def dump(store: str) -> str:
    """Every quad of the store at ``store``, sorted, as text."""
    import pyoxigraph as ox

    return "\n".join(sorted(str(q) for q in ox.Store.read_only(store)))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=600) | st.text(max_size=400).map(str.encode))
def test_any_bytes_are_an_ontology_with_a_stanza_or_an_input_error(tmp_path: Path, data: bytes) -> None:
    """Untrusted input: never an empty ontology, never an exception outside InputError."""
    f = tmp_path / "any.obo"
    f.write_bytes(data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        try:
            items = list(iter_obo(f))
        except InputError:
            return
    assert any(isinstance(i, (Term, Typedef)) for i in items)
