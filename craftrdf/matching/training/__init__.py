"""A matcher that learns from gold: names annotators wrote, what they did not mean, abbreviations, coordination.

``craftrdf train`` (:func:`train_set`) learns, from the gold of the chosen documents
only, the names annotators wrote (:mod:`.names`), each term's precision where it occurs
(:mod:`.engine`), and chooses the matcher configuration, the decision threshold and the
rules together by document-level cross-validation (:mod:`.select`); abbreviations
(:mod:`.abbreviations`, Schwartz & Hearst 2003) and coordinated elided heads
(:mod:`.rules`) are rules the selection may turn on. The model is a folder of plain
files (:mod:`.folder`); :func:`annotate_with_model` applies it. See docs/training.md.
"""
