"""Tests of `trailblaze.cli`: the commands end to end, as a user runs them in a subprocess."""
