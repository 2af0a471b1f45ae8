"""Trailblaze's catalog tools beyond the core recorded set (docs/trailblaze-catalog.md).

`params` holds their typed params (registered in `trailblaze.recorded_tools.RECORDED_TOOL_PARAMS`),
`handlers` runs them (dispatched by `trailblaze.execute`). Names and params are Trailblaze's.
"""
