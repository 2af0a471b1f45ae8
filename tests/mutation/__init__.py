"""Tests of `trailblaze.mutation`: app mutants and recorded assertions that can fail."""
