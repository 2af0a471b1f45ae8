"""Tests of `trailblaze.agent`: the agent loop and asking the user."""
