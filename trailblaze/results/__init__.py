"""The results store: every replay's, pytest run's and record proof's trail results, kept across runs
so `trailblaze results` can say which trails are flaky, on which device, at which step, since which
commit (ADR 0072).

`store` opens it (SQLite by default, `.trailblaze/results.db`; PostgreSQL for a shared one), `ingest`
turns a run directory's `run.json` into rows, `query` answers the table, `--flaky` and `--gate`, and
`hook` is what `replay`, `record` and the pytest plugin call when a run ends: it never fails the run.
"""
