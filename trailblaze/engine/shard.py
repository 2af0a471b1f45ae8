"""Splitting a run's trails into N shards, one per CI job (`replay --shard i/N`, `--trailblaze-shard i/N`).

Every job of a CI matrix collects the same trails and keeps its own share, so the CI system's job
matrix is the distributed engine and no scheduler is needed (docs/adr/0027-shards-and-merged-reports.md):

- without durations, the trails are ordered by a stable hash of their key (a path or pytest node id)
  and dealt round-robin, so the shards' sizes differ by at most one and a trail stays in its shard as
  long as the set of trails does not change;
- with the durations of a previous run (`run.json` or JUnit XML), they are packed greedily, longest
  first, into the shard with the least work so far (a trail without a known duration counts as the
  median of the known ones).

Both are deterministic: every job computes the same assignment without talking to the others.
"""

from __future__ import annotations

import hashlib
import os
import statistics
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from trailblaze.errors import UsageError

__all__ = ["Shard", "assign_shards", "load_durations", "parse_shard", "select_shard"]

T = TypeVar("T")


@dataclass(frozen=True)
class Shard:
    index: int
    """1-based: shard 1 of N is the first."""
    total: int

    def __str__(self) -> str:
        return f"{self.index}/{self.total}"


def parse_shard(text: str, flag: str = "--shard") -> Shard:
    """`i/N` with 1 <= i <= N; anything else is a `UsageError` naming the flag and the accepted form."""
    index_text, slash, total_text = text.strip().partition("/")
    try:
        index, total = int(index_text), int(total_text)
    except ValueError:
        index = total = 0
    if not slash or total < 1 or not 1 <= index <= total:
        raise UsageError(
            f"{flag} {text!r}: use i/N with 1 <= i <= N (shard i of N, counted from 1), e.g. {flag} 1/3"
        )
    return Shard(index, total)


def _hash(key: str) -> str:
    return hashlib.blake2b(key.encode("utf-8"), digest_size=8).hexdigest()


def assign_shards(
    keys: Sequence[str], total: int, durations: Mapping[str, float] | None = None
) -> dict[str, int]:
    """The 1-based shard of every key. Duplicate keys share one shard."""
    unique = sorted(set(keys), key=lambda k: (_hash(k), k))
    if not durations:
        return {key: i % total + 1 for i, key in enumerate(unique)}
    known = [durations[k] for k in unique if k in durations]
    fallback = statistics.median(known) if known else 1.0
    weight = {k: durations.get(k, fallback) for k in unique}
    loads = [0.0] * total
    out: dict[str, int] = {}
    for key in sorted(unique, key=lambda k: -weight[k]):  # stable: equal weights keep the hash order
        shard = min(range(total), key=lambda s: (loads[s], s))
        loads[shard] += weight[key]
        out[key] = shard + 1
    return out


def select_shard(
    items: Sequence[T],
    shard: Shard,
    key: Callable[[T], str],
    durations: Mapping[str, float] | None = None,
    aliases: Callable[[T], Iterable[str]] | None = None,
) -> list[T]:
    """The items of `shard`, in their original order.

    `aliases(item)` are further names under which a previous run may have recorded the item's
    duration (its trail id, its path); the first one found in `durations` counts.
    """
    weights: dict[str, float] = {}
    if durations:
        for item in items:
            for name in (key(item), *(aliases(item) if aliases else ())):
                if name in durations:
                    weights[key(item)] = durations[name]
                    break
    owner = assign_shards([key(i) for i in items], shard.total, weights or None)
    return [item for item in items if owner[key(item)] == shard.index]


def load_durations(path: str | os.PathLike[str], flag: str = "--shard-durations") -> dict[str, float]:
    """Seconds per trail from a previous run: a run directory, its `run.json`, or a JUnit XML file.

    Every trail is recorded under each name a later run may look it up by: its path, its id, the id
    with the device (`demo/login[sim:android]`); a JUnit case under its name, `classname::name` and
    `classname.name` (pytest's `--junitxml`), and its `trailblaze.path` property.
    """
    from trailblaze.output.runlog import RUN_FILE, load_run

    source = Path(path)
    hint = "pass the run.json (or run directory) or the JUnit XML of a previous run"
    if source.is_dir() or source.name == RUN_FILE:
        run = load_run(source if source.is_dir() else source.parent)
        out: dict[str, float] = {}
        for trail in run.trails:
            seconds = trail.duration_ms / 1000
            for name in (trail.path, trail.id, f"{trail.id}[{trail.device}]" if trail.id else None):
                if name:
                    out.setdefault(name, seconds)
        return out
    try:
        root = ET.parse(source).getroot()
    except FileNotFoundError:
        raise UsageError(f"{flag} {source}: no such file; {hint}") from None
    except OSError as exc:
        raise UsageError(f"{flag} {source}: cannot read it ({exc.strerror or exc}); {hint}") from None
    except ET.ParseError as exc:
        raise UsageError(f"{flag} {source}: not JUnit XML ({exc}); {hint}") from None
    found: dict[str, float] = {}
    for case in root.iter("testcase"):
        try:
            seconds = float(case.get("time") or 0)
        except ValueError:
            continue
        name, classname = case.get("name", ""), case.get("classname", "")
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        for alias in (
            name,
            f"{classname}::{name}",
            f"{classname}.{name}",
            props.get("trailblaze.path"),
            classname,
        ):
            if alias:
                found.setdefault(alias, seconds)
    return found
