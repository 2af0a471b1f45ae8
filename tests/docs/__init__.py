"""Tests of the docs: every documented command runs as written, the site builds, the docs stay true."""
