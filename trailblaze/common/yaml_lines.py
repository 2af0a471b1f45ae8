"""The YAML layer of trail files: parse with positions, emit clean block YAML, splice edits into text.

Everything that touches pyyaml lives here so the trail model never sees a yaml node. Loading keeps
every node with its marks (so a problem found later can name `line:col`), detects what pyyaml would
silently accept (duplicate keys, aliases) and keeps timestamps as the strings the author wrote.
Saving a changed file never re-emits the whole document: `replace_entry` / `insert_entry` edit only
the bytes of one mapping entry, so comments, quoting and key order elsewhere survive untouched.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.events import AliasEvent
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.reader import ReaderError
from yaml.resolver import Resolver

from trailblaze.common.limits import MAX_DEPTH, MAX_NODES

try:
    from yaml._yaml import CParser as _CParser

    _FAST = True
except ImportError:  # PyYAML built without libyaml: every document goes through `_Loader`
    _CParser = object  # type: ignore[assignment, misc]
    _FAST = False

__all__ = [
    "YamlDocument",
    "YamlProblem",
    "YamlSyntaxError",
    "content_end",
    "dump_block",
    "dump_entry",
    "insert_entry",
    "parse_document",
    "replace_entry",
    "replace_node",
]

_STR_TAG = "tag:yaml.org,2002:str"
_MAP_TAG = "tag:yaml.org,2002:map"
_SEQ_TAG = "tag:yaml.org,2002:seq"
# kept as the text written: a trail's data is JSON-like (`<<` and `=` are only special in YAML 1.1)
_KEEP_AS_TEXT = {
    "tag:yaml.org,2002:timestamp",
    "tag:yaml.org,2002:binary",
    "tag:yaml.org,2002:merge",
    "tag:yaml.org,2002:value",
}
_NUMBER_TAGS = frozenset({"tag:yaml.org,2002:int", "tag:yaml.org,2002:float"})
_SCALAR_TAGS = {
    _STR_TAG,
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:null",
    *_KEEP_AS_TEXT,
}

Path = tuple[str | int, ...]

_CONSTRUCTOR = SafeConstructor()


@dataclass(frozen=True)
class YamlProblem:
    """A problem found while reading the YAML structure (1-based position)."""

    line: int
    column: int
    message: str


class YamlSyntaxError(Exception):
    """The text is not YAML at all; carries the problems with their positions."""

    def __init__(self, problems: list[YamlProblem]) -> None:
        super().__init__("; ".join(p.message for p in problems))
        self.problems = problems


class _TooBig(Exception):
    """The document passes a bound of `_limits` (too deep, too many nodes); stops the composer."""

    def __init__(self, mark: yaml.Mark, message: str) -> None:
        super().__init__(message)
        self.mark = mark
        self.message = message


class _Bounded(Composer):
    """The composer of both loaders: it refuses aliases and bounds nesting and size while it composes.

    An alias is never resolved (it becomes an empty value and a problem at its mark), so no later
    walk can expand `*a` into a billion nodes; the composer recurses once per nesting level, so
    the depth is bounded here, before Python's stack is.
    """

    alias_marks: list[yaml.Mark]
    _depth: int
    _count: int

    def _bound(self) -> None:
        self.alias_marks = []
        self._depth = 0
        self._count = 0

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        event = self.peek_event()  # type: ignore[attr-defined]
        self._count += 1
        if self._count > MAX_NODES:
            raise _TooBig(
                event.start_mark,
                f"more than {MAX_NODES:,} YAML values in one file; a trail this large is not supported, "
                "split it into several trail files",
            )
        if isinstance(event, AliasEvent):
            self.get_event()  # type: ignore[attr-defined]
            start: Any = event.start_mark
            self.alias_marks.append(start)
            return ScalarNode("tag:yaml.org,2002:null", "", start, start)
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise _TooBig(
                    event.start_mark,
                    f"lists and maps nested more than {MAX_DEPTH} levels deep; a trail needs far fewer, "
                    "flatten the structure",
                )
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


class _Loader(_Bounded, yaml.SafeLoader):
    """PyYAML's own reader, scanner and parser: what names a syntax problem."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._bound()


