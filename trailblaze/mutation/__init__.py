"""Proving that an assertion can fail: what a verify tool claims about the screen (`facts`), the
mutants that contradict it (`mutants`), and the gate the recorder passes every assertion through
before it is written (`gate`).

May import: trail, tools, device, screen (tests/project/test_layering.py checks it).
"""
