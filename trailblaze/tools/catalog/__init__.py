"""Trailblaze's catalog tools beyond the core recorded set (docs/trailblaze-catalog.md).

`params` holds their typed params; `handlers` makes each one `ToolDef` with its handler (collected by
`trailblaze.tools.builtin`, run by `trailblaze.tools.execute`). Names and params are Trailblaze's.
"""
