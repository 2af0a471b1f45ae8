"""App-state probes: recorded tools that read what an Android app stored (shared preferences, its
SQLite database) and switch the device's network, through `run-as` and the device shell
(docs/adr/0031-app-state-probes.md).

`handlers` (prefs, databases, network) and `logs` define each one, its params beside its handler
(collected by `trailblaze.tools.builtin`, run by `ToolSet.run`), with what the params share in
`params`; `prefs` parses
SharedPreferences XML, `sql` keeps queries read-only and reads sqlite3's output, `network` switches
radios and restores them when the trail ends.
"""
