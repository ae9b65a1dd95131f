"""Classification of an ontology graph: a pure-Python told-subsumption reasoner, or HermiT.

``classify(store, "UBERON+extensions", reasoner="structural")`` writes the inferred
``rdfs:subClassOf`` edges into the derived graph :func:`craftrdf.core.iris.inferred_graph`, which
similarity, the views and the viewer read beside the relations graph (docs/classify.md).
"""
