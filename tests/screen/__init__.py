"""Tests of `trailblaze.screen`: the node model, the compact view, selectors, occlusion, masking."""
