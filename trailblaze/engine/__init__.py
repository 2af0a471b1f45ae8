"""Running trails: the one step engine (`steps`) steered by policy objects (`policy`: replay,
heal, proof, record, re-record), the run options (`options`), replay and record entry points
(`replay`, `runner`), the proof replay, self-heal diagnostics (`heal`), retries, sharding,
pre-flight checks and `trailblaze check` (`check`).

May import: output, agent, mutation, trail, tools, llm, device, screen, common (tests/project/test_layering.py checks it).
"""
