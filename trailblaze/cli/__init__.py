"""The `trailblaze` command (`main`), `trailblaze init` (`scaffold`, `ci_workflow`).

May import: every package (tests/project/test_layering.py checks it).
"""
