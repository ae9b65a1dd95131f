"""Logical definitions of CRAFT extension classes: parsing, and placing union-defined classes."""

from __future__ import annotations

import pytest

from craftrdf.analysis.similarity.graph import load_term_graph
from craftrdf.core.classexpr import And, Named, Not, Or, Restriction
from craftrdf.core.errors import InputError
from craftrdf.ingest.logicaldef import DefinitionSyntaxError, parse_definition, union_members
from craftrdf.ontology.extensions import Placement, place_extensions, place_union_classes

# -- parsing: definitions as they occur in CRAFT v5.0.2 ------------------------------------


def names(expr):
    return [str(n) for n in union_members(expr) or ()]


@pytest.mark.parametrize(
    ("text", "members"),
    [
        (
            "UBERON:'muscle structure' or UBERON:'muscle tissue'",
            ["UBERON:'muscle structure'", "UBERON:'muscle tissue'"],
        ),
        ("CL:cell or GO:cell", ["CL:cell", "GO:cell"]),
        ("UBERON:alveolus or UBERON:bronchus", ["UBERON:alveolus", "UBERON:bronchus"]),
        # an unquoted label holding a parenthesised charge, an id, an extension id
        (
            "CHEBI:aspartate(1-) or CHEBI:aspartate(2-) or CHEBI:'aspartate residue' or CHEBI_SO_EXT:aspartic_acid",
            ["CHEBI:aspartate(1-)", "CHEBI:aspartate(2-)", "CHEBI:'aspartate residue'", "CHEBI_SO_EXT:aspartic_acid"],
        ),
        # a quoted label holding an apostrophe
        (
            "CHEBI:inosine or CHEBI:'inosine 5'-phosphate(1-) residue' or SO_EXT:inosine",
            ["CHEBI:inosine", "CHEBI:'inosine 5'-phosphate(1-) residue'", "SO_EXT:inosine"],
        ),
        (
            "CHEBI:'amino acid' or  CHEBI:'amino-acid residue' or SO_EXT:amino_acid",  # two spaces, as shipped
            ["CHEBI:'amino acid'", "CHEBI:'amino-acid residue'", "SO_EXT:amino_acid"],
        ),
        ("(UBERON:cranium) or (UBERON:head or UBERON:0000033)", ["UBERON:cranium", "UBERON:head", "UBERON:0000033"]),
        ("SO:0000704", ["SO:0000704"]),
    ],
)
def test_unions_of_named_classes(text, members):
    assert names(parse_definition(text)) == members


def test_quoted_and_unquoted_and_ids_are_told_apart():
    e = parse_definition("UBERON:'bone element' or UBERON:bone_tissue or UBERON:0002481")
    assert e == Or((Named("UBERON", "bone element", True), Named("UBERON", "bone_tissue"), Named("UBERON", "0002481")))


@pytest.mark.parametrize(
    "text",
    [
        "CL:cell and ((proper_part_of some UBERON:liver) or (derives_from o proper_part_of some UBERON:liver))",
        "(CHMO:'experimental method' and has_input some 'bodily fluid') or UBERON:'bodily fluid'",
        "UBERON:'female organism' or bearer_of some PATO:female",
        (
            "(CHEBI:oligonucleotide or SO:oligonucleotide) and (has_sequence_unit_part exactly 6 CHEBI_SO_EXT:nucleotide)"
            " and (has_sequence_unit_part only CHEBI_SO_EXT:nucleotide)"
        ),
        "UBERON:'juvenile stage' and results_in_maturation_of some NCBITAXON:'Homo sapiens'",
        "not UBERON:head",
    ],
)
def test_intersections_and_restrictions_parse_but_are_not_unions(text):
    expr = parse_definition(text)
    assert union_members(expr) is None


def test_restriction_tree():
    e = parse_definition("CL:cell and (derives_from o proper_part_of some UBERON:liver)")
    assert e == And(
        (Named("CL", "cell"), Restriction(("derives_from", "proper_part_of"), "some", Named("UBERON", "liver")))
    )
    e = parse_definition("has_part exactly 2 (SO:region)")
    assert e == Restriction(("has_part",), "exactly", Named("SO", "region"), 2)
    assert parse_definition("not (UBERON:a)") == Not(Named("UBERON", "a"))


