"""The slot error rate training selects by and reports: the official Shared Task scorer's, as ``craftrdf evaluate``.

Every document is scored by :func:`~craftrdf.analysis.evaluation.official.score_official` (Jaccard
boundaries, the official pairing and class renaming) with the Wang similarity over the
official scorer's class graph (:class:`~craftrdf.analysis.evaluation.official_graph.OfficialWang`),
read from the OWL axioms of the set's ontology graph in the store
(:func:`~craftrdf.analysis.evaluation.official_graph.store_wang`): ``is_a``, the genus of
an intersection, equivalences and unions, as owltools walks them. This is what
``craftrdf evaluate --store S`` computes, so a cross-validated score and a test score are
the numbers a user gets from the BioNLP files. The sweeps score with the same functions
(:mod:`craftrdf.matching.sweeps.score`).

A set whose ontology the store does not hold is scored with exact class matches only: the
same scorer over a graph that declares every class seen and has no edge
(:func:`~craftrdf.analysis.evaluation.official.exact_wang`), so a class is similar to itself (1) and
to nothing else (0).
"""

from __future__ import annotations
