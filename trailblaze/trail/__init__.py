"""The trail file: the model (`model`: `Trail`, `TrailStep`, `load_trail`, `save_trail`), the
reader and writer that keep the file's own text (`_reader`, `_writer`, `_parts`), Markdown test
cases (`_markdown`), finding trail files (`discovery`), `{{templates}}` (`variables`), sub-trails
(`subtrail`) and the JSON schema of the format (`schema`). A Maestro flow is read through
`trailblaze.maestro`.

May import: maestro, tools, screen, common (tests/project/test_layering.py checks it).
"""
