"""Tests of `trailblaze.testing`: the test doubles and corpora the library ships."""