@pytest.mark.parametrize(
    "text",
    [
        # the malformed definitions of CRAFT v5.0.2, verbatim
        "CHEBI_EXT:ligand or CHEBI:'chemical entity' and has_prototype o participates_in some GO:binding)",
        "CHEBI_EXT:'EC 6.* (ligase) inhibitor' GO_EXT:'bearer of ligase inhibitor activity'",
        (
            "CHEBI:dinucleotide or (SO:region and (has_sequence_unit_part exactly 2 (CHEBI_SO_EXT:nucleotide) and "
            "(has_sequence_unit_part only (CHEBI_SO_EXT:nucleotide))"
        ),
        "CHEBI:'ribosomal RNA\" or SO_EXT:rRNA",
        "transgene or (BFO:independent_continuant and has_part_or_contains some SO_EXT:transgene)",
        (
            "BFO:occurrent and results_in_formation_of some (BFO:independent_continuant and has_proper_part "
            "(CHEBI_EXT:label or SO_EXT:'genetic marker' or SO_EXT:tag))"
        ),
        # a free-text definition (the GO_MF extension file's root)
        "Elemental activities, such as catalysis or binding, describing the actions of a gene product.",
        "",
        "UBERON:a or",
        "UBERON:",
    ],
)
def test_malformed_definitions_raise(text):
    with pytest.raises(DefinitionSyntaxError):
        parse_definition(text)


def test_syntax_error_is_an_input_error_naming_the_text_and_place():
    with pytest.raises(InputError, match=r"^UBERON:a or \(UBERON:b: expected '\)' at the end$"):
        parse_definition("UBERON:a or (UBERON:b")
    with pytest.raises(DefinitionSyntaxError, match="unexpected UBERON:b at character 10"):
        parse_definition("UBERON:a UBERON:b")


# -- placement ------------------------------------------------------------------------------

#      R ------------.
#     / \            |
#    T   O           S
#   /|\   \ \
#  a  b c  d e        (a, b, c is_a T; d, e is_a O; T, O is_a R; S is_a R too)
CLASSES = ["X:R", "X:T", "X:O", "X:S", "X:a", "X:b", "X:c", "X:d", "X:e"]
IS_A = [
    ("X:T", "X:R"),
    ("X:O", "X:R"),
    ("X:S", "X:R"),
    ("X:a", "X:T"),
    ("X:b", "X:T"),
    ("X:c", "X:T"),
    ("X:d", "X:O"),
    ("X:e", "X:O"),
]
LABELS = {"X:a": "alpha", "X:b": "beta", "X:c": "gamma ray", "X:d": "Delta", "X:e": "epsilon", "X:T": "tee"}


def place(definitions, **kw):
    return place_union_classes(
        definitions, classes=kw.get("classes", CLASSES), is_a=kw.get("is_a", IS_A), labels=kw.get("labels", LABELS)
    )


def test_members_become_children_and_the_class_sits_under_the_most_specific_common_ancestors():
    r = place({"X_EXT:ab": "X:alpha or X:'beta'", "X_EXT:ad": "X:a or X:d"})
    assert r.placed == (
        Placement("X_EXT:ab", ("X:a", "X:b"), ("X:T",)),
        Placement("X_EXT:ad", ("X:a", "X:d"), ("X:R",)),
    )
    assert sorted(r.edges()) == sorted(
        [
            ("X:a", "X_EXT:ab"),
            ("X:b", "X_EXT:ab"),
            ("X_EXT:ab", "X:T"),
            ("X:a", "X_EXT:ad"),
            ("X:d", "X_EXT:ad"),
            ("X_EXT:ad", "X:R"),
        ]
    )
    assert r.problems == ()


def test_a_member_that_is_an_ancestor_of_another_is_not_a_parent():
    # X:a or X:T == X:T logically; the class goes under T's parent R, not under T (no cycle).
    r = place({"X_EXT:aT": "X:a or X:tee"})
    assert r.placed == (Placement("X_EXT:aT", ("X:a", "X:T"), ("X:R",)),)


def test_label_lookup_is_exact_then_case_blind_then_underscores_as_spaces():
    r = place({"X_EXT:1": "x:DELTA or X:gamma_ray"})
    assert r.placed[0].members == ("X:d", "X:c")


