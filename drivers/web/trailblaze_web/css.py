"""CSS in the live page: which walked elements (`window.__tbNodes`, the last DOM walk) a selector
matches, for `css=` refs and the `cssSelector` field of `web` selectors.

The selector runs through Playwright's own CSS engine (`css=` locators), as Trailblaze's Playwright
driver runs it: standard CSS plus Playwright's extensions (`:has-text()`, `:visible`), entering open
shadow roots. A matched element the walk did not report (a `<span>` inside a button) stands for its
nearest walked ancestor, across shadow roots.
"""

from __future__ import annotations

from typing import Any

from trailblaze.errors import UsageError

__all__ = ["css_orders"]

_ORDERS = """(elements) => {
  const walked = new Map((window.__tbNodes || []).map((e, i) => [e, i]));
  const out = [];
  for (let e of elements) {
    while (e && !walked.has(e)) e = e.parentElement || (e.parentNode && e.parentNode.host) || null;
    if (e && !out.includes(walked.get(e))) out.push(walked.get(e));
  }
  return out;
}"""


def css_orders(page: Any, css: str) -> list[int]:
    """Orders (in the last walk) of the elements `css` matches in the page's main frame; a
    `UsageError` naming the selector when the browser cannot parse it."""
    try:
        found = page.locator(f"css={css}").evaluate_all(_ORDERS)
    except Exception as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise UsageError(
            f"bad CSS selector {css!r}: {first.removeprefix('Locator.evaluate_all: ')[:160]}"
        ) from exc
    return [int(i) for i in found]
