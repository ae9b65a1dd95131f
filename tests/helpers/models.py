"""A trained model's model.json content for tests that write a model folder by hand."""

from __future__ import annotations

from typing import Any

from craftrdf.matching.matcher.config import MatcherConfig
from craftrdf.matching.training.folder import FORMAT, VERSION


def model_meta(config: MatcherConfig, *, families: bool = False) -> dict[str, Any]:
    """model.json of a set X trained on one document "a": threshold 0.5, prior 0.5, no learned decision."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "set": "X",
        "configuration": config.params(),
        "decision": {"threshold": 0.5, "prior": 0.5, "weight": 1.0, "backoff": 2.0},
        "rules": {"abbreviations": False, "coordination": False, "families": families},
        "learned": None,
        "trained_on": {"splits": ["train"], "documents": ["a"]},
    }
