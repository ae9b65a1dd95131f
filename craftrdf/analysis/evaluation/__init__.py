"""Scoring predicted annotations against a reference.

:mod:`craftrdf.analysis.evaluation.official` is the CRAFT Shared Task metric as the official
scorer computes it, rule for rule (slot error rate with Jaccard or exact boundaries and the
Wang similarity), over the class graph of :mod:`craftrdf.analysis.evaluation.official_graph`
(:mod:`~craftrdf.analysis.evaluation.official_index` offers that similarity as an index);
:mod:`craftrdf.analysis.evaluation.scores` is the one record of its counts and rates that every
output reads; :mod:`craftrdf.analysis.evaluation.criteria` the classic NER matching criteria
(Tsai et al. 2006); :mod:`craftrdf.analysis.evaluation.metrics` precision, recall, F1 and the
slot error rate, written once; :mod:`craftrdf.analysis.evaluation.inputs` reads gold and
predictions and holds them against the article texts; :mod:`craftrdf.analysis.evaluation.run`
scores them set by set and writes the report files (the ``craftrdf evaluate`` command). See
``docs/evaluation.md``.
"""
