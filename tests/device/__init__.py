"""Tests of `trailblaze.device`: sessions, settling, device faults, queries, installs, device specs."""
