"""Tests of `trailblaze.results`: the results store, `trailblaze results` and its gate."""
