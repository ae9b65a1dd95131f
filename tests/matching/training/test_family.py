"""Word families: names found inside prefixed words, and a family term decided only where training found it right."""

from __future__ import annotations

from collections import Counter

from craftrdf.core.model import Annotation, Span
from craftrdf.matching.matcher.annotate import MatchingSession
from craftrdf.matching.matcher.config import MatcherConfig
from craftrdf.matching.training.data import Corpus
from craftrdf.matching.training.engine import Decision
from craftrdf.matching.training.family import family_candidates, family_index, is_family, with_families
from craftrdf.matching.training.folder import Model, NameRow, TermRow, read_model, write_model
from craftrdf.matching.training.names import GoldNames
from craftrdf.matching.training.rules import Rules
from craftrdf.matching.training.select import FoldView, prepare
from craftrdf.matching.training.train import predict
from tests.helpers.models import model_meta

CONFIG = MatcherConfig(stemmer="NONE", findAllMatches="YES")  # type: ignore[arg-type]
NORM = CONFIG.normalization


def names_of(*terms: tuple[str, str, str]) -> GoldNames:
    """Gold names from (token, class, document) triples."""
    docs: dict[tuple[tuple[str, ...], str], set[str]] = {}
    for token, cls, doc in terms:
        docs.setdefault(((token,), cls), set()).add(doc)
    return GoldNames({t: frozenset(d) for t, d in docs.items()}, {t: Counter() for t in docs})


def test_a_name_inside_a_prefixed_word_is_a_candidate_over_the_tail():
    text = "The antioxidant, trimethylation and oxidant; reoxidant pro ox."
    session = MatchingSession({"d": text}, {})
    names = with_families(names_of(("oxidant", "C:1", "a"), ("methylation", "C:2", "b")), {}, {}, session, NORM)
    index = family_index(names, NORM, CONFIG.synonyms)
    found = family_candidates("d", session, index, NORM, [])
    # by hand: "anti|oxidant" at 4-15 -> tail 8-15; "tri|methylation" at 17-31 -> tail 20-31;
    # "re|oxidant" at 45-54 -> tail 47-54; the whole word "oxidant" (36-43) is not a prefix find
    got = sorted((c.spans[0].start, c.spans[0].end, c.key, c.surface, tuple(c.classes)) for c in found)
    assert got == [
        (8, 15, ("^oxidant",), "anti^oxidant", ("C:1",)),
        (20, 31, ("^methylation",), "tri^methylation", ("C:2",)),
        (47, 54, ("^oxidant",), "re^oxidant", ("C:1",)),
    ]
    assert text[8:15] == "oxidant" and text[20:31] == "methylation" and text[36:43] == "oxidant"
    assert all(is_family(c.key) for c in found)
    # the words around the whole prefixed word are its context
    assert (found[0].before, found[0].after) == ("the", "trimethylation")


def test_a_short_name_is_a_tail_only_where_annotators_wrote_it_inside_a_word():
    # CRAFT marks the "b" of "kb" (kilobase) as base: "b" annotated inside "3.5-kb" in document a.
    # "e" is a name too, but never written inside a word: no tail "e" at the end of "the", "fragment"...
    train = {"a": "a 3.5-kb insert", "b": "the b and e sites"}
    gold = {
        "a": (Annotation("1", "a", "C:b", (Span(7, 8),)),),
        "b": (Annotation("2", "b", "C:b", (Span(4, 5),)), Annotation("3", "b", "C:e", (Span(10, 11),))),
    }
    session = MatchingSession(train, {})
    names = with_families(names_of(("b", "C:b", "a"), ("e", "C:e", "b")), gold, train, session, NORM)
    assert ((("^b",), "C:b")) in names.documents and (("^e",), "C:e") not in names.documents
    text = "The 12 kb fragment, a 300-bp probe."
    session = MatchingSession({"d": text}, {})
    found = family_candidates("d", session, family_index(names, NORM, CONFIG.synonyms), NORM, [])
    # by hand: "kb" at 7-9 -> tail "b" at 8-9; "bp" ends in "p", not a name; nothing ends in "e" as a tail
    assert [(c.spans[0].start, c.spans[0].end, c.key, c.surface) for c in found] == [(8, 9, ("^b",), "k^b")]
    assert text[8:9] == "b"


def test_prefix_terms_keep_the_documents_of_their_name():
    session = MatchingSession({}, {})
    names = with_families(names_of(("oxidant", "C:1", "a"), ("oxidant", "C:1", "b")), {}, {}, session, NORM)
    assert names.documents[(("^oxidant",), "C:1")] == frozenset({"a", "b"})


def test_a_family_term_is_decided_only_where_other_documents_found_it_right():
    # "oxidant" annotated as a whole word in documents a and b; "antioxidant" written in a (annotated
    # inside: the tail) and in c (not annotated). Leaving out c, the prefix term has a's true positive;
    # leaving out a, it is unseen (a prior of 0.5 would pass the threshold of 0.5): not decided at all.
    texts = {"a": "oxidant antioxidant", "b": "an oxidant", "c": "the antioxidant"}
    gold = {
        "a": (Annotation("1", "a", "C:1", (Span(0, 7),)), Annotation("2", "a", "C:1", (Span(12, 19),))),
        "b": (Annotation("3", "b", "C:1", (Span(3, 10),)),),
        "c": (),
    }
    corpus = Corpus(texts, gold)
    prepared = prepare(MatchingSession(texts, {}), corpus, CONFIG, None)
    family = Rules(families=True)
    decision = Decision(threshold=0.5, prior=0.5)
    kept_c = FoldView(prepared, frozenset({"c"})).decide(decision, family)["c"]
    assert kept_c == [((Span(8, 15),), "C:1")]  # "the anti|oxidant": a's record, 1 right of 1
    kept_a = FoldView(prepared, frozenset({"a", "c"}), ["a"]).decide(decision, family)["a"]
    assert kept_a == [((Span(0, 7),), "C:1")]  # the whole word from b's name; the tail not decided
    assert FoldView(prepared, frozenset({"c"})).decide(decision, Rules())["c"] == []


def test_a_model_with_families_annotates_a_prefixed_word_after_a_round_trip(tmp_path):
    # the prefix term's record (1 right of 1) goes through names.tsv and terms.tsv; a new text's
    # "antioxidant" is then annotated over "oxidant" only, and with families off, not at all
    meta = model_meta(CONFIG, families=True)
    names = [NameRow((("oxidant",), "C:1"), 1, 1, (("oxidant", 1),)), NameRow((("^oxidant",), "C:1"), 1, 1, ())]
    terms = [TermRow((("^oxidant",), "C:1"), 1, 1)]
    write_model(tmp_path / "m", meta, names, terms, Decision())
    model = read_model(tmp_path / "m", set_key="X")
    text = {"t": "An antioxidant."}
    got = predict(model, text, ontology=None)["t"]
    assert [(a.spans, a.class_id) for a in got] == [((Span(7, 14),), "C:1")]
    assert text["t"][7:14] == "oxidant"
    off = Model({**model.meta, "rules": {**meta["rules"], "families": False}}, model.names, model.terms)
    assert predict(off, text, ontology=None)["t"] == []
