"""Semantic similarity of ontology classes (Wang et al. 2007) over the graph in the store.

>>> from craftrdf.analysis.similarity.wang import WangIndex
>>> idx = WangIndex({"organelle": {"component": 0.8}, "nucleus": {"organelle": 0.8}, "component": {}})
>>> round(idx.similarity("nucleus", "organelle"), 4)  # (0.8+0.64 + 1+0.8) / (2.44 + 1.8)
0.7642

From a store::

    import craftrdf
    idx = craftrdf.similarity_index(store)              # is_a 0.8, part_of 0.6; all ontologies
    idx.similarity("UBERON:0000955", "UBERON:0001017")  # brain vs central nervous system
    idx.pairs(terms_a, terms_b)                         # numpy array, one value per pair
    idx.matrix(terms)                                   # all pairs, numpy matrix
    idx.top_k("UBERON:0000955", 10)                     # [(term, similarity), ...]
    idx.group(doc1_terms, doc2_terms, combine="bma")    # as GOSemSim's mgoSim

See ``docs/similarity.md`` for the definitions, the defaults and the decisions.
"""
