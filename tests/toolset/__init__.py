"""Tests of `trailblaze.tools`: the tool model, built-in, catalog, custom and Maestro tools, probes, memory."""
