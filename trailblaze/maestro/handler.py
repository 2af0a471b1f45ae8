"""The `mobile_maestro` handler, wired into `trailblaze.execute`'s handler table."""

from __future__ import annotations

from typing import Any

from trailblaze.maestro.params import MobileMaestro
from trailblaze.maestro.run import Context, run_commands

__all__ = ["MAESTRO_HANDLERS"]


def _mobile_maestro(run: Context, p: MobileMaestro) -> tuple[Any, str]:
    return run_commands(run, list(p.commands))


MAESTRO_HANDLERS: dict[type, Any] = {MobileMaestro: _mobile_maestro}
