"""Tests of `trailblaze.llm`: the model clients, providers and model choice."""