def test_nested_extension_members_are_placed_first_whatever_the_order():
    defs = {"X_EXT:a_or_bc": "X_EXT:bc or X:a", "X_EXT:bc": "X:b or X:c", "X_EXT:bc_or_d": "X_EXT:bc or X:d"}
    r = place(defs)
    by = {p.cls: p for p in r.placed}
    assert by["X_EXT:bc"].parents == ("X:T",)
    assert by["X_EXT:a_or_bc"].parents == ("X:T",)  # via X_EXT:bc's new parent T
    assert by["X_EXT:bc_or_d"].parents == ("X:R",)
    # the same placement whatever order the definitions come in
    assert {p.cls: p for p in place(dict(reversed(list(defs.items())))).placed} == by


def test_problems_are_reported_by_kind():
    r = place(
        {
            "X_EXT:syntax": "X:a or (X:b",
            "X_EXT:notunion": "X:a and part_of some X:R",
            "X_EXT:unresolved": "X:a or X:'no such label'",
            "X_EXT:noprefix": "X:a or 'alpha'",
            "X_EXT:loop1": "X_EXT:loop2 or X:a",
            "X_EXT:loop2": "X_EXT:loop1 or X:b",
            "X_EXT:placed": "X:a or X:b",
        },
        is_a=[*IS_A, ("X_EXT:placed", "X:T")],
    )
    kinds = {p.cls: p.kind for p in r.problems}
    assert kinds == {
        "X_EXT:syntax": "syntax",
        "X_EXT:notunion": "not-union",
        "X_EXT:unresolved": "unresolved",
        "X_EXT:noprefix": "unresolved",
        "X_EXT:loop1": "cycle",
        "X_EXT:loop2": "cycle",
    }
    assert r.already_placed == ("X_EXT:placed",)
    assert r.placed == ()
    assert [p.cls for p in r.unparsable()] == ["X_EXT:syntax"]
    assert "no such label" in next(p.reason for p in r.problems if p.cls == "X_EXT:unresolved")


def test_ambiguous_label_is_unresolved():
    r = place({"X_EXT:amb": "X:alpha or X:twin"}, labels={**LABELS, "X:b": "twin", "X:c": "twin"})
    assert r.problems[0].kind == "unresolved" and "ambiguous" in r.problems[0].reason


def test_members_without_common_ancestor_give_a_root():
    r = place({"X_EXT:cross": "X:a or Y:z"}, classes=[*CLASSES, "Y:z"])
    assert r.placed == (Placement("X_EXT:cross", ("X:a", "Y:z"), ()),)


def test_parallel_prefix_falls_back_to_the_base_prefix():
    r = place(
        {"X_EXT:p": "SO_EXT:deletion or SO:insertion"},
        classes=[*CLASSES, "SO:1", "SO:2", "SO:0"],
        is_a=[*IS_A, ("SO:1", "SO:0"), ("SO:2", "SO:0")],
        labels={"SO:1": "deletion", "SO:2": "insertion"},
    )
    assert r.placed == (Placement("X_EXT:p", ("SO:1", "SO:2"), ("SO:0",)),)


def test_toy_ontology_from_the_store(toy_store):
    report = place_extensions(load_term_graph(toy_store, ontology="toy_extensions", cache=None))
    placed = {p.cls: p for p in report.placed}
    assert placed["TOY_EXT:muscle"] == Placement("TOY_EXT:muscle", ("TOY:0000004", "TOY:0000005"), ("TOY:0000001",))
    assert placed["TOY_EXT:bone"].members == ("TOY:0000006", "TOY:0000007")  # label, then id
    assert placed["TOY_EXT:tissues"].parents == ("TOY:0000002",)  # most specific
    assert placed["TOY_EXT:tissues"].members == ("TOY:0000004", "TOY:0000006", "TOY:0000012")
    assert placed["TOY_EXT:odd_labels"].members == ("TOY:0000010", "TOY:0000011")  # (1-) and 5'-
    assert placed["TOY_EXT:nested"].members == ("TOY_EXT:muscle", "TOY:0000006")
    assert placed["TOY_EXT:any_case"].members == ("TOY:0000004", "TOY:0000008")
    assert {p.cls: p.kind for p in report.problems} == {
        "TOY_EXT:broken": "syntax",
        "TOY_EXT:missing": "unresolved",
        "TOY_EXT:restricted": "not-union",
    }
    assert report.already_placed == ("TOY_EXT:already_placed",)
