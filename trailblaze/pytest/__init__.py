"""The pytest plugin (`plugin`, registered as the `pytest11` entry point): options, fixtures,
collecting trail files as items and running them on the engine.

May import: engine and everything below it (tests/project/test_layering.py checks it).
"""