class _FastLoader(_Bounded, _CParser, SafeConstructor, Resolver):
    """libyaml scans and parses (ten times faster: `validate` of a thousand files takes seconds, not
    half a minute); PyYAML's composer, bounded as in `_Loader`, builds the same nodes with the same
    marks. Only used on text libyaml parses without error (a problem is always named by `_Loader`)
    and that holds none of what libyaml reads more leniently than PyYAML (`_fast_enough`)."""

    def __init__(self, stream: str) -> None:
        _CParser.__init__(self, stream)
        Composer.__init__(self)
        SafeConstructor.__init__(self)
        Resolver.__init__(self)
        self._bound()
        self._text = stream

    # `_Bounded` (a Composer) comes before the C parser: libyaml's own composer, which knows no
    # bounds, is never used, only its events

    def compose_scalar_node(self, anchor: Any) -> ScalarNode:
        node = super().compose_scalar_node(anchor)
        if node.style == "":
            node.style = None  # libyaml's plain style is '', PyYAML's None, and the splicing reads it
        node.start_mark, node.end_mark = self._mark(node.start_mark), self._mark(node.end_mark)
        return node

    def compose_sequence_node(self, anchor: Any) -> SequenceNode:
        node = super().compose_sequence_node(anchor)
        node.end_mark = self._mark(node.end_mark)
        return node

    def compose_mapping_node(self, anchor: Any) -> MappingNode:
        node = super().compose_mapping_node(anchor)
        node.end_mark = self._mark(node.end_mark)
        return node

    def _mark(self, mark: Any) -> Any:
        """libyaml ends a text that has no final line break on a line after it; PyYAML on its last."""
        text = self._text
        if mark.index < len(text) or text.endswith(("\n", "\r")):
            return mark
        line_start = max(text.rfind("\n"), text.rfind("\r")) + 1
        line = text.count("\n") + text.count("\r") - text.count("\r\n")
        return yaml.Mark(mark.name, mark.index, line, len(text) - line_start, mark.buffer, mark.pointer)


_LENIENT = re.compile("[\t\x85\u2028\u2029\ufeff]")
"""What libyaml reads where PyYAML refuses or reads it otherwise: tabs as blanks, Unicode line breaks, a BOM."""


def _fast_enough(text: str) -> bool:
    """Whether libyaml reads `text` exactly as PyYAML would (found by fuzzing the two against each
    other): not with the characters of `_LENIENT`, nor a `?` where flow collections may hold one
    (libyaml takes `{a: b? c}`, PyYAML does not)."""
    return _FAST and not _LENIENT.search(text) and not ("?" in text and ("{" in text or "[" in text))


@dataclass
class YamlDocument:
    """A parsed YAML document: plain Python data plus the node of every path in it.

    Paths are tuples of mapping keys and list indexes from the root, e.g. `("trail", 0, "step")`.
    """

    text: str
    root: Node | None
    data: Any
    problems: list[YamlProblem] = field(default_factory=list)
    _nodes: dict[Path, Node] = field(default_factory=dict)
    _keys: dict[Path, Node] = field(default_factory=dict)

    def node(self, path: Path) -> Node | None:
        """The value node at `path`, or None when the path does not exist."""
        return self._nodes.get(path)

    def key_node(self, path: Path) -> Node | None:
        """The key node of the mapping entry at `path` (None for list items and the root)."""
        return self._keys.get(path)

    def position(self, path: Path, *, key: bool = False) -> tuple[int, int]:
        """1-based (line, column) of `path`, or of its nearest existing ancestor.

        Args:
            path: where to look.
            key: point at the entry's key rather than its value (used for unknown keys).
        """
        probe = path
        value = self._nodes.get(path)
        if isinstance(value, ScalarNode) and value.value == "" and not value.style:
            key = True  # `key:` with nothing after it: point at the key, not past the colon
        while True:
            node = (self._keys.get(probe) if key else None) or self._nodes.get(probe)
            if node is not None:
                mark = node.start_mark
                return mark.line + 1, mark.column + 1
            if not probe:
                return 1, 1
            probe = probe[:-1]
            key = False


