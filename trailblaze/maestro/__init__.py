"""Maestro flows on trailblaze's engine (docs/adr/0049-maestro-flows.md).

`flow` reads a Maestro flow file (`appId:` header, `---`, a command list) with `file:line` problems;
`commands` knows which Maestro commands run here and why the others do not; `convert` turns a flow
into trail text whose steps record `mobile_maestro` (so replay, reports and exit codes are a trail's);
`params` is that recorded tool; `run` executes Maestro commands on a device session with Maestro's
matching rules (`select`); `importer` writes converted flows as `.trail.yaml` files.

May import: tools, device, screen, common (tests/project/test_layering.py checks it).
"""
