"""Trailblaze's catalog tools beyond the core recorded set (docs/trailblaze-catalog.md).

`params` holds their typed params; `handlers` makes each one `ToolDef` with its handler (collected by
`trailblaze.toolset.registry`, run by `trailblaze.execute`). Names and params are Trailblaze's.
"""
