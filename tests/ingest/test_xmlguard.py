"""RDF/XML with a DTD is refused before pyoxigraph expands its entities (issue 17, "Writers").

The hostile files are generated here: a billion-laughs file (10 levels of tenfold entities,
10**9 copies of "lol" once expanded) and a 6-level one (10**6 copies, which pyoxigraph did
expand into a literal and store). Both must be refused with one line naming the file, and a
store that held an ontology before must hold exactly that afterwards.
"""

from __future__ import annotations

import io
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from craftrdf.core.errors import InputError
from craftrdf.ingest.rdfsource import rdf_file_nquads
from craftrdf.ingest.xmlguard import check_stream_no_dtd

RDF_BODY = (
    '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" '
    'xmlns:rdfs="http://www.w3.org/2000/01/rdf-schema#">\n'
    '  <rdf:Description rdf:about="http://example.org/x"><rdfs:label>{label}</rdfs:label></rdf:Description>\n'
    "</rdf:RDF>\n"
)


def nested_entities(levels: int) -> str:
    """An RDF/XML file whose label is an entity that expands to 10**levels copies of "lol"."""
    decls = ['<!ENTITY lol0 "lol">']
    decls += [f'<!ENTITY lol{i} "{("&lol" + str(i - 1) + ";") * 10}">' for i in range(1, levels + 1)]
    return (
        '<?xml version="1.0"?>\n<!DOCTYPE rdf:RDF [\n'
        + "\n".join(decls)
        + "\n]>\n"
        + RDF_BODY.format(label=f"&lol{levels};")
    )


def craftrdf(*args: str) -> subprocess.CompletedProcess[str]:
    """The CLI in a child limited to 2 GB of address space, so a failing guard fails the test, not the machine."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    return subprocess.run(
        [sys.executable, "-m", "craftrdf", "-q", *args],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=limit,
    )


def dump(store: str) -> str:
    import pyoxigraph as ox

    s = ox.Store.read_only(store)
    return "\n".join(sorted(str(q) for q in s))


@pytest.mark.parametrize(("levels", "name"), [(10, "laughs.owl"), (6, "six.owl")])
def test_entity_files_are_refused_and_the_store_is_unchanged(tmp_path: Path, levels: int, name: str) -> None:
    store = str(tmp_path / "store")
    good = tmp_path / "good.owl"
    good.write_text('<?xml version="1.0"?>\n' + RDF_BODY.format(label="fine"), encoding="utf-8")
    r = craftrdf("load", str(good), "--store", store)
    assert r.returncode == 0, r.stderr
    before = dump(store)
    assert '"fine"' in before
    bomb = tmp_path / name
    bomb.write_text(nested_entities(levels), encoding="utf-8")
    r = craftrdf("load", str(bomb), "--store", store)
    assert r.returncode == 1, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and str(bomb) in lines[0] and "DTD" in lines[0], r.stderr
    assert dump(store) == before


def test_a_doctype_without_entities_and_gzipped_files_are_refused(tmp_path: Path) -> None:
    import gzip

    plain = tmp_path / "a.rdf"
    plain.write_text('<!DOCTYPE rdf:RDF SYSTEM "http://example.org/x.dtd">\n' + RDF_BODY.format(label="x"))
    with pytest.raises(InputError, match=r"a\.rdf, line 1: XML with a DTD"):
        list(rdf_file_nquads(plain, graph="http://example.org/g"))
    zipped = tmp_path / "b.owl.gz"
    zipped.write_bytes(gzip.compress(nested_entities(3).encode()))
    with pytest.raises(InputError, match=r"b\.owl\.gz, line 2"):
        list(rdf_file_nquads(zipped, graph="http://example.org/g"))


def test_plain_rdf_xml_still_loads(tmp_path: Path) -> None:
    f = tmp_path / "ok.owl"
    f.write_text('<?xml version="1.0"?>\n<!-- a comment -->\n' + RDF_BODY.format(label="a &amp; b"))
    assert list(rdf_file_nquads(f, graph="http://example.org/g")) == [
        '<http://example.org/x> <http://www.w3.org/2000/01/rdf-schema#label> "a & b" <http://example.org/g> .'
    ]


# Prolog pieces that may stand before the root element, and ways to write a DOCTYPE.
_MISC = st.sampled_from(["", "\n", "  ", "<!-- c -->", "<!-- <!DOCTYPE x> -->", "<?pi data?>", "\r\n"])
_DOCTYPES = st.sampled_from([
    "<!DOCTYPE r>",
    '<!DOCTYPE r SYSTEM "x.dtd">',
    '<!DOCTYPE r PUBLIC "-//x//y" "x.dtd">',
    '<!DOCTYPE r [<!ENTITY a "b">]>',
    "<!DOCTYPE r [\n<!ELEMENT r ANY>\n]>",
    '<!DOCTYPE r [<!ENTITY % p "q">]>',
])  # fmt: skip


@settings(deadline=None)
@given(decl=st.booleans(), before=st.lists(_MISC, max_size=4), doctype=st.none() | _DOCTYPES, after=_MISC)
def test_the_guard_refuses_exactly_the_prologs_with_a_doctype(
    decl: bool, before: list[str], doctype: str | None, after: str
) -> None:
    """Oracle: the prolog is built here, so whether it has a DOCTYPE is known by construction."""
    text = ('<?xml version="1.0" encoding="UTF-8"?>' if decl else "") + "".join(before)
    text += (doctype or "") + after + "<r>&amp;</r>"
    if doctype is None:
        check_stream_no_dtd(io.BytesIO(text.encode()), source="gen.xml")
    else:
        with pytest.raises(InputError, match=r"gen\.xml.*DTD"):
            check_stream_no_dtd(io.BytesIO(text.encode()), source="gen.xml")