def parse_document(text: str) -> YamlDocument:
    """Parse one YAML document keeping node positions.

    Raises:
        YamlSyntaxError: when the text is not well-formed YAML or holds more than one document.
    """
    loader: _Loader | _FastLoader | None = None
    if _fast_enough(text):
        loader = _FastLoader(text)
        try:
            root = loader.get_single_node()
        except _TooBig as exc:
            raise YamlSyntaxError([YamlProblem(exc.mark.line + 1, exc.mark.column + 1, exc.message)]) from None
        except (yaml.YAMLError, UnicodeError, ValueError):
            loader = None  # PyYAML reads it again and names the problem as it always has
        finally:
            if loader is not None:
                loader.dispose()
    if loader is None:
        loader, root = _python_parse(text)
    return _document(text, loader, root)


def _python_parse(text: str) -> tuple[_Loader, Node | None]:
    try:
        loader = _Loader(text)
    except ReaderError as exc:  # a character YAML forbids anywhere in a stream
        raise YamlSyntaxError([_reader_problem(text, exc)]) from None
    try:
        root = loader.get_single_node()
    except _TooBig as exc:
        raise YamlSyntaxError([YamlProblem(exc.mark.line + 1, exc.mark.column + 1, exc.message)]) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        raise YamlSyntaxError([YamlProblem(line, col, _syntax_message(exc))]) from None
    except ReaderError as exc:
        raise YamlSyntaxError([_reader_problem(text, exc)]) from None
    except yaml.YAMLError as exc:
        raise YamlSyntaxError([YamlProblem(1, 1, f"YAML syntax error: {exc}; fix the YAML syntax")]) from None
    finally:
        loader.dispose()
    return loader, root


def _document(text: str, loader: _Loader | _FastLoader, root: Node | None) -> YamlDocument:
    if loader.alias_marks:  # refused whole: the data would have holes where the aliases were
        mark, more = loader.alias_marks[0], len(loader.alias_marks) - 1
        also = f" (and {more} more alias{'es' * (more != 1)})" if more else ""  # one line, not thousands
        message = f"YAML aliases (*name) are not supported in trail files{also}; write the value out in full"
        raise YamlSyntaxError([YamlProblem(mark.line + 1, mark.column + 1, message)])
    doc = YamlDocument(text=text, root=root, data=None)
    if root is not None:
        doc.data = _build(doc, root, (), set())
    return doc


_SYNTAX_HINTS = (
    ("'\\t'", "indent with spaces, not tabs"),
    ("another document", "a trail file holds one YAML document; remove the `---` line"),
    ("mapping values are not allowed", "put text that contains ': ' in quotes"),
    ("could not find expected ':'", "check the indentation, or quote text that contains ': '"),
    ("did not find expected key", "check the indentation of this line"),
    ("found undefined alias", "write the value out in full (aliases are not supported)"),
    ("expected <block end>", "check the indentation: this line must line up with the keys or `- ` items above it"),
    ("did not find expected '-' indicator", "check the indentation: line this `- ` item up with the ones above"),
    ("expected ',' or '}'", "close every `{` with a `}` (and put text holding `,` `{` `}` in quotes)"),
    ("expected ',' or ']'", "close every `[` with a `]` (and put text holding `,` `[` `]` in quotes)"),
)


def _reader_problem(text: str, exc: ReaderError) -> YamlProblem:
    position = max(0, min(int(exc.position), len(text)))
    line = text.count("\n", 0, position) + 1
    column = position - (text.rfind("\n", 0, position) + 1) + 1
    return YamlProblem(
        line,
        column,
        f"character U+{exc.character:04X} is not allowed in YAML text; remove it or write it as an escape",
    )


