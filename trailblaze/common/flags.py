"""How each front end spells the options a hint tells the person to pass (docs/adr/0055-front-end-flags.md).

The engine, the tools and the LLM adapters are shared by the CLI, the pytest plugin and the MCP
server, and their hints name options: `pass --secret password=VALUE`. pytest spells that option
`--trailblaze-secret`, and the MCP server takes it when it starts. So a hint never writes a flag
itself: it asks the `Flags` of the run, which each front end picks (`CLI`, `PYTEST`, `MCP`, spelled from the one table of run options,
`trailblaze.common.run_flags`) and hands
down with the run's inputs (`RunInputs.flags`, then the run's `Memory`). A phrase is None where that
front end has no such option.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from trailblaze.common.run_flags import OPTIONS, plugin_flag

__all__ = ["CLI", "MCP", "PYTEST", "Flags"]


@dataclass(frozen=True)
class Flags:
    """One front end's spelling of every option a hint may name; `{name}`, `{spec}`, `{file}` are filled in."""

    front_end: str
    """`cli`, `pytest` or `mcp`."""
    secret: str
    """Gives a secret: `--secret {name}=VALUE`."""
    other_values: str | None
    """Gives a plain value instead of a secret (memory or arg): `--memory / --arg {name}=VALUE`."""
    memory: str | None
    arg: str | None
    model: str | None
    llm_base_url: str | None
    llm_timeout: str | None
    llm_retries: str | None
    self_heal: str | None
    rerecord: str | None
    trail_timeout: str | None = "--trail-timeout SECONDS"
    install: str | None = "--install"
    reinstall: str | None = "--reinstall"
    script_host: str = "--script-host {host}"
    """Lets Maestro scripts reach one more host (trailblaze.maestro.script_http)."""
    record: str = "trailblaze record {file} --device {spec}"
    """Records a trail's missing steps; every front end records through the CLI (or the MCP tools)."""
    carried: tuple[str, ...] = ()
    """The run's own options a suggested command needs to run as pasted, in the CLI's spelling:
    `--secret password` (a secret's name, never its value), `--secret-file .env`, `--memory user=ada`."""

    def give(self, name: str, scope: str | None = None) -> str:
        """How to give `{{name}}` (`{{args.name}}`, … by `scope`) a value: `pass --secret name=VALUE, …`."""
        if scope == "secrets":
            return f"pass {self.secret.format(name=name)}"
        if scope in ("args", "memory"):
            passing = self.passing(name, scope)
            return f"{passing}, or set it in config.{scope}" if passing else f"set it in config.{scope}"
        other = f" (or {self.other_values.format(name=name)})" if self.other_values else ""
        return f"pass {self.secret.format(name=name)}{other}, or set it in config.memory"

    def passing(self, name: str, scope: str) -> str | None:
        """`pass --arg name=VALUE` for `args` (`memory`, `secrets`); None when this front end cannot."""
        phrase = {"args": self.arg, "memory": self.memory, "secrets": self.secret}[scope]
        return f"pass {phrase.format(name=name)}" if phrase else None

    def record_trail(self, file: str, spec: str, *more: str) -> str:
        """The `trailblaze record` command for `file` on `spec`, with the run's options and `more`."""
        return " ".join([self.record.format(file=file, spec=shlex.quote(spec)), *self.carried, *more])

    def replay_trail(self, file: str, spec: str) -> str:
        """The `trailblaze replay` command for `file` on `spec`, with the run's options."""
        return " ".join(["trailblaze replay", file, "--device", shlex.quote(spec), *self.carried])

    def carrying(
        self,
        secrets: Iterable[str] = (),
        secret_files: Iterable[str] = (),
        memory: Mapping[str, str] | None = None,
        args: Mapping[str, str] | None = None,
    ) -> Flags:
        """These flags, with the options a pasted command needs: the secrets by name (`--secret NAME`
        reads `TRAILBLAZE_SECRET_NAME`), the secret files, and the memory and argument values."""
        names = dict.fromkeys(text.partition("=")[0].strip() for text in secrets)
        carried = [
            *(f"--secret-file {shlex.quote(path)}" for path in secret_files),
            *(f"--secret {shlex.quote(name)}" for name in names if name),
            *(f"--memory {shlex.quote(f'{k}={v}')}" for k, v in (memory or {}).items()),
            *(f"--arg {shlex.quote(f'{k}={v}')}" for k, v in (args or {}).items()),
        ]
        return replace(self, carried=tuple(carried))


def _cli(key: str, value: str = "") -> str:
    return f"{OPTIONS[key].cli} {value}".rstrip()


def _pytest(key: str, value: str = "") -> str:
    return f"{plugin_flag(key)} {value}".rstrip()


def _to_mcp(key: str, value: str) -> str:
    return f"{OPTIONS[key].cli} {value} to `trailblaze mcp` (restart the server with it)"


_IN_A_TEST = "to trail_runner.replay() in a Python test"

CLI = Flags(
    front_end="cli",
    secret=_cli("secret", "{name}=VALUE"),
    other_values=f"{OPTIONS['memory'].cli} / {_cli('arg', '{name}=VALUE')}",
    memory=_cli("memory", "{name}=VALUE"),
    arg=_cli("arg", "{name}=VALUE"),
    model=_cli("model", "PROVIDER:MODEL"),
    llm_base_url=_cli("llm_base_url"),
    llm_timeout=_cli("llm_timeout", "SECONDS"),
    llm_retries=_cli("llm_retries", "N"),
    self_heal=_cli("self_heal"),
    rerecord=_cli("rerecord"),
    trail_timeout=_cli("trail_timeout", "SECONDS"),
    install=_cli("install"),
    reinstall=_cli("reinstall"),
    script_host=_cli("script_host", "{host}"),
)

PYTEST = Flags(
    front_end="pytest",
    secret=_pytest("secret", "{name}=VALUE"),
    other_values=f"{{name}}=VALUE {_IN_A_TEST}",
    memory=f"{{name}}=VALUE {_IN_A_TEST}",
    arg=f"args={{{{'{{name}}': VALUE}}}} {_IN_A_TEST}",
    model=_pytest("model", "PROVIDER:MODEL"),
    llm_base_url=_pytest("llm_base_url"),
    llm_timeout=_pytest("llm_timeout", "SECONDS"),
    llm_retries=_pytest("llm_retries", "N"),
    self_heal=_pytest("self_heal"),
    rerecord="trail_runner.record(PATH, rerecord=True)",
    trail_timeout=_pytest("trail_timeout", "SECONDS (ini trailblaze_trail_timeout)"),
    install=_pytest("install"),
    reinstall=_pytest("reinstall"),
    script_host=_pytest("script_host", "{host}"),
)

MCP = Flags(
    front_end="mcp",
    secret=_to_mcp("secret", "{name}=VALUE"),
    other_values=None,
    memory=None,
    arg=None,
    model=None,  # the MCP client is the model
    llm_base_url=None,
    llm_timeout=None,
    llm_retries=None,
    self_heal=None,
    rerecord=None,
    trail_timeout=None,
    install=None,  # the server installs nothing
    reinstall=None,
    script_host=_to_mcp("script_host", "{host}"),
)
