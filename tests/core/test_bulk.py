"""The cyclic collector's pause around bulk building: off inside, as it was after, also after an error."""

from __future__ import annotations

import gc

import pytest

from craftrdf.core.bulk import no_cycle_collection


def test_the_collector_is_paused_inside_and_restored_after():
    assert gc.isenabled()
    with no_cycle_collection():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(ValueError, match="a bad line"), no_cycle_collection():
        raise ValueError("a bad line")
    assert gc.isenabled()


def test_a_collector_off_before_stays_off():
    gc.disable()
    try:
        with no_cycle_collection():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_as_a_decorator_each_call_pauses_it():
    @no_cycle_collection()
    def build() -> bool:
        return gc.isenabled()

    assert build() is False and build() is False  # reusable: a fresh pause per call
    assert gc.isenabled()
