"""How big a trail file may be: bounds that keep a hostile file from exhausting memory, stack or time.

A trail is a few kilobytes written by a person; these limits are far above any real trail and far
below what would hurt a CI machine (a 412-byte file of nested aliases once expanded to 3.6 GB).
"""

from __future__ import annotations

import os

__all__ = [
    "MAX_DEPTH",
    "MAX_ERASE_CHARACTERS",
    "MAX_FLOW_COMMANDS",
    "MAX_FLOW_DEPTH",
    "MAX_RANDOM_TEXT",
    "MAX_REPEAT_ROUNDS",
    "MAX_REPEAT_TIMES",
    "MAX_TAP_REPEAT",
    "MAX_EXPANDED_STEPS",
    "MAX_NODES",
    "MAX_RUNTRAIL_DEPTH",
    "MAX_TRAIL_BYTES_ENV",
    "max_trail_bytes",
]

MAX_DEPTH = 100  # nested lists / maps; a trail needs about 8
MAX_NODES = 20_000  # YAML nodes in one document; a long real trail has a few thousand
MAX_RUNTRAIL_DEPTH = 16
"""Trails running trails (`runTrail`), the outermost counted: real suites nest two or three. Replay
would exhaust Python's stack near 100, and each level nests run.json four levels deeper, so
`validate`, `replay` and `report` all hold to this one number."""
MAX_EXPANDED_STEPS = 10_000
"""Steps of a trail with every `runTrail` expanded: a trail calling the next twice, 20 deep, is a
million steps; a real suite is a few hundred."""
MAX_FLOW_DEPTH = 16
"""Maestro flow files running each other (`runFlow: file`), each file counted once."""
MAX_FLOW_COMMANDS = 10_000
"""Maestro commands of a flow with every `runFlow` / `retry` file read in: counted while expanding, so a
few kilobytes of files each running the next twenty times fail in milliseconds, not after gigabytes."""
MAX_REPEAT_TIMES = 1_000
"""`repeat: times:`; a real flow repeats a few times, a hostile one a billion."""
MAX_REPEAT_ROUNDS = 10_000
"""The product of nested `repeat: times:`: three nested repeats of 1,000 are a billion rounds, where
each alone is within `MAX_REPEAT_TIMES`."""
MAX_TAP_REPEAT = 100
"""`tapOn: repeat:`."""
MAX_RANDOM_TEXT = 1_000
"""`inputRandomText` / `inputRandomNumber` `length`: characters typed."""
MAX_ERASE_CHARACTERS = 10_000
"""`eraseText`: characters erased (Maestro erases 50 by default)."""
MAX_TRAIL_BYTES_ENV = "TRAILBLAZE_MAX_TRAIL_BYTES"
_DEFAULT_MAX_BYTES = 1024 * 1024  # parsing pure-Python YAML runs at ~1 MB/s at worst


def max_trail_bytes() -> int:
    """The largest trail file read: `$TRAILBLAZE_MAX_TRAIL_BYTES`, else 1 MB (a bad value: the default)."""
    raw = os.environ.get(MAX_TRAIL_BYTES_ENV, "").strip()
    try:
        value = int(raw)
    except ValueError:
        return _DEFAULT_MAX_BYTES
    return value if value > 0 else _DEFAULT_MAX_BYTES
