"""Element queries of WebDriverAgent: NSPredicate strings, class chains and XPath.

Grammar:

* NSPredicate subset: comparisons `== = != <> < <= > >=`, `CONTAINS BEGINSWITH ENDSWITH LIKE MATCHES`,
  `IN {…}`, `BETWEEN {a, b}`, each with optional `[c]` / `[d]` / `[cd]` flags; `AND && OR || NOT !`,
  parentheses, `TRUEPREDICATE` / `FALSEPREDICATE`; literals in single or double quotes (backslash
  escapes), numbers, `true false YES NO`, `nil NULL`; key paths `name label value type visible
  enabled accessible selected hittable placeholderValue index rect frame rect.x …` and `wd*` aliases.
* Class chain: steps separated by `/`, each optionally preceded by `**/` (any descendant instead of
  direct child); a step is a type (`XCUIElementTypeButton`, `*` or `XCUIElementTypeAny`) followed by
  filters: `` [`predicate`] `` (self), `[$predicate$]` (has a matching descendant), `[n]` (1-based
  position among the step's matches; negative counts from the end; 0 keeps all). Matches of a step
  are the union over all elements the previous step matched, in document order.
* XPath 1.0 via lxml on the XML `GET /source` renders.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from trailblaze_sim.ios.source import IosElement, Snapshot

__all__ = [
    "ClassChainStep",
    "QueryError",
    "find_class_chain",
    "find_predicate",
    "find_xpath",
    "parse_class_chain",
    "parse_predicate",
]

Predicate = Callable[[IosElement], bool]


class QueryError(ValueError):
    """A selector that does not parse or cannot be evaluated (WDA answers `invalid selector`)."""


# --------------------------------------------------------------------------------------------------
# NSPredicate
# --------------------------------------------------------------------------------------------------

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<str>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
  | (?P<num>-?\d+(?:\.\d+)?(?![A-Za-z_]))
  | (?P<op>==|!=|<>|<=|>=|=>|=<|&&|\|\||[=<>!(){},])
  | (?P<flags>\[[cdn]+\])
  | (?P<word>[A-Za-z_$@][A-Za-z0-9_.$@]*)
    """,
    re.VERBOSE,
)
_STRING_OPS = frozenset({"CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE", "MATCHES"})
_KEYWORDS = frozenset(
    {"AND", "OR", "NOT", "IN", "BETWEEN", "TRUEPREDICATE", "FALSEPREDICATE", *_STRING_OPS}
)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", "'": "'", '"': '"'}


@dataclass(frozen=True)
class _Tok:
    kind: str  # str num op flags word kw
    text: str
    pos: int


@dataclass(frozen=True)
class _Key:
    path: str


@dataclass(frozen=True)
class _Lit:
    value: Any


@dataclass(frozen=True)
class _Set:
    items: tuple[Any, ...]


_Operand = _Key | _Lit | _Set


def _unquote(s: str) -> str:
    body = s[1:-1]
    if "\\" not in body:
        return body
    out: list[str] = []
    i = 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            out.append(_ESCAPES.get(body[i + 1], body[i + 1]))
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _tokenize(src: str) -> list[_Tok]:
    toks: list[_Tok] = []
    pos = 0
    while pos < len(src):
        m = _TOKEN.match(src, pos)
        if m is None:
            raise QueryError(f"cannot parse predicate at offset {pos}: {src[pos:pos + 20]!r}")
        kind = m.lastgroup or ""
        text = m.group()
        if kind == "word" and text.upper() in _KEYWORDS:
            toks.append(_Tok("kw", text.upper(), pos))
        elif kind != "ws":
            toks.append(_Tok(kind, text, pos))
        pos = m.end()
    return toks


