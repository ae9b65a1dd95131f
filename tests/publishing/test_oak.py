"""The OAK adapter (``craftrdf:PATH``) over the bundled sample, checked against its UBERON OBO file read here.

The expected values come from the raw ``UBERON+extensions.obo`` of the sample (tests/helpers/sample.py),
not from craftrdf: a class's stanza for ``info``, the is_a closure for ``ancestors``, and for a union
extension class the classes above both of its operands (``A or B`` is below C exactly when A and B are).
"""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from craftrdf.apps.cli import main
from craftrdf.core.errors import ConfigError, MissingExtraError, StoreError
from tests.helpers.sample import obo_is_a_closure, obo_is_a_parents, read_obo

BRAIN = "UBERON:0000955"
ORGAN = "UBERON:0000062"
UNION = "UBERON_EXT:bone_element_or_tissue"  # def: UBERON:'bone element' or UBERON:'bone tissue'


@pytest.fixture(scope="module")
def raw() -> dict[str, dict[str, list[str]]]:
    return read_obo("UBERON/UBERON+extensions")


@pytest.fixture(scope="module")
def store(sample_store_dir: Path) -> Path:
    """The sample on disk, its extension classes placed by ``craftrdf classify`` (edges the adapter reads)."""
    assert main(["-q", "classify", "--store", str(sample_store_dir), "--ontology", "UBERON+extensions"]) == 0
    return sample_store_dir


@pytest.fixture(scope="module")
def oak(store: Path):  # type: ignore[no-untyped-def]
    pytest.importorskip("oaklib", reason="oaklib is not installed (pip install 'craftrdf[oak]')")
    from oaklib import get_adapter

    # OAK's own resolution of the selector: the craftrdf entry point of the installed distribution
    return get_adapter(f"craftrdf:{store}")


def _union_ancestors(raw: dict[str, dict[str, list[str]]]) -> set[str]:
    """The classes above both operands of the union's definition, each operand found by its label in the file."""
    by_name = {tags["name"][0]: cls for cls, tags in raw.items()}
    names = re.findall(r"UBERON:'([^']+)'", raw[UNION]["def"][0])
    operands = [by_name[n] for n in names]
    assert len(operands) == 2
    above = [obo_is_a_closure(raw, o) | {o} for o in operands]
    return above[0] & above[1]


def _names(tags: dict[str, list[str]]) -> list[str]:
    """A stanza's label and synonym texts."""
    return tags["name"] + [re.match(r'"(.*)" ', s).group(1) for s in tags.get("synonym", [])]  # type: ignore[union-attr]


def test_info_is_the_files_stanza(oak, raw):
    from oaklib.datamodels.vocabulary import HAS_RELATED_SYNONYM, IS_A, PART_OF

    tags = raw[BRAIN]
    assert oak.label(BRAIN) == tags["name"][0] == "brain"
    assert oak.definition(BRAIN) == re.match(r'"(.*)" \[', tags["def"][0]).group(1)  # type: ignore[union-attr]
    related = {m.group(1) for s in tags["synonym"] if (m := re.match(r'"(.*)" RELATED', s))}
    assert set(oak.entity_alias_map(BRAIN)[HAS_RELATED_SYNONYM]) == related and related
    out = oak.outgoing_relationship_map(BRAIN)
    assert set(out[IS_A]) == obo_is_a_parents(tags)
    part_of = {v.split()[1] for v in tags["relationship"] if v.startswith("part_of ")}
    assert set(out[PART_OF]) == part_of and part_of
    assert oak.label(PART_OF) == "part of"
    # OAK's default search: an exact name, labels and synonyms (here ignoring case)
    named = {c for c, tags in raw.items() if "encephalon" in {n.lower() for n in _names(tags)}}
    assert set(oak.basic_search("Encephalon")) == named and BRAIN in named


def test_ancestors_and_descendants_are_the_files_closures(oak, raw):
    from oaklib.datamodels.vocabulary import IS_A, PART_OF

    expected = obo_is_a_closure(raw, BRAIN)
    assert set(oak.ancestors(BRAIN, predicates=[IS_A])) == expected | {BRAIN}  # OAK's ancestors are reflexive
    assert set(oak.ancestors(BRAIN, predicates=[IS_A], reflexive=False)) == expected
    over_part_of = set(oak.ancestors(BRAIN, predicates=[IS_A, PART_OF]))
    assert over_part_of > expected and "UBERON:0001017" in over_part_of  # central nervous system, by part_of
    below = {t for t in raw if ORGAN in obo_is_a_closure(raw, t)}
    assert set(oak.descendants(ORGAN, predicates=[IS_A], reflexive=False)) == below and BRAIN in below


