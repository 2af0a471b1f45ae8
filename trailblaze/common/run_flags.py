"""The run options every front end takes, and how each spells them: one table that the CLI's click
options, the pytest plugin's `addoption`s, the MCP server's command line and the hints' `Flags`
(`trailblaze.common.flags`) take their names from (issue 46 item 2; docs/adr/0055-front-end-flags.md).

A row is one option by what it does (`secret`, `model`, …): its spelling on `trailblaze record` /
`replay` (`cli`), in pytest (`pytest`; None: pytest has no such flag, a test passes the value in
Python) and whether `trailblaze mcp` takes the CLI's (`mcp`). Each front end's help texts are its own;
the names are not: rename an option here and every front end, and every hint that names it, follows.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["OPTIONS", "RunFlag", "plugin_flag"]


@dataclass(frozen=True)
class RunFlag:
    """One run option's spellings."""

    cli: str
    pytest: str | None
    mcp: bool = False
    """`trailblaze mcp` takes the CLI's spelling (the server's own runs)."""


OPTIONS: dict[str, RunFlag] = {
    "device": RunFlag("--device", "--device", mcp=True),
    "secret": RunFlag("--secret", "--trailblaze-secret", mcp=True),
    "secret_file": RunFlag("--secret-file", "--trailblaze-secret-file", mcp=True),
    "script_host": RunFlag("--script-host", "--trailblaze-script-host", mcp=True),
    "memory": RunFlag("--memory", None),
    "arg": RunFlag("--arg", None),
    "model": RunFlag("--model", "--trailblaze-model"),
    "llm_base_url": RunFlag("--llm-base-url", "--trailblaze-llm-base-url"),
    "llm_timeout": RunFlag("--llm-timeout", "--trailblaze-llm-timeout"),
    "llm_retries": RunFlag("--llm-retries", "--trailblaze-llm-retries"),
    "self_heal": RunFlag("--self-heal", "--self-heal"),
    "rerecord": RunFlag("--rerecord", None),
    "trail_timeout": RunFlag("--trail-timeout", "--trailblaze-trail-timeout"),
    "install": RunFlag("--install", "--trailblaze-install"),
    "reinstall": RunFlag("--reinstall", "--trailblaze-reinstall"),
}
"""Every run option a hint may name or more than one front end takes, by what it does."""


def plugin_flag(key: str) -> str:
    """The pytest plugin's spelling of the option `key` (one it has)."""
    flag = OPTIONS[key].pytest
    if flag is None:
        raise KeyError(f"pytest has no flag for {key}")
    return flag
