"""A clock the test moves by hand."""

from __future__ import annotations


class Clock:
    def __init__(self, now: float = 1000.0, step: float = 0.0) -> None:
        self.now = now
        self.step = step
        """Seconds every reading adds after it is read (a request that takes time)."""

    def __call__(self) -> float:
        now = self.now
        self.now += self.step
        return now

    def advance(self, seconds: float) -> None:
        self.now += seconds
