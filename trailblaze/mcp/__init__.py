"""`trailblaze mcp`: drive a device and author trails from any MCP client (Claude Code, Claude Desktop, …).

`session` holds the device, the secrets and the trail being recorded (no SDK); `surface` lists the
tools; `server` serves them with the `mcp` SDK (an optional extra: `pip install 'trailblaze[mcp]'`).
See docs/adr/0030-mcp-server.md.
"""
