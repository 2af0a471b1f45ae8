"""A device and a session on it: the `Driver` Protocol every driver plugin implements (`driver`),
opening a device from a spec (`devices`), the session with settle detection (`session`, `settle`)
and what it does about transient device faults (`hiccups`),
app install and permissions, device logs and queries, and the simulator plug-in lookup
(`simulator`).

May import: screen, common (tests/project/test_layering.py checks it).
"""
