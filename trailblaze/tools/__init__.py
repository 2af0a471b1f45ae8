"""The one tool set (ADR 0050): a tool is one `ToolDef` (`tooldef`); the built-in tools are defined
in `core`, `compat`, `catalog/`, `probes/` and `maestro/` and collected by `registry`; `toolset`
is the public face (`all_tools`, `ToolSet`, `defines`). A recorded call is a `ToolCall` (`call`),
validated against its tool's params (`params`, `recorded`); `execute` runs one; `llm_tools` are
the ref-based tools the model is offered; `custom`, `yaml_tools` and `discovery` bring a project's
own tools. The run's memory of remembered values is here too (`memory`).

May import: llm, device, screen, common (tests/test_layering.py checks it).
"""
