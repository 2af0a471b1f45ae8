"""Building blocks every layer may use and that know nothing of trails, devices or tools: atomic
file writes and locks (`files`), size limits (`limits`), reading a text file once with its limit
(`text_files`), a large JSON file read one item at a time (`json_stream`), the YAML layer that keeps
positions (`yaml_lines`), secret redaction (`redact`, `redact_values`, `secret_sources`), printable
text, numbers-as-text and screenshot bytes.

May import: errors (tests/project/test_layering.py checks it).
"""
