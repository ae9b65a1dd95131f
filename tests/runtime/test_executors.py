"""The executors' sharing of a payload with their workers."""

from __future__ import annotations

import os
import time

from craftrdf.runtime.executors import LocalPool, installed


class Counted:
    """A payload that counts how often this process pickles it."""

    pickled = 0

    def __init__(self, token: str) -> None:
        self.token = token

    def __getstate__(self) -> dict[str, str]:
        type(self).pickled += 1
        return {"token": self.token}

    def __setstate__(self, state: dict[str, str]) -> None:
        self.token = state["token"]


def token_in_worker(token: str) -> tuple[int, str]:
    time.sleep(0.3)  # long enough that the pool starts its second worker for the next task
    return os.getpid(), installed(token).token


def test_a_local_pool_pickles_its_payload_once_for_all_its_workers():
    payload = Counted("once")
    with LocalPool(2) as pool:
        token = pool.share(payload)
        results = [f.result() for f in [pool.submit(token_in_worker, token) for _ in range(4)]]
    assert [t for _, t in results] == ["once"] * 4
    assert len({pid for pid, _ in results}) == 2  # two workers received it
    assert Counted.pickled == 1
