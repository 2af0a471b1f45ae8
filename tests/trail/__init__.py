"""Tests of `trailblaze.trail`: the trail file format, its reader, schema, limits and sub-trails."""