def test_an_extension_class(oak, raw):
    from oaklib.datamodels.vocabulary import IS_A

    assert oak.label(UNION) == raw[UNION]["name"][0]
    expected = _union_ancestors(raw)
    assert expected  # the operands meet below anatomical entity
    assert set(oak.ancestors(UNION, predicates=[IS_A], reflexive=False)) == expected


def test_a_store_that_is_not_there(tmp_path):
    pytest.importorskip("oaklib", reason="oaklib is not installed (pip install 'craftrdf[oak]')")
    from oaklib import get_adapter

    with pytest.raises(StoreError):
        get_adapter(f"craftrdf:{tmp_path / 'nothing'}")


def test_one_ontology_graph_by_name(oak, store, raw):
    from oaklib import get_adapter

    one = get_adapter(f"craftrdf:{store}#UBERON+extensions")
    assert set(one.entities()) == set(raw)  # the file's classes alone; the merged adapter has the other ontologies too
    assert set(oak.entities()) > set(raw)
    with pytest.raises(ConfigError, match="NOPE"):
        get_adapter(f"craftrdf:{store}#NOPE")


def test_without_oaklib_the_error_names_the_extra(monkeypatch):
    for name in [m for m in sys.modules if m == "oaklib" or m.startswith("oaklib.")] + ["oaklib"]:
        monkeypatch.setitem(sys.modules, name, None)  # an import of any of them now fails as if absent
    monkeypatch.delitem(sys.modules, "craftrdf.publishing.oak", raising=False)
    with pytest.raises(MissingExtraError, match=re.escape("pip install 'craftrdf[oak]'")) as caught:
        importlib.import_module("craftrdf.publishing.oak")
    assert "\n" not in str(caught.value)


def _ids(rows: list[str]) -> set[str]:
    """The ids of runoak's ``id<TAB>label`` table (its header checked)."""
    assert rows[0] == "id\tlabel"
    return {r.split("\t")[0] for r in rows[1:]}


def test_runoak_info_and_ancestors(oak, store, raw):
    from click.testing import CliRunner

    with warnings.catch_warnings():
        # the command's dependencies (pydantic models of OAK's LLM and web adapters) warn on import: not ours
        warnings.simplefilter("ignore", DeprecationWarning)
        from oaklib.cli import main as runoak  # the command the runoak script runs, here in this process

    def run(*args: str) -> list[str]:
        r = CliRunner().invoke(runoak, ["-i", f"craftrdf:{store}", *args], catch_exceptions=False)
        assert r.exit_code == 0, r.output
        return r.output.splitlines()

    assert run("info", BRAIN, UNION) == [f"{BRAIN} ! brain", f"{UNION} ! {raw[UNION]['name'][0]}"]
    assert _ids(run("ancestors", "-p", "i", BRAIN)) == obo_is_a_closure(raw, BRAIN) | {BRAIN}
    assert _ids(run("ancestors", "-p", "i", UNION)) == _union_ancestors(raw) | {UNION}
    below = {t for t in raw if ORGAN in obo_is_a_closure(raw, t)} | {ORGAN}
    # a label for a term, as runoak takes it; descendants prints "ID ! label" lines
    assert {r.split(" ! ")[0] for r in run("descendants", "-p", "i", "organ")} == below


@pytest.mark.long("runoak as a subprocess: a new process imports all of oaklib, 4 s of CPU each; in-process above")
def test_the_runoak_script(store, raw):
    runoak = Path(sys.executable).with_name("runoak")
    if not runoak.exists():
        pytest.skip("runoak is not installed (pip install 'craftrdf[oak]')")
    args = [str(runoak), "-i", f"craftrdf:{store}"]
    r = subprocess.run([*args, "info", UNION], capture_output=True, text=True, check=True)
    assert r.stdout.splitlines() == [f"{UNION} ! {raw[UNION]['name'][0]}"]
    r = subprocess.run([*args, "ancestors", "-p", "i", BRAIN], capture_output=True, text=True, check=True)
    assert _ids(r.stdout.splitlines()) == obo_is_a_closure(raw, BRAIN) | {BRAIN}
