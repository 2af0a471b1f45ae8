"""Building the accessibility tree of a simulated device: the top screen's elements laid out, lists
with their visible rows, the snackbar, a dialog or progress overlay, the keyboard; or the launcher.
On a wide screen a screen with a `split` shows beside the screen beneath it: two panes, each laid
out and bound to its own screen instance.

`TreeBuilder` is a component of `SimulatedDevice`: it reads the shared `Screen` and the steps' state
and returns `Built` (the tree and what each node does when touched), which it keeps for hit-testing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from trailblaze_sim.app import layout
from trailblaze_sim.app.spec import FIELD_ROLES, AppSpec, ElementSpec
from trailblaze_sim.device.profile import ANDROID_CLASSES, IOS_TYPES
from trailblaze_sim.device.screen import Screen
from trailblaze_sim.device.state import Animation, Binding, Built, ScreenInstance
from trailblaze_sim.device.steps import StepInterpreter
from trailblaze_sim.model import AppInfo, Frame, Platform, SimNode

__all__ = ["TreeBuilder"]

_CLICKABLE_ROLES = frozenset({"button", "icon_button", "link", "switch", "tab", "row"})


class TreeBuilder:
    """Lays the shown screens out as `SimNode`s; keeps the last tree built for hit-testing."""

    def __init__(
        self, spec: AppSpec, app: AppInfo, screen: Screen, steps: StepInterpreter, animation: Animation
    ) -> None:
        self.spec = spec
        self.app = app
        self.screen = screen
        self.display = screen.display
        self.profile = screen.display.profile
        self.platform: Platform = screen.display.platform
        self.steps = steps
        self.animation = animation
        self.last: Built | None = None
        # Called for every node laid out: bound once so the loop costs no more lookups than a mixin's.
        self._render = steps.render
        self._test = steps.test
        self._lookup = steps.lookup

    def build(self) -> Built:
        bindings: dict[int, Binding] = {}
        if not self.screen.foreground or not self.screen.stack:
            built = Built(self._launcher(bindings), bindings, None)
            self.last = built
            return built
        top = self.screen.stack[-1]
        area = self.display.layout_frame()
        root = SimNode(
            role="screen",
            android_class="android.widget.FrameLayout",
            ios_type="XCUIElementTypeApplication" if self.platform == "ios" else "XCUIElementTypeOther",
            frame=self.display.content_frame(),
            label=self.spec.name if self.platform == "ios" else "",
        )
        panes: list[tuple[ScreenInstance, Frame, SimNode]] = [(top, area, root)]
        split = self.screen.split()
        if split is not None:
            primary, how = split
            left = Frame(area.x, area.y, how.primary_width, area.height)
            right = Frame(left.right, area.y, area.width - how.primary_width, area.height)
            # Each pane is a container of its own, as a two-pane layout's fragments are.
            panes = [
                (primary, left, self._plain("container", left, id="primary_pane")),
                (top, right, self._plain("container", right, id="detail_pane")),
            ]
            root.children += [holder for _, _, holder in panes]
        content_bottom = area.bottom
        for instance, frame, holder in panes:
            for child in self._screen_nodes(instance, frame, bindings):
                holder.children.append(child)
                if child.role == "tab_bar" and child.frame.y > area.y + area.height / 2:
                    content_bottom = min(content_bottom, child.frame.y)
        modal: SimNode | None = None
        if self.screen.snackbar is not None:
            root.children.append(self._snackbar_node(self.screen.snackbar[0], content_bottom))
        if self.animation.running():
            root.children.append(
                self._plain(
                    "text",
                    Frame(area.right - 112, area.y + 4, 104, 16),
                    id="sync_status",
                    text=f"Syncing {self.animation.ticks % 100}%",
                )
            )
        dialog = self.screen.dialog_spec()
        if dialog is not None:
            modal = self._dialog_node(dialog, area, bindings, self.screen.dialog_owner())
            root.children.append(modal)
        if self.screen.pending is not None:
            modal = self._progress_node(self.screen.pending.progress, area)
            root.children.append(modal)
        if self.platform == "ios":
            kb = self.screen.keyboard_frame()
            if kb is not None:
                root.children.append(self._plain("keyboard", kb))
        kb = self.screen.keyboard_frame()
        if kb is not None:
            for node in root.walk():
                if node.role != "keyboard" and kb.y <= node.frame.y and node.frame.bottom <= kb.bottom + 0.5:
                    node.visible = False
        built = Built(root, bindings, modal)
        self.last = built
        return built

    def field_of(self, node: SimNode) -> str | None:
        """The id of the text field `node` (from the last tree, or a copy of one of its nodes) shows."""
        built = self.last if self.last is not None else self.build()
        binding = built.bindings.get(id(node))
        if binding is None:
            # A copy of a node: find the same field in a fresh tree.
            built = self.build()
            for candidate in built.root.walk():
                if candidate.role == node.role and candidate.id == node.id and candidate.frame == node.frame:
                    binding = built.bindings.get(id(candidate))
                    break
        return binding.field_id if binding is not None and binding.field_id else None

    def _screen_nodes(
        self, instance: ScreenInstance, area: Frame, bindings: dict[int, Binding]
    ) -> list[SimNode]:
        """A screen instance's elements laid out in `area`; templates read that instance's locals."""
        with self.steps.scoped(instance):
            elements = self._visible(self.spec.screens[instance.name].elements, None)
            frames = layout.place(
                None, elements, area, self.platform, lambda e: self._visible(e.children, None), self.profile.font_scale
            )
            return [
                self._node(el, frame, None, bindings, instance)
                for el, frame in zip(elements, frames, strict=True)
            ]

    def _visible(self, elements: Sequence[ElementSpec], item: dict[str, str] | None) -> list[ElementSpec]:
        return [
            e
            for e in elements
            if self.platform in e.platforms and (e.show_if is None or self._test(e.show_if, item))
        ]

    def _plain(self, role: str, frame: Frame, **kw: Any) -> SimNode:
        return SimNode(
            role=role, android_class=ANDROID_CLASSES[role], ios_type=IOS_TYPES[role], frame=frame, **kw
        )

    def _node(
        self,
        el: ElementSpec,
        frame: Frame,
        item: dict[str, str] | None,
        bindings: dict[int, Binding],
        top: ScreenInstance,
    ) -> SimNode:
        node = SimNode(
            role=el.role,
            android_class=el.android_class or ANDROID_CLASSES[el.role],
            ios_type=el.ios_type or IOS_TYPES[el.role],
            frame=frame,
            id=el.id,
            text=self._render(el.text, item),
            label=self._render(el.label, item),
            hint=el.hint,
            enabled=el.enabled,
        )
        binding = Binding(
            steps=el.on_tap, long_steps=el.on_long_press, double_steps=el.on_double_tap, item=item, screen=top
        )
        node.opacity = el.opacity
        if el.role in FIELD_ROLES:
            value = top.fields.get(el.id, "")
            node.text = "•" * len(value) if el.role == "secure_field" else value
            node.password = el.role == "secure_field"
            node.focusable = node.clickable = node.long_clickable = True
            node.focused = self.screen.focus == el.id
            binding.field_id = el.id
        elif el.role == "switch":
            node.checkable = node.clickable = node.focusable = True
            node.checked = bool(self._lookup(el.bind, item)) and self._lookup(el.bind, item) != "false"
            binding.bind = el.bind
        elif el.role in _CLICKABLE_ROLES and (el.on_tap or el.role != "row"):
            node.clickable = node.focusable = True
        if el.on_long_press:
            node.long_clickable = True
        if el.selected_if is not None:
            node.selected = self._test(el.selected_if, item)
        if el.role == "list":
            self._list_children(el, node, top, bindings, binding)
        else:
            kids = self._visible(el.children, item)
            frames = layout.place(
                el, kids, frame, self.platform, lambda e: self._visible(e.children, item), self.profile.font_scale
            )
            for kid, kid_frame in zip(kids, frames, strict=True):
                node.children.append(self._node(kid, kid_frame, item, bindings, top))
        if el.opacity < 0.01 and self.platform == "ios":
            # UIKit hides a view with alpha < 0.01 (and its subtree) from hit-testing and reports it
            # not visible; Android ignores alpha for both (visible-to-user stays true, touches land).
            for n in node.walk():
                n.visible = False
        if not el.enabled:
            node.clickable = False
        else:
            bindings[id(node)] = binding
        return node

    def _list_children(
        self,
        el: ElementSpec,
        node: SimNode,
        top: ScreenInstance,
        bindings: dict[int, Binding],
        binding: Binding,
    ) -> None:
        assert el.row is not None  # checked when the spec loaded
        items = self.steps.data.get(el.source, [])
        if el.filter is not None:
            needle = top.fields.get(el.filter.field, "").strip().lower()
            if needle:
                items = [i for i in items if needle in i.get(el.filter.key, "").lower()]
        frame = node.frame
        row_h = layout.intrinsic_height(
            el.row, self.platform, lambda e: self._visible(e.children, None), self.profile.font_scale
        )
        key = el.id or f"list@{frame.y:.0f}"
        binding.list_key = key
        binding.max_scroll = max(0.0, row_h * len(items) - frame.height)
        offset = min(top.scroll.get(key, 0.0), binding.max_scroll)
        top.scroll[key] = offset
        node.scrollable = len(items) > 0 and binding.max_scroll > 0
        if not items:
            if el.empty_text:
                node.children.append(
                    self._plain(
                        "text",
                        Frame(frame.x + 16, frame.y + 24, frame.width - 32, 24),
                        id="empty",
                        text=el.empty_text,
                    )
                )
            return
        first = int(offset // row_h)
        last = int(min(len(items) - 1, (offset + frame.height - 0.001) // row_h))
        for index in range(max(0, first - 1), min(len(items), last + 2)):
            row_frame = Frame(frame.x, frame.y - offset + index * row_h, frame.width, row_h)
            row = self._node(el.row, row_frame, items[index], bindings, top)
            if index < first or index > last:
                # A RecyclerView keeps one row beyond each edge laid out but not on screen.
                for n in row.walk():
                    n.visible = False
            node.children.append(row)

    def _snackbar_node(self, text: str, bottom: float) -> SimNode:
        frame = Frame(8, bottom - 8 - 48, self.display.screen_width - 16, 48)
        return self._plain("snackbar", frame, id="snackbar_text", text=text)

    def _progress_node(self, text: str, area: Frame) -> SimNode:
        box = Frame(area.x + 40, area.y + area.height / 2 - 56, area.width - 80, 112)
        node = self._plain("container", box, id="progress_overlay")
        node.children.append(
            self._plain(
                "progress",
                Frame(box.x + 16, box.y + 36, 40, 40),
                id="progress",
                label="In progress" if self.platform == "ios" else "",
            )
        )
        if text:
            node.children.append(
                self._plain(
                    "text", Frame(box.x + 72, box.y + 44, box.width - 88, 24), id="progress_text", text=text
                )
            )
        return node

    def _dialog_node(
        self, dialog: Any, area: Frame, bindings: dict[int, Binding], owner: ScreenInstance | None
    ) -> SimNode:
        width = area.width - 48
        message_h = 48.0 if dialog.message else 0.0
        height = 24 + 32 + message_h + 16 + 48 + 8
        box = Frame(area.x + 24, area.y + (area.height - height) / 2, width, height)
        # iOS reports an alert's title as its accessibility label (`XCUIElementTypeAlert label="Sign out?"`).
        node = self._plain("dialog", box, id=dialog.id, label=dialog.title if self.platform == "ios" else "")
        node.children.append(
            self._plain(
                "heading", Frame(box.x + 24, box.y + 24, width - 48, 32), id="alertTitle", text=dialog.title
            )
        )
        if dialog.message:
            node.children.append(
                self._plain(
                    "text", Frame(box.x + 24, box.y + 56, width - 48, 48), id="message", text=dialog.message
                )
            )
        bx = box.right - 16
        for button in reversed(dialog.buttons):
            bw = max(72.0, 12.0 * len(button.text) + 24)
            b = self._plain(
                "button",
                Frame(bx - bw, box.bottom - 56, bw, 48),
                id=button.id,
                text=button.text,
                clickable=True,
                focusable=True,
            )
            bindings[id(b)] = Binding(steps=button.on_tap, dialog_button=True, screen=owner)
            node.children.insert(len(node.children), b)
            bx -= bw + 8
        # Buttons read left to right in the tree, as on screen.
        buttons = [c for c in node.children if c.role == "button"]
        node.children = [c for c in node.children if c.role != "button"] + list(reversed(buttons))
        return node

    def _launcher(self, bindings: dict[int, Binding]) -> SimNode:
        frame = self.display.content_frame()
        root = SimNode(
            role="screen",
            android_class="android.widget.FrameLayout",
            ios_type="XCUIElementTypeApplication" if self.platform == "ios" else "XCUIElementTypeOther",
            frame=frame,
            label="Home screen" if self.platform == "ios" else "",
        )
        area = self.display.layout_frame()
        icon = self._plain(
            "icon_button",
            Frame(area.x + 24, area.y + 48, 72, 88),
            id="",
            text=self.spec.name,
            label=self.spec.name if self.platform == "android" else "",
        )
        icon.android_class = "android.widget.TextView"
        icon.ios_type = "XCUIElementTypeIcon"
        icon.clickable = icon.focusable = icon.long_clickable = True
        bindings[id(icon)] = Binding(launch=self.app.app_id)
        root.children.append(icon)
        return root
