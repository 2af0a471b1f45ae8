"""How a `web_*` element tool names its element: a `ref`, a `nodeSelector`, or both.

Trailblaze records web actions as `web_click: {ref: e11, nodeSelector: {web: {cssSelector:
"#increment-btn"}}, reasoning: …}`. The `ref` is the id the element had in the page snapshot the
agent saw while recording (`e11`): it means nothing in a later page, so when a `nodeSelector` is
given it is what replay resolves and the `ref` is ignored (docs/adr/0039-web-node-selector.md). A
`nodeSelector` of a web tool must use the `web` branch throughout (its relations' anchors too):
an Android or iOS branch matches no web element, which `validate` says instead of a replay failing.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import model_validator

from trailblaze.screen.resolve import describe_selector
from trailblaze.screen.selector import NodeSelector
from trailblaze.tools.params import RecordedToolParams

__all__ = ["WebTargetParams", "describe_target", "foreign_branch"]

_ANCHORS = ("below", "above", "leftOf", "rightOf", "childOf", "containsChild")
_FIELDS = "cssSelector, ariaRole, ariaNameRegex, ariaDescriptorRegex, dataTestId, headingLevel, nthIndex"

_NO_BRANCH = (
    "it has none, and relations or an `index` alone count every element of the page; "
    "re-record the step or write the `web` branch"
)


def foreign_branch(selector: NodeSelector, where: str = "nodeSelector") -> str | None:
    """Where in `selector` a driver branch other than `web` is used (`nodeSelector.below`), or None."""
    branch = selector.branch_name
    if branch is not None and branch != "web":
        return f"{where} uses the {branch} branch"
    for name in _ANCHORS:
        anchor = getattr(selector, name)
        found = None if anchor is None else foreign_branch(anchor, f"{where}.{name}")
        if found:
            return found
    for i, each in enumerate(selector.containsDescendants or ()):
        found = foreign_branch(each, f"{where}.containsDescendants[{i}]")
        if found:
            return found
    return None


class WebTargetParams(RecordedToolParams):
    """A web tool acting on one element: `ref` (a ref of the compact view, an ARIA descriptor such as
    `button "Submit"`, or `css=<selector>`) and / or `nodeSelector` (Trailblaze's `web` selector
    branch), which wins over the ref when both are given."""

    needs_target: ClassVar[bool] = True
    """False for tools where the element is optional (`web_scroll` scrolls the page without one)."""

    ref: str | None = None
    nodeSelector: NodeSelector | None = None

    @model_validator(mode="after")
    def _target(self) -> WebTargetParams:
        if self.nodeSelector is not None:
            if self.nodeSelector.web is None:
                found = self.nodeSelector.branch_name
                raise ValueError(
                    f"its nodeSelector needs a `web` branch ({_FIELDS}); "
                    + (f"{found} matches no web element" if found else _NO_BRANCH)
                )
            foreign = foreign_branch(self.nodeSelector)
            if foreign:
                raise ValueError(f"its {foreign}, which matches no web element; use `web` there too")
            return self
        if self.ref is not None and not self.ref.strip():
            raise ValueError("its ref is empty: give a ref or a nodeSelector")
        if self.ref is None and self.needs_target:
            raise ValueError("it needs a ref or a nodeSelector")
        return self

    @property
    def target(self) -> NodeSelector | str | None:
        """What replay looks for: the selector when there is one, else the ref."""
        return self.nodeSelector if self.nodeSelector is not None else self.ref


def describe_target(target: NodeSelector | str) -> str:
    """`web{cssSelector=#increment-btn}` for a selector, the quoted ref otherwise."""
    return describe_selector(target) if isinstance(target, NodeSelector) else repr(target)
