"""A ConceptMapper-like dictionary matcher over the store's ontologies (docs/matcher.md).

The stages, each its own module: :mod:`.config` (the seven parameters and their grid),
:mod:`.tokenize` (sentences and tokens), :mod:`.normalize` (case, stemmer, stop words),
:mod:`.dictionary` (names from the store, normalized, cached), :mod:`.search` (the
matching itself) and :mod:`.annotate` (orchestration, shared work) and
:mod:`.run` (a run's inputs and outputs).

>>> from craftrdf.matching.matcher.config import MatcherConfig
>>> from craftrdf.matching.matcher.annotate import annotate_texts
>>> out = annotate_texts({"d": "The lens fibers."}, {"UBERON:0002444": "lens fiber"}, MatcherConfig())
>>> [(a.class_id, a.spans[0].start, a.spans[0].end) for a in out["d"]]
[('UBERON:0002444', 4, 15)]
"""
