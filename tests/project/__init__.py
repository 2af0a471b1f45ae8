"""Tests of the project as a whole: package layering, light imports, packaging, workflows, the suite's layout."""
