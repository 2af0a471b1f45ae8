"""The engine's own recorded tools, one module per family: each tool's typed params and its handler.

A recording stores a tool as `{toolName: {params}}`. For these names the params are validated
against the models of this package when a trail loads (unknown keys, wrong types and out-of-range
enums are errors); any other name is a custom tool whose params are kept verbatim. Field names are
the YAML keys, so a validation error location is also a path in the file. `{{var}}` templates are
plain text here: they are interpolated at dispatch, never at load.

Each model is the params of one `ToolDef`, defined with its handler beside it in the same module;
the generated index (`trailblaze.tools._index`) names each tool's module, so a trail imports the
families of the tools it names and no other, and a handler imports what it runs on when it runs
(start-up, docs/adr/0063-start-up.md):

- `selector`: an element found by its `nodeSelector` (tap, assert visible, remember its text);
- `keyboard`: typing, erasing, the keyboard and the keys;
- `gestures`: taps on a point and swipes;
- `text`: an element found by its text (scroll until visible, assert not visible);
- `app`: launching the app;
- `flow`: waiting and running another trail;
- `compat`: Trailblaze's older, Maestro-shaped tools (read, never recorded here).
"""
