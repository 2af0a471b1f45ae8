"""Tests of `trailblaze.common` and the top-level modules (`errors`): redaction, printable text, secrets' sources."""
