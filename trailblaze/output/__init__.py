"""What a run leaves behind: the run log's models (`runlog`), the observer the engine reports to
(`observer`) and the run directory that implements it (`rundir`), screenshots off the critical
path (`artifacts`), the HTML report (`report`, its pictures `report_images`, `_html`), JUnit XML
(`junit`), merging shards (`merge`) and what a result means for CI (`ci_policy`).

May import: agent, trail, tools, llm, device, screen, common (tests/project/test_layering.py checks it).
"""
