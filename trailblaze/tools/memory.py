"""Variables a trail can use in tool params: memory, declared args and secrets.

`{{name}}`, `{{ name }}`, `{{memory.name}}`, `{{args.name}}`, `{{secrets.name}}` and `${name}` are
replaced at dispatch, right before a tool runs; recordings keep the template, never the value.
Secret values never leave this object except into the device: `redact()` turns them back into
`{{name}}` for anything written to a file, a log, a report or an LLM request.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from trailblaze.common.flags import CLI, Flags
from trailblaze.common.redact import Redactor, register_secrets, scrub_value
from trailblaze.errors import UsageError

__all__ = ["Memory", "TEMPLATE_RE"]

TEMPLATE_RE = re.compile(r"\{\{\s*(?:(memory|args|secrets)\.)?([A-Za-z_][\w-]*)\s*\}\}|\$\{([A-Za-z_][\w-]*)\}")


class Memory:
    """Named values for one run. Secrets are kept apart so they can be redacted everywhere."""

    def __init__(
        self,
        memory: Mapping[str, str] | None = None,
        *,
        args: Mapping[str, str] | None = None,
        secrets: Mapping[str, str] | None = None,
        flags: Flags = CLI,
    ) -> None:
        self.flags = flags
        """How the front end that built this run spells the options a hint names (`--secret` or
        `--trailblaze-secret`, …): the run's hints ask it (trailblaze.common.flags)."""
        self._memory: dict[str, str] = dict(memory or {})
        self._args: dict[str, str] = dict(args or {})
        self._secrets: dict[str, str] = dict(secrets or {})
        # Refuses a too-short secret, and from here on every output of the process is scrubbed of
        # these values (trailblaze.common.redact); the own redactor still works after `forget_secrets`.
        register_secrets(self._secrets)
        self._redactor = Redactor(self._secrets)

    # --- values ------------------------------------------------------------------------------------
    def remember(self, name: str, value: str) -> None:
        """Stores a value the run learned (e.g. `rememberText`)."""
        self._memory[name] = value

    def lookup(self, name: str, scope: str | None = None) -> str | None:
        if scope == "args":
            return self._args.get(name)
        if scope == "secrets":
            return self._secrets.get(name)
        if scope == "memory":
            return self._memory.get(name)
        for table in (self._secrets, self._memory, self._args):
            if name in table:
                return table[name]
        return None

    def is_secret(self, name: str) -> bool:
        return name in self._secrets

    @property
    def secret_values(self) -> list[str]:
        """Secret values, longest first (so a secret that contains another is redacted whole)."""
        return sorted((v for v in self._secrets.values() if v), key=len, reverse=True)

    def for_subtrail(
        self, memory: Mapping[str, str], args: Mapping[str, str], secret_args: Mapping[str, str]
    ) -> Memory:
        """A sub-trail's variables (`runTrail`): its own memory and args, this run's secrets, and
        `secret_args` (args whose value came from a secret) kept secret too."""
        return Memory(memory, args=args, secrets={**self._secrets, **secret_args}, flags=self.flags)

    # --- templates ---------------------------------------------------------------------------------
    def interpolate(self, value: Any, *, where: str = "tool params") -> Any:
        """A deep copy of `value` with every template replaced; unknown names raise `UsageError`."""
        if isinstance(value, str):
            return self._interpolate_str(value, where)
        if isinstance(value, Mapping):
            return {k: self.interpolate(v, where=where) for k, v in value.items()}
        if isinstance(value, list):
            return [self.interpolate(v, where=where) for v in value]
        return value

    def _interpolate_str(self, text: str, where: str) -> str:
        def sub(m: re.Match[str]) -> str:
            scope, name = (m.group(1), m.group(2)) if m.group(2) else (None, m.group(3))
            found = self.lookup(name, scope)
            if found is None:
                raise UsageError(f"unknown variable {m.group(0)} in {where}: {self.flags.give(name, scope)}")
            return found

        return TEMPLATE_RE.sub(sub, text)

    def redact(self, value: Any) -> Any:
        """A deep copy of `value` where every secret value, in any encoding, becomes its `{{name}}`."""
        return scrub_value(self._redactor.scrub_value(value))

    def describe_for_llm(self) -> list[str]:
        """Variable lines for the model's reminder: names always, values only when not secret."""
        lines = [f"{{{{{k}}}}} = {self.redact(v)!r}" for k, v in sorted({**self._args, **self._memory}.items())]
        lines += [f"{{{{{k}}}}} = (secret; type it as the template, never ask for its value)"
                  for k in sorted(self._secrets)]
        return lines
