"""What is on the screen and how an element is found: the view hierarchy of every platform
(`hierarchy`, `web_hierarchy`), selectors and how they are generated (`selector`, `selector_gen`),
the compact view the model reads (`compact`), occlusion, resolving a selector to a node (`resolve`),
text patterns and saved screens, and the mask that blacks out what shows a secret in a screenshot (`mask`).

May import: common (tests/project/test_layering.py checks it).
"""
