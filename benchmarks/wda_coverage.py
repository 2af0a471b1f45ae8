"""Which facebook-wda public calls the test suite exercises against the simulated WebDriverAgent.

Wraps every public method and property of facebook-wda's `BaseClient` (Client / Session), `Selector`,
`Element` and `Alert` with a recorder, runs the iOS test files in this process (the unmodified client
over real sockets, as the tests always do), and prints each call exercised and their count.
Run: `python benchmarks/wda_coverage.py [TEST_FILE ...]`.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import wda

DEFAULT_TESTS = [
    "tests/sim/test_sim_ios_wda.py",
    "tests/sim/test_sim_ios_fidelity.py",
    "tests/sim/test_sim_ios_faults.py",
    "tests/device/test_launch_not_installed.py",
    "tests/drivers/test_driver_common.py",
    "tests/drivers/test_driver_errors.py",
]
_CLASSES: dict[str, type] = {
    "Client": wda.BaseClient,
    "Selector": wda.Selector,
    "Element": wda.Element,
    "Alert": wda.Alert,
}
# Public names that are not device calls: helpers, callbacks and reporting hooks.
_NOT_CALLS = {"register_callback", "unregister_callback", "callbacks", "http", "set_timeout"}


def _recording(name: str, fn: Callable[..., Any], seen: set[str]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        seen.add(name)
        return fn(*args, **kwargs)

    return wrapper


def instrument(seen: set[str]) -> list[str]:
    """Wraps the public API in place; returns every public call name (for the "not exercised" list)."""
    names: list[str] = []
    for label, cls in _CLASSES.items():
        for attr, value in list(vars(cls).items()):
            if attr.startswith("_") or attr in _NOT_CALLS:
                continue
            name = f"{label}.{attr}"
            if isinstance(value, property) and value.fget is not None:
                setter = _recording(name + " (set)", value.fset, seen) if value.fset is not None else None
                setattr(cls, attr, property(_recording(name, value.fget, seen), setter, value.fdel))
                names.append(name)
                if setter is not None:
                    names.append(name + " (set)")
            elif isinstance(value, functools.cached_property):
                if attr in ("alibaba", "taobao"):  # shortcuts to sessions of two specific apps
                    continue
                cached = functools.cached_property(_recording(name, value.func, seen))
                cached.__set_name__(cls, attr)
                setattr(cls, attr, cached)
                names.append(name)
            elif callable(value) and not isinstance(value, type):
                setattr(cls, attr, _recording(name, value, seen))
                names.append(name)
    return names


def main(argv: list[str]) -> int:
    root = Path(__file__).resolve().parents[1]
    sys.path.insert(0, str(root))  # `tests.support.device`, as `python -m pytest` from the root sees it
    os.chdir(root)
    seen: set[str] = set()
    names = instrument(seen)
    code = pytest.main(["-q", "-p", "no:cacheprovider", *(argv or DEFAULT_TESTS)])
    exercised = sorted(seen)
    print("\nfacebook-wda public calls exercised:")
    for name in exercised:
        print(f"  {name}")
    print(f"not exercised: {', '.join(n for n in names if n not in seen)}")
    print(f"exercised {len(exercised)} of {len(names)} public calls")
    return int(code)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