class _PredicateParser:
    def __init__(self, src: str) -> None:
        self.src = src
        self.toks = _tokenize(src)
        self.i = 0

    def _peek(self) -> _Tok | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def _take(self) -> _Tok:
        tok = self._peek()
        if tok is None:
            raise QueryError(f"predicate ends too early: {self.src!r}")
        self.i += 1
        return tok

    def _at(self, kind: str, *texts: str) -> bool:
        tok = self._peek()
        return tok is not None and tok.kind == kind and (not texts or tok.text in texts)

    def parse(self) -> Predicate:
        if not self.toks:
            raise QueryError("empty predicate")
        pred = self._or()
        tok = self._peek()
        if tok is not None:
            raise QueryError(f"unexpected {tok.text!r} at offset {tok.pos} in predicate {self.src!r}")
        return pred

    def _or(self) -> Predicate:
        parts = [self._and()]
        while self._at("kw", "OR") or self._at("op", "||"):
            self.i += 1
            parts.append(self._and())
        if len(parts) == 1:
            return parts[0]
        return lambda e: any(p(e) for p in parts)

    def _and(self) -> Predicate:
        parts = [self._not()]
        while self._at("kw", "AND") or self._at("op", "&&"):
            self.i += 1
            parts.append(self._not())
        if len(parts) == 1:
            return parts[0]
        return lambda e: all(p(e) for p in parts)

    def _not(self) -> Predicate:
        if self._at("kw", "NOT") or self._at("op", "!"):
            self.i += 1
            inner = self._not()
            return lambda e: not inner(e)
        return self._primary()

    def _primary(self) -> Predicate:
        if self._at("op", "("):
            self.i += 1
            inner = self._or()
            if not self._at("op", ")"):
                raise QueryError(f"missing ')' in predicate {self.src!r}")
            self.i += 1
            return inner
        if self._at("kw", "TRUEPREDICATE"):
            self.i += 1
            return lambda e: True
        if self._at("kw", "FALSEPREDICATE"):
            self.i += 1
            return lambda e: False
        left = self._operand()
        tok = self._peek()
        if isinstance(left, _Lit) and isinstance(left.value, bool) and (
            tok is None or tok.text in (")", "AND", "OR", "&&", "||")
        ):
            # facebook-wda emits a bare `false` for `visible=False` (an operator-precedence slip).
            value = left.value
            return lambda e: value
        op = self._take()
        if op.kind == "kw" and op.text in (*_STRING_OPS, "IN", "BETWEEN"):
            name = op.text
        elif op.kind == "op" and op.text in ("==", "=", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>"):
            name = {"=": "==", "<>": "!=", "=<": "<=", "=>": ">="}.get(op.text, op.text)
        else:
            raise QueryError(f"expected an operator at offset {op.pos} in predicate {self.src!r}")
        flags = ""
        if self._at("flags"):
            flags = self._take().text[1:-1]
        right = self._operand()
        return _comparison(left, name, flags, right)

    def _operand(self) -> _Operand:
        tok = self._take()
        if tok.kind == "str":
            return _Lit(_unquote(tok.text))
        if tok.kind == "num":
            return _Lit(float(tok.text) if "." in tok.text else int(tok.text))
        if tok.kind == "op" and tok.text == "{":
            items: list[Any] = []
            while not self._at("op", "}"):
                item = self._operand()
                if not isinstance(item, _Lit):
                    raise QueryError(f"only literals are allowed in {{…}} in predicate {self.src!r}")
                items.append(item.value)
                if self._at("op", ","):
                    self.i += 1
                elif not self._at("op", "}"):
                    raise QueryError(f"expected ',' or '}}' in predicate {self.src!r}")
            self.i += 1
            return _Set(tuple(items))
        if tok.kind == "word":
            low = tok.text.lower()
            if low in ("true", "yes"):
                return _Lit(True)
            if low in ("false", "no"):
                return _Lit(False)
            if low in ("nil", "null"):
                return _Lit(None)
            return _Key(tok.text)
        raise QueryError(f"unexpected {tok.text!r} at offset {tok.pos} in predicate {self.src!r}")


def _resolve(el: IosElement, operand: _Operand) -> Any:
    if isinstance(operand, _Lit):
        return operand.value
    if isinstance(operand, _Set):
        return list(operand.items)
    head, _, rest = operand.path.partition(".")
    try:
        value = el.attribute(head)
    except KeyError:
        raise QueryError(f"unknown attribute {operand.path!r} (use name, label, value, type, visible, …)") from None
    if rest:
        if not isinstance(value, dict) or rest not in value:
            raise QueryError(f"unknown attribute {operand.path!r}")
        value = value[rest]
    return value


def _fold(s: str, flags: str) -> str:
    if "d" in flags:
        s = "".join(c for c in unicodedata.normalize("NFD", s) if not unicodedata.combining(c))
    if "c" in flags:
        s = s.casefold()
    return s


def _as_bool(v: Any) -> bool | None:
    if isinstance(v, bool):
        return v
    if isinstance(v, int | float):
        return bool(v)
    if isinstance(v, str) and v.lower() in ("true", "yes", "1", "false", "no", "0"):
        return v.lower() in ("true", "yes", "1")
    return None


def _as_number(v: Any) -> float | None:
    if isinstance(v, bool):
        return float(v)
    if isinstance(v, int | float):
        return float(v)
    if isinstance(v, str):
        try:
            return float(v)
        except ValueError:
            return None
    return None


def _equal(a: Any, b: Any, flags: str) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, bool) or isinstance(b, bool):
        ba, bb = _as_bool(a), _as_bool(b)
        return ba is not None and ba == bb
    if isinstance(a, int | float) or isinstance(b, int | float):
        na, nb = _as_number(a), _as_number(b)
        return na is not None and na == nb
    return _fold(str(a), flags) == _fold(str(b), flags)