def _syntax_message(exc: yaml.MarkedYAMLError) -> str:
    problem = exc.problem or "invalid YAML"
    context = exc.context or ""
    if context and exc.context_mark is not None and exc.problem_mark is not None:
        if exc.context_mark.line != exc.problem_mark.line:
            context = f"{context} (line {exc.context_mark.line + 1})"
    message = f"{context}: {problem}" if context else problem
    hint = next((fix for needle, fix in _SYNTAX_HINTS if needle in message), "fix the YAML syntax")
    return f"YAML syntax error: {message}; {hint}"


def _build(doc: YamlDocument, node: Node, path: Path, active: set[int]) -> Any:
    doc._nodes[path] = node
    if id(node) in active:  # a recursive alias; the alias itself was already reported
        return None
    if isinstance(node, ScalarNode):
        return _scalar(doc, node)
    if isinstance(node, SequenceNode):
        if node.tag != _SEQ_TAG:
            _tag_problem(doc, node)
        active.add(id(node))
        items = [_build(doc, item, (*path, i), active) for i, item in enumerate(node.value)]
        active.discard(id(node))
        return items
    assert isinstance(node, MappingNode)
    if node.tag != _MAP_TAG:
        _tag_problem(doc, node)
    active.add(id(node))
    out: dict[Any, Any] = {}
    first_seen: dict[Any, Node] = {}
    for key_node, value_node in node.value:
        if not isinstance(key_node, ScalarNode):
            line, col = key_node.start_mark.line + 1, key_node.start_mark.column + 1
            doc.problems.append(YamlProblem(line, col, "mapping keys must be plain text, not lists or maps"))
            continue
        key = _scalar(doc, key_node)
        if key is None or isinstance(key, bool | float):
            key = key_node.value  # `null:` / `yes:` / `1.5:` as keys are names the author wrote
        if key in first_seen:
            first = first_seen[key].start_mark.line + 1
            line, col = key_node.start_mark.line + 1, key_node.start_mark.column + 1
            doc.problems.append(
                YamlProblem(
                    line, col, f"duplicate key '{key}' (first written on line {first}); remove one of them"
                )
            )
            continue
        first_seen[key] = key_node
        doc._keys[(*path, key)] = key_node
        out[key] = _build(doc, value_node, (*path, key), active)
    active.discard(id(node))
    return out


_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _scalar(doc: YamlDocument, node: ScalarNode) -> Any:
    found = _SURROGATE.search(node.value)
    if found is not None:  # only an escape makes one; it is no character and cannot be encoded
        line, col = node.start_mark.line + 1, node.start_mark.column + 1
        doc.problems.append(
            YamlProblem(
                line,
                col,
                f"the escape \\u{ord(found.group()):04x} is half of a UTF-16 surrogate pair, not a character; "
                "write the character itself or its \\U0001xxxx escape",
            )
        )
        return _SURROGATE.sub("\ufffd", node.value)
    if node.tag in _KEEP_AS_TEXT:
        return node.value
    if node.tag not in _SCALAR_TAGS:
        _tag_problem(doc, node)
        return node.value
    if node.tag in _NUMBER_TAGS and node.style is None and ("_" in node.value or ":" in node.value):
        return node.value  # `8:00`, `1_000`: numbers in YAML 1.1 only; text in 1.2, as Trailblaze reads them
    construct = SafeConstructor.yaml_constructors[node.tag]
    try:
        return construct(_CONSTRUCTOR, node)
    except (yaml.YAMLError, ValueError, OverflowError):
        return node.value


def _tag_problem(doc: YamlDocument, node: Node) -> None:
    line, col = node.start_mark.line + 1, node.start_mark.column + 1
    doc.problems.append(YamlProblem(line, col, f"unsupported YAML tag '{node.tag}'; remove the tag"))


# --- emitting -------------------------------------------------------------------------------------


