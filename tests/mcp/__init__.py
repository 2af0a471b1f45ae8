"""Tests of `trailblaze.mcp`: the MCP server, its session and surface."""
