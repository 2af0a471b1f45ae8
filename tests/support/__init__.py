"""Test helpers, the one place for them (ADR 0062): tests import `tests.support.X`; nothing here imports a
test module, and no test module imports another (tests/project/test_support_layout.py checks both)."""