class _Dumper(yaml.SafeDumper):
    """Block style, sequences indented under their key (the style of Trailblaze's trails)."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)

    def ignore_aliases(self, data: Any) -> bool:
        # The reader refuses aliases (`_document`), so the writer never makes one: an object used twice
        # (a sub-flow run twice) is written out in full both times.
        return True


def _str_representer(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style: str | None = None
    if any(c in value for c in "\x85\u2028\u2029"):
        style = '"'  # pyyaml folds these Unicode line breaks in plain and single-quoted styles
    elif "\n" in value.strip("\n") and value == value.rstrip(" "):
        style = "|"
    return dumper.represent_scalar(_STR_TAG, value, style=style)


_Dumper.add_representer(str, _str_representer)


def dump_block(data: Any, indent: int = 0) -> str:
    """Block-style YAML for `data`, every line indented by `indent` spaces, ending in a newline."""
    text = yaml.dump(
        data,
        Dumper=_Dumper,
        default_flow_style=False,
        sort_keys=False,
        allow_unicode=True,
        width=1_000_000,
        indent=2,
    )
    if text.endswith("...\n"):  # a bare scalar document
        text = text[: -len("...\n")]
    if not indent:
        return text
    pad = " " * indent
    return "".join(pad + line if line.strip() else line for line in text.splitlines(keepends=True))


def dump_entry(key: str, value: Any, indent: int) -> str:
    """One `key: value` mapping entry for a block mapping whose keys sit at column `indent`.

    The first line carries no indentation (it replaces or follows text already at that column); no
    trailing newline, so the entry can be spliced into the middle of a line's end.
    """
    text = dump_block({key: value}, indent)
    return text[indent:].rstrip("\n")


# --- splicing -------------------------------------------------------------------------------------


def content_end(text: str, node: Node) -> int:
    """Offset just after the last character that belongs to `node` (comments excluded)."""
    if isinstance(node, ScalarNode):
        end = node.end_mark.index
        if node.style in ("|", ">"):  # block scalars swallow their trailing line breaks
            while end > node.start_mark.index and text[end - 1] in "\n\r":
                end -= 1
        return end
    assert isinstance(node, MappingNode | SequenceNode)
    if node.flow_style or not node.value:
        return int(node.end_mark.index)
    if isinstance(node, SequenceNode):
        return content_end(text, node.value[-1])
    key_node, value_node = node.value[-1]
    return _entry_end(text, key_node, value_node)


def _entry_end(text: str, key_node: Node, value_node: Node) -> int:
    """End of a `key: value` entry; for `key:` with no value, just after the colon."""
    end = content_end(text, key_node)
    value_end = content_end(text, value_node)
    if isinstance(value_node, ScalarNode) and value_node.value == "" and not value_node.style:
        # an empty value sits right after its `:`; a mark further away belongs to the next token
        return value_end if "\n" not in text[end:value_end] else end
    return max(end, value_end)


_BREAKS = re.compile("[\r\n\x85\u2028\u2029]")


def _line_end(text: str, offset: int) -> int:
    """Offset of the line break ending the line at `offset` (YAML 1.1 breaks, as pyyaml counts them)."""
    found = _BREAKS.search(text, offset)
    return len(text) if found is None else found.start()


def replace_entry(text: str, key_node: Node, value_node: Node, key: str, value: Any) -> str:
    """Rewrite one entry of a block mapping, leaving everything outside it byte-identical."""
    start = key_node.start_mark.index
    end = _entry_end(text, key_node, value_node)
    return text[:start] + dump_entry(key, value, key_node.start_mark.column) + text[end:]


def insert_entry(text: str, mapping: MappingNode, key: str, value: Any) -> str:
    """Append an entry to a non-empty block mapping, after the line its last entry ends on."""
    first_key = mapping.value[0][0]
    column = int(first_key.start_mark.column)
    at = _line_end(text, content_end(text, mapping))
    return text[:at] + "\n" + " " * column + dump_entry(key, value, column) + text[at:]


def replace_node(text: str, node: Node, value: Any) -> str:
    """Replace a whole node that is a list item (`- <node>`) with block YAML for `value`."""
    column = node.start_mark.column
    body = dump_block(value, column)[column:].rstrip("\n")
    return text[: node.start_mark.index] + body + text[content_end(text, node) :]


def strings(path: Path, value: Any) -> Iterator[tuple[Path, str]]:
    """Every text value in `value` (plain data) with its path below `path`, in document order."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from strings((*path, key), item)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from strings((*path, i), item)
