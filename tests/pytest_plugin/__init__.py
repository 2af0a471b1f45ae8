"""Tests of `trailblaze.pytest`: the pytest plugin (a folder not named `pytest`, so no package shadows it)."""
