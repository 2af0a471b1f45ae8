"""Tests of `trailblaze.engine`: replay, record, policies, run options, sharding, preflight."""
