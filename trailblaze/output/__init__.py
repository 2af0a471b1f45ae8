"""What a run reports and leaves behind: the events every listener of a run implements (`events`), the
run log's models (`runlog`), the in-memory bookkeeper (`observer`) and the run directory (`rundir`)
the engine reports to, what a step solver returns (`step_result`), screenshots off the critical path
(`artifacts`), the HTML report (`report`, its pictures `report_images`, `_html`), JUnit XML
(`junit`), merging shards (`merge`) and what a result means for CI (`ci_policy`).

May import: mutation, trail, tools, llm, device, screen, common (tests/project/test_layering.py checks it).
"""
