"""The `trailblaze` command (`main`), `trailblaze init` (`scaffold`, `ci_workflow`).

May import: every package (tests/test_layering.py checks it).
"""
