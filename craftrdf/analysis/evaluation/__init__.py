"""Scoring predicted annotations against a reference.

:mod:`craftrdf.analysis.evaluation.bossy` is the CRAFT Shared Task metric (slot error rate with
Jaccard or exact boundaries and a class similarity); :mod:`craftrdf.analysis.evaluation.criteria`
the classic NER matching criteria (Tsai et al. 2006); :mod:`craftrdf.analysis.evaluation.official`
and :mod:`craftrdf.analysis.evaluation.official_graph` the official CRAFT-ST scorer's rules and
class graph, rule for rule; :mod:`craftrdf.analysis.evaluation.inputs` reads gold and predictions
and holds them against the article texts; :mod:`craftrdf.analysis.evaluation.run` scores them set
by set and writes the report files (the ``craftrdf evaluate`` command). See ``docs/evaluation.md``.
"""
