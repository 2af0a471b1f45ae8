"""One read of a run's trails feeds JUnit, Allure and CTRF (`trailblaze.output.fan_out`): every writer
sees every trail in order, a writer that fails or stops early does not stop the others, and an error
while reading is raised once the writers have ended."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import islice

import pytest

from trailblaze.output.fan_out import fan_out


def test_every_writer_sees_every_item_in_order_and_a_failing_one_stops_none() -> None:
    read: list[int] = []

    def items() -> Iterator[int]:
        for n in range(50):
            read.append(n)
            yield n

    def broken(trails: Iterable[int]) -> list[int]:
        for n in trails:
            if n == 3:
                raise OSError("disk full")
        return []

    outcomes = fan_out(items(), [list, broken, lambda trails: list(islice(trails, 2)), list])
    assert read == list(range(50))  # read once
    assert outcomes[0].value == outcomes[3].value == list(range(50))
    assert isinstance(outcomes[1].error, OSError) and outcomes[1].value is None
    assert outcomes[2].value == [0, 1]


def test_an_error_while_reading_is_raised_after_the_writers_end() -> None:
    seen: list[int] = []

    def items() -> Iterator[int]:
        yield 1
        raise ValueError("run.json is cut short")

    def writer(trails: Iterable[int]) -> int:
        seen.extend(trails)
        return len(seen)

    with pytest.raises(ValueError, match="cut short"):
        fan_out(items(), [writer])
    assert seen == [1]
