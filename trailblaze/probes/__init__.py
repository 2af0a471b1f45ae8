"""App-state probes: recorded tools that read what an Android app stored (shared preferences, its
SQLite database) and switch the device's network, through `run-as` and the device shell
(docs/adr/0031-app-state-probes.md).

`params` holds their typed params (each with its handler one `ToolDef`, collected by `trailblaze.toolset.registry`),
`handlers` runs them (dispatched by `trailblaze.execute`); `prefs` parses SharedPreferences XML,
`sql` keeps queries read-only and reads sqlite3's output, `network` switches radios and restores
them when the trail ends.
"""
