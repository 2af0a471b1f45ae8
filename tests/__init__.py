"""The test suite: a package, so test modules are imported by their full name (`tests.engine.test_x`)
and two folders may hold test files of the same name. Helpers live in `tests.support`."""