def _like(pattern: str, flags: str) -> re.Pattern[str]:
    rx = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
    return re.compile(rx, re.DOTALL | (re.IGNORECASE if "c" in flags else 0))


def _comparison(left: _Operand, op: str, flags: str, right: _Operand) -> Predicate:
    pattern: re.Pattern[str] | None = None
    if op in ("LIKE", "MATCHES") and isinstance(right, _Lit) and isinstance(right.value, str):
        if op == "LIKE":
            pattern = _like(_fold(right.value, flags.replace("c", "")), flags)
        else:
            try:
                pattern = re.compile(right.value, re.DOTALL | (re.IGNORECASE if "c" in flags else 0))
            except re.error as exc:
                raise QueryError(f"invalid regular expression {right.value!r}: {exc}") from None
    if op in ("IN", "BETWEEN") and not isinstance(right, _Set | _Key):
        if op == "BETWEEN" or not (isinstance(right, _Lit) and isinstance(right.value, str)):
            raise QueryError(f"{op} needs a {{…}} collection on its right")

    def pred(el: IosElement) -> bool:
        a = _resolve(el, left)
        b = _resolve(el, right)
        return _compare(a, op, flags, b, pattern)

    return pred


def _compare(a: Any, op: str, flags: str, b: Any, pattern: re.Pattern[str] | None) -> bool:
    if op == "==":
        return _equal(a, b, flags)
    if op == "!=":
        return not _equal(a, b, flags)
    if op in ("<", "<=", ">", ">="):
        na, nb = _as_number(a), _as_number(b)
        if na is None or nb is None:
            if not isinstance(a, str) or not isinstance(b, str):
                return False
            sa, sb = _fold(a, flags), _fold(b, flags)
            return {"<": sa < sb, "<=": sa <= sb, ">": sa > sb, ">=": sa >= sb}[op]
        return {"<": na < nb, "<=": na <= nb, ">": na > nb, ">=": na >= nb}[op]
    if op == "IN":
        if isinstance(b, list):
            return any(_equal(a, item, flags) for item in b)
        if isinstance(a, str) and isinstance(b, str):
            return _fold(a, flags) in _fold(b, flags)
        return False
    if op == "BETWEEN":
        if not isinstance(b, list) or len(b) != 2:
            raise QueryError("BETWEEN needs {low, high}")
        na, lo, hi = _as_number(a), _as_number(b[0]), _as_number(b[1])
        return None not in (na, lo, hi) and lo <= na <= hi  # type: ignore[operator]
    if a is None or b is None:
        return False
    sa = str(a) if not isinstance(a, bool) else ("1" if a else "0")
    if op == "MATCHES":
        assert pattern is not None
        return pattern.fullmatch(sa) is not None
    if op == "LIKE":
        assert pattern is not None
        return pattern.fullmatch(_fold(sa, flags.replace("c", ""))) is not None
    fa, fb = _fold(sa, flags), _fold(str(b), flags)
    if op == "CONTAINS":
        return fb in fa
    if op == "BEGINSWITH":
        return fa.startswith(fb)
    if op == "ENDSWITH":
        return fa.endswith(fb)
    raise QueryError(f"unsupported operator {op}")


def parse_predicate(src: str) -> Predicate:
    """Compile an NSPredicate string into a test on `IosElement`s.

    Raises:
        QueryError: The string does not parse.
    """
    return _PredicateParser(src).parse()


def find_predicate(snapshot: Snapshot, src: str, context: IosElement | None = None) -> list[IosElement]:
    """Descendants of `context` (default: the application) matching an NSPredicate, in document order."""
    pred = parse_predicate(src)
    ctx = context or snapshot.root
    return [e for e in snapshot.flat[ctx.order + 1 : ctx.end] if pred(e)]


# --------------------------------------------------------------------------------------------------
# Class chain
# --------------------------------------------------------------------------------------------------

_ANY_TYPES = frozenset({"*", "XCUIElementTypeAny"})


@dataclass(frozen=True)
class ClassChainStep:
    """One step of a class chain."""

    descendant: bool
    """True after `**/` (any descendant), False for a direct child."""
    type: str | None
    """Full XCUIElementType name, or None for any type."""
    filters: tuple[tuple[str, Any], ...]
    """In order: ("self", Predicate), ("descendant", Predicate) or ("index", int)."""
    source: str


