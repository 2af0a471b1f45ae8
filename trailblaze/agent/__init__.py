"""The recording agent: the plain while loop that asks the model for one tool at a time (`loop`)
and the question it may put to the person at the terminal (`ask`).

May import: output, mutation, trail, tools, llm, device, screen (tests/project/test_layering.py checks it).
"""
