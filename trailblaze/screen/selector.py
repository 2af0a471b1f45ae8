"""The `nodeSelector` shape of Trailblaze recordings, as pydantic models.

A selector is exactly one driver branch (`androidAccessibility`, `androidMaestro`, `iosMaestro` or `web`)
plus optional relations to other selectors and a last-resort `index`. Field names are Trailblaze's,
so a recorded file stays readable by Trailblaze. Regex fields are full-match; a value that is not a
valid regex matches literally. The resolver lives in `trailblaze.screen.resolve`, the generator in
`trailblaze.screen.selector_gen`.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from trailblaze.common.text_params import numbers_as_text
from trailblaze.screen.css_check import css_problem

__all__ = [
    "AndroidAccessibilitySelector",
    "AndroidMaestroSelector",
    "IosMaestroSelector",
    "NodeSelector",
    "WebSelector",
]

_BRANCHES = ("androidAccessibility", "androidMaestro", "iosMaestro", "web")
_RELATIONS = ("below", "above", "leftOf", "rightOf", "childOf", "containsChild")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)  # built on first use

    @model_validator(mode="before")
    @classmethod
    def _numbers_as_text(cls, data: Any) -> Any:
        return numbers_as_text(cls, data)  # `textRegex: 480` is "480", as Trailblaze reads it


class AndroidAccessibilitySelector(_Strict):
    """Matches an Android node by its accessibility properties (Trailblaze `androidAccessibility`)."""

    classNameRegex: str | None = None
    resourceIdRegex: str | None = None
    textRegex: str | None = None
    contentDescriptionRegex: str | None = None
    hintTextRegex: str | None = None
    isEnabled: bool | None = None
    isClickable: bool | None = None
    isCheckable: bool | None = None
    isChecked: bool | None = None
    isSelected: bool | None = None
    isFocused: bool | None = None
    isScrollable: bool | None = None
    isPassword: bool | None = None
    # Accessibility properties a stock uiautomator2 dump does not carry (docs/trailblaze-catalog.md):
    # they match the dump attribute named in `trailblaze.screen.resolve.EXTRA_FIELD_ATTRS` when present.
    uniqueId: str | None = None
    composeTestTagRegex: str | None = None
    labeledByTextRegex: str | None = None
    stateDescriptionRegex: str | None = None
    paneTitleRegex: str | None = None
    roleDescriptionRegex: str | None = None
    isEditable: bool | None = None
    isHeading: bool | None = None
    isMultiLine: bool | None = None
    inputType: int | None = None
    collectionItemRowIndex: int | None = Field(default=None, ge=0)
    collectionItemColumnIndex: int | None = Field(default=None, ge=0)


class AndroidMaestroSelector(_Strict):
    """Trailblaze's older Maestro-style Android branch (read for compatibility)."""

    textRegex: str | None = None
    idRegex: str | None = None
    classNameRegex: str | None = None
    contentDescriptionRegex: str | None = None
    hintTextRegex: str | None = None
    enabled: bool | None = None
    checked: bool | None = None
    focused: bool | None = None
    selected: bool | None = None
    clickable: bool | None = None


class IosMaestroSelector(_Strict):
    """Matches an iOS element (Trailblaze `iosMaestro`)."""

    textRegex: str | None = None
    resourceIdRegex: str | None = None
    """Accessibility identifier."""
    accessibilityTextRegex: str | None = None
    """Accessibility label."""
    classNameRegex: str | None = None
    """XCUIElementType, e.g. `XCUIElementTypeButton`."""
    hintTextRegex: str | None = None
    """Placeholder value."""
    focused: bool | None = None
    selected: bool | None = None
    enabled: bool | None = None
    checked: bool | None = None
    """A switch or checkbox is on (WebDriverAgent reports its value `1` / `0`); Maestro's `checked`,
    which Trailblaze's `iosMaestro` branch lacks (docs/adr/0038-assertions-pin-facts.md)."""


class WebSelector(_Strict):
    """Matches an element of a web page (Trailblaze `web`, its Playwright driver's branch)."""

    ariaRole: str | None = None
    """ARIA role, explicit or implicit (`button`, `textbox`, `link`)."""
    ariaNameRegex: str | None = None
    """Accessible name."""
    ariaDescriptorRegex: str | None = None
    """`role "name"`, e.g. `button "Submit"`."""
    headingLevel: int | None = Field(default=None, ge=1, le=6)
    dataTestId: str | None = None
    """`data-testid` (else the element id: the web driver reports whichever the element has)."""
    cssSelector: str | None = None
    """A CSS selector (Playwright's CSS: open shadow roots, `:has-text()`), matched in the live page;
    with other fields, an element must match them all."""
    nthIndex: int | None = Field(default=None, ge=0)
    """0-based among the matches, top-to-bottom then left-to-right."""
    checked: bool | None = None
    """A checkbox, radio or switch is checked (Playwright's `checked` locator option; an extension of
    Trailblaze's `web` branch, docs/adr/0038-assertions-pin-facts.md)."""
    selected: bool | None = None
    enabled: bool | None = None

    @field_validator("cssSelector")
    @classmethod
    def _css_parses(cls, value: str | None) -> str | None:
        problem = None if value is None else css_problem(value)
        if problem:
            raise ValueError(f"cssSelector {value!r} is not CSS: {problem}")
        return value


class NodeSelector(_Strict):
    """One driver branch plus optional relations; `index` (0-based, top-to-bottom then
    left-to-right among the matches) is the last resort."""

    # Built at import, unlike the branches: a model with a field of a deferred model makes that model's
    # schema again for itself, so the params of every selector tool would each make this one (~1.2 ms
    # apiece; start-up, docs/adr/0063-start-up.md).
    model_config = ConfigDict(defer_build=False)

    androidAccessibility: AndroidAccessibilitySelector | None = None
    androidMaestro: AndroidMaestroSelector | None = None
    iosMaestro: IosMaestroSelector | None = None
    web: WebSelector | None = None
    below: NodeSelector | None = None
    above: NodeSelector | None = None
    leftOf: NodeSelector | None = None
    rightOf: NodeSelector | None = None
    childOf: NodeSelector | None = None
    containsChild: NodeSelector | None = None
    containsDescendants: list[NodeSelector] | None = None
    index: int | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _one_branch(self) -> NodeSelector:
        branches = [b for b in _BRANCHES if getattr(self, b) is not None]
        if len(branches) > 1:
            raise ValueError(
                f"a nodeSelector takes exactly one driver branch, found {' and '.join(branches)}; "
                "keep the one for this platform"
            )
        has_relation = any(getattr(self, r) is not None for r in _RELATIONS) or bool(self.containsDescendants)
        if not branches and not has_relation and self.index is None:
            raise ValueError(
                "an empty nodeSelector matches nothing; give one of "
                "androidAccessibility, androidMaestro, iosMaestro or web"
            )
        return self

    @property
    def branch_name(self) -> str | None:
        for b in _BRANCHES:
            if getattr(self, b) is not None:
                return b
        return None

    def to_yaml_dict(self) -> dict[str, Any]:
        """The selector as it is written into a trail: no defaults, Trailblaze field names."""
        return self.model_dump(mode="json", exclude_none=True)
