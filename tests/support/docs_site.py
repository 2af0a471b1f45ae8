"""The docs site's build hook (docs/_hooks/reference.py), loaded as a module for tests."""

from __future__ import annotations

import importlib.util
import sys
from functools import cache
from types import ModuleType

from tests.support.paths import ROOT


@cache
def reference_hook() -> ModuleType:
    """The hook module; its `*_page()` functions return the reference pages the site builds."""
    name = "trailblaze_docs_reference_hook"
    spec = importlib.util.spec_from_file_location(name, ROOT / "docs" / "_hooks" / "reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module
