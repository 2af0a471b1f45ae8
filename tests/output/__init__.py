"""Tests of `trailblaze.output`: run directories, reports, JUnit, CI verdicts, storyboards."""
