"""Trailblaze's catalog tools beyond the core recorded set (docs/trailblaze-catalog.md).

`params` holds their typed params (each with its handler one `ToolDef`, collected by `trailblaze.toolset.registry`),
`handlers` runs them (dispatched by `trailblaze.execute`). Names and params are Trailblaze's.
"""
