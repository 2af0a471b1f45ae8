"""The one tool set (ADRs 0050, 0059): a tool of any kind is one `ToolDef` (`tooldef`). The built-in
recorded tools are defined in `core`, `compat`, `catalog/` and `probes/` (and Maestro's in its own
tier, `trailblaze.maestro`) and collected by `builtin`; the tools the model calls by ref are defined in `llm_tools`; a project's Python and
YAML tools come from `custom`, `yaml_tools` and `discovery`. A run has one `ToolSet` (`toolset`,
also the public face: `all_tools`, `ToolSet`, `defines`) that looks tools up and runs them. A
recorded call is a `ToolCall` (`call`), validated against its tool's params (`params`,
`recorded`); `execute` runs a built-in one. The run's memory of remembered values is here too
(`memory`).

May import: llm, device, screen, common (tests/project/test_layering.py checks it).
"""