def parse_class_chain(src: str) -> list[ClassChainStep]:
    """Parse a WDA class chain into steps.

    Raises:
        QueryError: The chain does not parse.
    """
    steps: list[ClassChainStep] = []
    pos = 0
    n = len(src)
    if not src.strip():
        raise QueryError("empty class chain")
    while True:
        start = pos
        descendant = False
        if src.startswith("**/", pos):
            descendant = True
            pos += 3
        m = re.compile(r"[A-Za-z*]+").match(src, pos)
        if m is None:
            raise QueryError(f"expected an element type at offset {pos} in class chain {src!r}")
        type_name = m.group()
        if type_name not in _ANY_TYPES and not type_name.startswith("XCUIElementType"):
            raise QueryError(f"invalid element type {type_name!r} in class chain {src!r}")
        pos = m.end()
        filters: list[tuple[str, Any]] = []
        while pos < n and src[pos] == "[":
            if src.startswith("[`", pos):
                close = src.find("`]", pos + 2)
                if close < 0:
                    raise QueryError(f"unterminated [`…`] predicate in class chain {src!r}")
                filters.append(("self", parse_predicate(src[pos + 2 : close])))
                pos = close + 2
            elif src.startswith("[$", pos):
                close = src.find("$]", pos + 2)
                if close < 0:
                    raise QueryError(f"unterminated [$…$] predicate in class chain {src!r}")
                filters.append(("descendant", parse_predicate(src[pos + 2 : close])))
                pos = close + 2
            else:
                close = src.find("]", pos)
                if close < 0:
                    raise QueryError(f"unterminated [n] in class chain {src!r}")
                try:
                    filters.append(("index", int(src[pos + 1 : close])))
                except ValueError:
                    raise QueryError(f"invalid index {src[pos:close + 1]!r} in class chain {src!r}") from None
                pos = close + 1
        steps.append(
            ClassChainStep(
                descendant=descendant,
                type=None if type_name in _ANY_TYPES else type_name,
                filters=tuple(filters),
                source=src[start:pos],
            )
        )
        if pos == n:
            return steps
        if src[pos] != "/":
            raise QueryError(f"unexpected {src[pos]!r} at offset {pos} in class chain {src!r}")
        pos += 1
        if pos == n:
            raise QueryError(f"class chain ends with '/': {src!r}")


def _apply_index(items: list[IosElement], idx: int) -> list[IosElement]:
    if idx == 0:
        return items
    i = idx - 1 if idx > 0 else idx
    if -len(items) <= i < len(items):
        return [items[i]]
    return []


def find_class_chain(
    snapshot: Snapshot, src: str | Sequence[ClassChainStep], context: IosElement | None = None
) -> list[IosElement]:
    """Elements a class chain selects below `context` (default: the application), in document order."""
    steps = parse_class_chain(src) if isinstance(src, str) else src
    current = [context or snapshot.root]
    flat = snapshot.flat
    for step in steps:
        if step.descendant:
            orders: set[int] = set()
            for parent in current:
                orders.update(range(parent.order + 1, parent.end))
            candidates = [flat[i] for i in sorted(orders)]
        else:
            candidates = [c for parent in current for c in parent.children]
        if step.type is not None:
            candidates = [c for c in candidates if c.type == step.type]
        for kind, arg in step.filters:
            if kind == "self":
                candidates = [c for c in candidates if arg(c)]
            elif kind == "descendant":
                candidates = [c for c in candidates if any(arg(d) for d in flat[c.order + 1 : c.end])]
            else:
                candidates = _apply_index(candidates, arg)
        current = candidates
        if not current:
            break
    return current


# --------------------------------------------------------------------------------------------------
# XPath
# --------------------------------------------------------------------------------------------------


def find_xpath(snapshot: Snapshot, expr: str, context: IosElement | None = None) -> list[IosElement]:
    """Elements an XPath 1.0 expression selects on the XML source (relative to `context` if given)."""
    from lxml import etree

    doc, mapping = snapshot.lxml()
    node: etree._Element = doc
    if context is not None:
        node = next(k for k, v in mapping.items() if v is context)
    try:
        result = node.xpath(expr)
    except etree.XPathError as exc:
        raise QueryError(f"invalid xpath {expr!r}: {exc}") from None
    if not isinstance(result, list):
        raise QueryError(f"xpath {expr!r} does not select elements")
    out: list[IosElement] = []
    for item in result:
        if not isinstance(item, etree._Element) or item not in mapping:
            raise QueryError(f"xpath {expr!r} selects something other than elements")
        out.append(mapping[item])
    return out
