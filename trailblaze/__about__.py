"""The version of trailblaze, in one place.

The build reads it (`pyproject.toml`: `[tool.setuptools.dynamic]`), `trailblaze --version` prints it,
and the driver distributions (`drivers/*/pyproject.toml`) and the CI workflow `trailblaze init`
writes pin the same number (tests/project/test_packaging.py checks that they agree).
"""

__version__ = "0.1.0"
