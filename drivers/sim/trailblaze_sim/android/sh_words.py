"""Words of an `sh` command line as `/system/bin/sh` (mksh) reads them: quoting, operators,
parameter expansion (`$VAR`, `${VAR}`, `$?`, `$$`) and arithmetic (`$((1 + 2 * X))`).

`tokenize` keeps each word raw (quotes included) so the shell can expand it when the command runs,
after earlier `;`-separated assignments took effect; `expand` then resolves it to its final text.
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable, Mapping

__all__ = ["OPERATOR_CHARS", "ShSyntaxError", "arithmetic", "expand", "tokenize"]

OPERATOR_CHARS = ";&|<>"


class ShSyntaxError(ValueError):
    """Unbalanced quotes or parentheses, a bad arithmetic expression."""


def tokenize(line: str) -> list[str]:
    """Raw words and operator runs (`;`, `&&`, `||`, `|`, `>`, `>>`, `>&`) of one command line.

    A word keeps its quotes and `$(...)` groups; `2>/dev/null` gives `2`, `>`, `/dev/null` like the
    shell's own lexer. Raises ShSyntaxError on an unterminated quote or `$(`.
    """
    out: list[str] = []
    word: list[str] = []
    i, n = 0, len(line)

    def flush() -> None:
        if word:
            out.append("".join(word))
            word.clear()

    while i < n:
        c = line[i]
        if c in " \t\n":
            flush()
            i += 1
        elif c == "#" and not word:
            break  # a comment runs to the end of the line
        elif c in OPERATOR_CHARS:
            flush()
            j = i
            while j < n and line[j] in OPERATOR_CHARS:
                j += 1
            out.append(line[i:j])
            i = j
        elif c == "'":
            end = line.find("'", i + 1)
            if end < 0:
                raise ShSyntaxError("unterminated quoted string")
            word.append(line[i : end + 1])
            i = end + 1
        elif c == '"':
            j = i + 1
            while j < n and line[j] != '"':
                j += 2 if line[j] == "\\" else 1
            if j >= n:
                raise ShSyntaxError("unterminated quoted string")
            word.append(line[i : j + 1])
            i = j + 1
        elif c == "\\" and i + 1 < n:
            word.append(line[i : i + 2])
            i += 2
        elif c == "$" and line.startswith("$(", i):
            depth, j = 0, i + 1
            while j < n:
                if line[j] == "(":
                    depth += 1
                elif line[j] == ")":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            if j >= n:
                raise ShSyntaxError("unterminated $(")
            word.append(line[i : j + 1])
            i = j + 1
        else:
            word.append(c)
            i += 1
    flush()
    return out


_PARAM = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*|\?|\$)\}|([A-Za-z_][A-Za-z0-9_]*|\?|\$|[0-9]))")


def expand(word: str, env: Mapping[str, str], run: Callable[[str], str] | None = None) -> str:
    """The final text of one raw word: quotes removed, `$VAR` / `$((expr))` expanded outside single
    quotes, `$(command)` replaced by `run(command)` (trailing newlines dropped) when `run` is given."""
    out: list[str] = []
    i, n = 0, len(word)
    while i < n:
        c = word[i]
        if c == "'":
            end = word.index("'", i + 1)
            out.append(word[i + 1 : end])
            i = end + 1
        elif c == '"':
            j = i + 1
            chunk: list[str] = []
            while word[j] != '"':
                if word[j] == "\\" and word[j + 1] in '"\\$`':
                    chunk.append(word[j + 1])
                    j += 2
                    continue
                chunk.append(word[j])
                j += 1
            out.append(_expand_dollars("".join(chunk), env, run))
            i = j + 1
        elif c == "\\" and i + 1 < n:
            out.append(word[i + 1])
            i += 2
        else:
            j = i
            while j < n and word[j] not in "'\"\\":
                j += 1
            out.append(_expand_dollars(word[i:j], env, run))
            i = j
    return "".join(out)


def _expand_dollars(text: str, env: Mapping[str, str], run: Callable[[str], str] | None) -> str:
    if "$" not in text:
        return text
    out: list[str] = []
    i = 0
    while i < len(text):
        if text.startswith("$((", i):
            end = _matching(text, i + 1)
            out.append(str(arithmetic(text[i + 3 : end - 1], env)))
            i = end + 1
        elif text.startswith("$(", i):
            end = _matching(text, i + 1)
            out.append(run(text[i + 2 : end]).rstrip("\n") if run is not None else "")
            i = end + 1
        elif (m := _PARAM.match(text, i)) is not None:
            out.append(env.get(m.group(1) or m.group(2), ""))
            i = m.end()
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def _matching(text: str, open_at: int) -> int:
    depth = 0
    for j in range(open_at, len(text)):
        if text[j] == "(":
            depth += 1
        elif text[j] == ")":
            depth -= 1
            if depth == 0:
                return j
    raise ShSyntaxError("unterminated $(")


_BINOPS: dict[type[ast.operator], Callable[[int, int], int]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Mod: lambda a, b: int(a - b * int(a / b)),  # C remainder: sign follows the dividend
    ast.Div: lambda a, b: int(a / b),  # C division truncates toward zero
    ast.FloorDiv: lambda a, b: int(a / b),
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
    ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
}
_CMPS: dict[type[ast.cmpop], Callable[[int, int], bool]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}


def arithmetic(expr: str, env: Mapping[str, str]) -> int:
    """`$(( expr ))` in 64-bit integers: + - * / % << >> & | ^, comparisons (1/0), unary -,
    parentheses; names and `$NAME` read variables (unset or empty is 0). Division by zero and
    anything else raise ShSyntaxError, as sh reports them."""
    source = _expand_dollars(expr, env, None).replace("&&", " and ").replace("||", " or ")
    source = re.sub(r"!(?!=)", " not ", source)
    try:
        tree = ast.parse(source.strip() or "0", mode="eval")
    except SyntaxError as exc:
        raise ShSyntaxError(f"arithmetic syntax error: {expr.strip()}") from exc
    return _eval(tree.body, env, expr)


def _eval(node: ast.expr, env: Mapping[str, str], expr: str) -> int:
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return int(node.value)
    if isinstance(node, ast.Name):
        raw = env.get(node.id, "").strip() or "0"
        try:
            return int(raw, 0)
        except ValueError:
            return arithmetic(raw, env)
    if isinstance(node, ast.UnaryOp):
        value = _eval(node.operand, env, expr)
        if isinstance(node.op, ast.USub):
            return -value
        if isinstance(node.op, ast.UAdd):
            return value
        if isinstance(node.op, ast.Invert):
            return ~value
        if isinstance(node.op, ast.Not):
            return int(not value)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        left, right = _eval(node.left, env, expr), _eval(node.right, env, expr)
        if isinstance(node.op, (ast.Div, ast.FloorDiv, ast.Mod)) and right == 0:
            raise ShSyntaxError(f"{expr.strip()}: divide by zero")
        return _BINOPS[type(node.op)](left, right)
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _CMPS:
        left, right = _eval(node.left, env, expr), _eval(node.comparators[0], env, expr)
        return int(_CMPS[type(node.ops[0])](left, right))
    if isinstance(node, ast.BoolOp):
        values = [_eval(v, env, expr) for v in node.values]
        return int(all(values) if isinstance(node.op, ast.And) else any(values))
    raise ShSyntaxError(f"arithmetic syntax error: {expr.strip()}")
