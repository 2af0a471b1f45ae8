"""What a tool counts as (`Kind`): the one word the tool index, the tool model and the results share.

It sits below them all (`trailblaze.tools._index`, `trailblaze.tools.registry`, `trailblaze.tools.tooldef`
import it), so the index can be read without the tool model.
"""

from __future__ import annotations

from typing import Literal

__all__ = ["Kind"]

Kind = Literal["action", "assertion", "other"]
"""What a tool counts as for the agent's success check, mutation testing and the report."""
