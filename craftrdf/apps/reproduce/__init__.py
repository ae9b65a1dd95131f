"""``craftrdf reproduce``: the corpus papers' tables rebuilt from the store, beside the published values.

:mod:`.published` holds the published figures (``published.toml``), :mod:`.sections`
computes craftrdf's (counts, Uberon statistics, sweeps, similarity), :mod:`.report` and
:mod:`.figures` write them, :mod:`.run` ties them together.
"""
