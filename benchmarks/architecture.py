"""Figures of the code's shape (issue 29): modules at the top of `trailblaze/`, the largest parameter
lists, how many tool / context / kind definitions there are, and how many layers the imports make.
The tool model's figures (issue 39, docs/adr/0059-one-tool-set-per-run.md) are counted from the
syntax trees: the types that model a tool, the collections that hold tools by name, the names a
tool's context goes by, and the places one edits to add a tool the model calls by ref. Issue 46 adds
the duplicated gesture code (`gesture_copies`: the functions that compute one gesture, found by what
they do, beyond the first) and where Maestro lives (`maestro_tier`: its package, its tier, its imports
that reach up).

    python benchmarks/architecture.py
    python benchmarks/architecture.py --before e06e342

`--before REV` extracts that commit (`git archive REV | tar -x`) and prints the figures counted from
the code (tool types and collections, places to add a ref tool, rich imports in `engine/`, the
simulator's top-level modules and largest classes) for REV and for the working tree side by side. The
timed figures it does not measure: the fast tier's time is `python -m pytest -n 2 -m "not slow"` in
each checkout, and start-up is `benchmarks/startup.py` (`PYTHONPATH=<checkout>` for another).

The import graph is the one tests/project/test_layering.py checks (built in tests/support/layering.py: every import
inside `trailblaze/`, module level or not); "layers" is the longest import chain, counted in modules.

The simulator's figures (issue 39, ADR 0061) follow: modules at the top of `trailblaze_sim/`, its
packages and tiers (tests/sim/test_sim_layering.py) and the method counts of its five largest classes
(every `def` in the class body, private ones included).
"""

from __future__ import annotations

import argparse
import ast
import functools
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "trailblaze"
sys.path.insert(0, str(ROOT))

from tests.support.layering import TIERS, TOP, import_graph, module_paths, package_of, package_violations  # noqa: E402


def _layers(graph: dict[str, set[str]]) -> int:
    sys.setrecursionlimit(10_000)

    @functools.cache
    def depth(name: str) -> int:
        return 1 + max((depth(d) for d in graph[name]), default=0)

    return max(depth(n) for n in graph)


def _parameters(modules: dict[str, Path]) -> list[tuple[int, str]]:
    found = []
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                a = node.args
                count = len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs)
                count -= 1 if a.args and a.args[0].arg in ("self", "cls") else 0
                found.append((count, f"{name}.{node.name}"))
    return sorted(found, reverse=True)


def _trees(text: dict[str, str]) -> dict[str, ast.Module]:
    return {name: ast.parse(t) for name, t in text.items()}


def _bases(node: ast.ClassDef) -> set[str]:
    return {ast.unparse(b).rsplit(".", 1)[-1] for b in node.bases}


def _params_models(trees: dict[str, ast.Module], root: str = "BaseModel") -> set[str]:
    """Classes that are params models (pydantic), found by following bases from `root`."""
    models = {root}
    classes = [n for tree in trees.values() for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]
    grew = True
    while grew:
        grew = False
        for c in classes:
            if c.name not in models and _bases(c) & models:
                models.add(c.name)
                grew = True
    return models


def tool_types(trees: dict[str, ast.Module]) -> list[str]:
    """Classes that model a tool: named `…Tool` or `ToolDef`, params models left out."""
    models = _params_models(trees)
    return sorted(
        f"{name}.{n.name}"
        for name, tree in trees.items()
        for n in tree.body
        if isinstance(n, ast.ClassDef) and re.fullmatch(r"\w*Tool|ToolDef", n.name) and n.name not in models
    )


def tool_collections(trees: dict[str, ast.Module], types: list[str]) -> list[str]:
    """What holds tools by name: a module-level `dict[str, <tool type>]`, or a class that keeps one
    (`self._x: dict[str, <tool type>]`) or answers `get(name) -> <tool type> | None`."""
    short = {t.rsplit(".", 1)[-1] for t in types}
    word = re.compile(r"\b(" + "|".join(map(re.escape, sorted(short))) + r")\b")

    def by_name(annotation: ast.expr | None) -> bool:
        text = ast.unparse(annotation) if annotation is not None else ""
        return bool(re.match(r"(dict|Mapping)\[str,", text)) and bool(word.search(text))

    found = []
    for name, tree in trees.items():
        for n in tree.body:
            if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name) and by_name(n.annotation):
                found.append(f"{name}.{n.target.id}")
            if not isinstance(n, ast.ClassDef):
                continue
            holds = any(
                isinstance(a, ast.AnnAssign) and isinstance(a.target, ast.Attribute) and by_name(a.annotation)
                for a in ast.walk(n)
            )
            gets = any(
                isinstance(f, ast.FunctionDef) and f.name == "get" and f.returns is not None
                and bool(word.search(ast.unparse(f.returns)))
                for f in n.body
            )
            if holds or gets:
                found.append(f"{name}.{n.name}")
    return sorted(found)


def context_names(trees: dict[str, ast.Module]) -> tuple[list[str], int]:
    """The names a tool's context goes by, and how many classes they name: classes named
    `…Context`, classes whose docstring says they are a tool's context, and aliases of either."""
    classes: dict[str, str] = {}
    for name, tree in trees.items():
        for n in tree.body:
            if not isinstance(n, ast.ClassDef):
                continue
            doc = (ast.get_docstring(n) or "").split(".")[0].lower()
            if n.name.endswith("Context") or (re.search(r"\bcontext\b", doc) and "tool" in doc):
                classes[f"{name}.{n.name}"] = f"{name}.{n.name}"
    short = {k.rsplit(".", 1)[-1]: k for k in classes}
    names = dict(classes)
    for name, tree in trees.items():
        for n in tree.body:
            if (
                isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
                and isinstance(n.value, ast.Name) and n.value.id in short
            ):
                names[f"{name}.{n.targets[0].id}"] = short[n.value.id]
    return sorted(names), len(set(names.values()))


def _referenced(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} | {
        n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)
    }


def _defined(node: ast.stmt) -> str | None:
    if isinstance(node, ast.ClassDef | ast.FunctionDef):
        return node.name
    if isinstance(node, ast.Assign | ast.AnnAssign):
        target = node.targets[0] if isinstance(node, ast.Assign) else node.target
        return target.id if isinstance(target, ast.Name) else None
    return None


def ref_tool_places(trees: dict[str, ast.Module]) -> dict[str, tuple[int, int, int, int]]:
    """For each tool the model calls by ref (its params model, not a recorded tool's, has a `ref`
    field): the top-level statements one writes to add it (its params model, what names it, and
    what names those if private) and their files; then the same counted with the recorded tool it
    writes (its params model and what names it), which a new ref tool may need too."""
    tools_pkg = {k: v for k, v in trees.items() if k.startswith("trailblaze.tools")}
    statements = [(name, n) for name, tree in trees.items() for n in tree.body]
    recorded: dict[str, tuple[str, ast.ClassDef]] = {}
    for name, tree in tools_pkg.items():
        for n in tree.body:
            if isinstance(n, ast.ClassDef):
                for a in n.body:
                    if (
                        isinstance(a, ast.Assign) and ast.unparse(a.targets[0]) == "tool_name"
                        and isinstance(a.value, ast.Constant)
                    ):
                        recorded[a.value.value] = (name, n)

    def referencing(names: set[str], module: str | None = None) -> list[tuple[str, ast.stmt]]:
        return [
            (m, s) for m, s in statements
            if _defined(s) not in names and _referenced(s) & names and module in (None, m)
        ]

    recorded_params = _params_models(trees, "RecordedToolParams")

    out: dict[str, tuple[int, int, int, int]] = {}
    for name, tree in tools_pkg.items():
        for n in tree.body:
            if not (isinstance(n, ast.ClassDef) and n.name not in recorded_params and any(
                isinstance(a, ast.AnnAssign) and ast.unparse(a.target) == "ref" for a in n.body
            )):
                continue
            places = [(name, n), *referencing({n.name})]
            private = {d for m, s in places[1:] if (d := _defined(s)) and d.startswith("_") and m == name}
            places += [p for p in referencing(private, name) if p not in places]
            writes = {
                c.value for _, s in places for c in ast.walk(s)
                if isinstance(c, ast.Constant) and isinstance(c.value, str) and c.value in recorded
            }
            files = {m for m, _ in places}
            with_recorded = (len(places), len(files))
            for tool in sorted(writes):
                module, cls = recorded[tool]
                rec = [(module, cls), *(p for p in referencing({cls.name}) if p[0].startswith("trailblaze.tools"))]
                with_recorded = max(with_recorded, (len(places) + len(rec), len(files | {m for m, _ in rec})))
            out[n.name] = (len(places), len(files), *with_recorded)
    return out


def handler_shapes(trees: dict[str, ast.Module]) -> list[str]:
    """The distinct shapes a tool's handler (`ToolDef.handler`) is called with: each call of
    `….handler(…)` or of a local `handler` by its argument count and what takes its result (a
    `status, message` pair, or the annotation of the name it is assigned to)."""
    shapes: set[str] = set()
    for tree in trees.values():
        for n in ast.walk(tree):
            if not isinstance(n, ast.Assign | ast.AnnAssign) or n.value is None:
                continue
            call = next((c for c in ast.walk(n.value) if isinstance(c, ast.Call) and _calls_handler(c)), None)
            if call is None:
                continue
            if isinstance(n, ast.AnnAssign):
                into = ast.unparse(n.annotation)
            else:
                target = n.targets[0]
                into = f"{len(target.elts)}-tuple" if isinstance(target, ast.Tuple) else "untyped"
            shapes.add(f"{len(call.args)} args -> {into}")
    return sorted(shapes)


def _calls_handler(call: ast.Call) -> bool:
    func = call.func
    return (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")) == "handler"


def context_classes(trees: dict[str, ast.Module]) -> list[str]:
    """The classes a tool runs on: the ones `context_names` finds, protocols included."""
    names, _ = context_names(trees)
    return sorted({n for n in names if n.rsplit(".", 1)[-1][:1].isupper()} & _class_names(trees))


def _class_names(trees: dict[str, ast.Module]) -> set[str]:
    return {f"{name}.{n.name}" for name, tree in trees.items() for n in tree.body if isinstance(n, ast.ClassDef)}


def recorded_tool_places(trees: dict[str, ast.Module]) -> tuple[tuple[int, int], tuple[int, int]]:
    """The places one writes to add a built-in recorded tool like today's, (statements, files), the
    fewest and the most over them: its params model, the handler whose decorator names it, and
    every hand-written row that names it as "module:Model" (a generated module does not count)."""
    written = {
        name: tree for name, tree in trees.items()
        if "Generated by" not in ((ast.get_docstring(tree) or "").split("\n\n")[1:2] or [""])[0]
    }
    counts: list[tuple[int, int]] = []
    for name, tree in trees.items():
        for cls in tree.body:
            if not (isinstance(cls, ast.ClassDef) and any(
                isinstance(a, ast.Assign) and ast.unparse(a.targets[0]) == "tool_name" for a in cls.body
            )):
                continue
            places = {(name, cls.lineno)}
            for module, other in written.items():
                for s in other.body:
                    decorated = isinstance(s, ast.FunctionDef) and any(
                        cls.name in _referenced(d) for d in s.decorator_list
                    )
                    row = any(
                        isinstance(c, ast.Constant) and isinstance(c.value, str) and c.value.endswith(f":{cls.name}")
                        for c in ast.walk(s)
                    )
                    if decorated or row:
                        places.add((module, s.lineno))
            if len(places) > 1:  # a model with a handler: a built-in tool
                counts.append((len(places), len({m for m, _ in places})))
    return min(counts, default=(0, 0)), max(counts, default=(0, 0))


def rich_imports(trees: dict[str, ast.Module], package: str = "trailblaze.engine") -> list[str]:
    """The modules of `package` that import rich, at module level or inside a function."""
    return sorted(
        name
        for name, tree in trees.items()
        if name == package or name.startswith(package + ".")
        if any(
            (isinstance(n, ast.Import) and any(a.name.split(".")[0] == "rich" for a in n.names))
            or (isinstance(n, ast.ImportFrom) and n.level == 0 and (n.module or "").split(".")[0] == "rich")
            for n in ast.walk(tree)
        )
    )


_GESTURES = ("swipe path", "app area", "scroll area", "swiper", "scroll-until loop")


def gesture_copies(trees: dict[str, ast.Module]) -> dict[str, list[str]]:
    """The functions that compute each shared gesture (issue 46), by gesture, found by what they do: a
    swipe path reads an area's `center`, `width` and `height`; the app area takes the `max` by
    `visible_bounds` of the hierarchy's `roots` by `window_kind`; the scroll area the `max` by
    `visible_bounds` of the `scrollable` nodes; a swiper returns a lambda that calls `swipe`; a
    scroll-until loop acts (`act`) and compares the screens (`same_screen`) in one loop. A gesture
    computed in more than one function is duplicated."""

    def names(node: ast.AST, kind: type[ast.AST]) -> set[str]:
        if kind is ast.Attribute:
            return {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}
        calls = (n.func for n in ast.walk(node) if isinstance(n, ast.Call))
        return {f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "") for f in calls}

    def biggest(fn: ast.AST) -> bool:
        return any(
            isinstance(n, ast.Call) and getattr(n.func, "id", "") == "max" and "visible_bounds" in names(n, ast.Attribute)
            for n in ast.walk(fn)
        )

    found: dict[str, list[str]] = {g: [] for g in _GESTURES}
    for module, tree in trees.items():
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            attrs, calls = names(fn, ast.Attribute), names(fn, ast.Call)
            marks = {
                "swipe path": {"center", "width", "height"} <= attrs,
                "app area": "roots" in attrs and "window_kind" in calls and biggest(fn),
                "scroll area": "scrollable" in attrs and biggest(fn),
                "swiper": any(
                    isinstance(r, ast.Return) and isinstance(r.value, ast.Lambda) and "swipe" in names(r.value, ast.Call)
                    for r in ast.walk(fn)
                ),
                "scroll-until loop": any(
                    isinstance(loop, ast.For | ast.While) and {"same_screen", "act"} <= names(loop, ast.Call)
                    for loop in ast.walk(fn)
                ),
            }
            for gesture, marked in marks.items():
                if marked:
                    found[gesture].append(f"{module}.{fn.name}")
    return found


def _gesture_figure(trees: dict[str, ast.Module]) -> str:
    copies = gesture_copies(trees)
    extra = sum(max(0, len(where) - 1) for where in copies.values())
    return f"{extra} (functions per gesture: {', '.join(f'{g} {len(copies[g])}' for g in _GESTURES)})"


def maestro_tier(root: Path) -> str:
    """Where the checkout at `root` keeps Maestro (the package folder named `maestro`), its tier in that
    checkout's `TIERS` (tests/support/layering.py, read from its syntax tree) and its imports that reach
    a package of its own tier or above."""
    layering = ast.parse((root / "tests" / "support" / "layering.py").read_text("utf-8"))
    tiers = next(
        ast.literal_eval(n.value)
        for n in layering.body
        if isinstance(n, ast.AnnAssign) and n.value is not None and ast.unparse(n.target) == "TIERS"
    )
    tier = {name: i for i, names in enumerate(tiers) for name in names}
    home = next(p for p in sorted((root / "trailblaze").rglob("maestro")) if (p / "__init__.py").is_file())
    dotted = ".".join(home.relative_to(root).parts)
    top = home.relative_to(root / "trailblaze").parts[0]
    graph = import_graph(root / "trailblaze")

    def package(module: str) -> str:
        parts = module.split(".")
        return parts[1] if len(parts) > 2 or (root / "trailblaze" / parts[-1]).is_dir() else ""

    upward = [
        f"{m} -> {d}"
        for m, deps in graph.items()
        if m == dotted or m.startswith(dotted + ".")
        for d in deps
        if package(d) != top and tier.get(package(d), len(tiers)) >= tier[top]
    ]
    where = "a tier of its own" if top == "maestro" else f"inside {top}/"
    return f"{dotted}, {where} (tier {tier[top] + 1} of {len(tiers)}); imports reaching up: {len(upward)}"
def listener_interfaces(trees: dict[str, ast.Module]) -> list[str]:
    """What a run reports through: Protocol/ABC classes named *Observer, *Listener, *Progress, *Hooks or
    *Events (or whose methods are all `on_*`), and each distinct callback parameter `on_*: Callable[..., None]`."""
    found: set[str] = set()
    for name, tree in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and _bases(node) & {"Protocol", "ABC"}:
                methods = [m.name for m in node.body if isinstance(m, ast.FunctionDef)]
                named = re.search(r"(Observer|Listener|Progress|Hooks|Events)$", node.name)
                if named or (methods and all(m.startswith("on_") for m in methods)):
                    found.add(f"{name}.{node.name}")
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                for arg in node.args.args + node.args.kwonlyargs:
                    note = ast.unparse(arg.annotation) if arg.annotation else ""
                    if arg.arg.startswith("on_") and "Callable" in note and note.rstrip(" |None").endswith("None]"):
                        found.add(f"callback {arg.arg}")
    return sorted(found)


_DRIVER_WORDS = {"appium": "appium", "web": "web", "browser": "web", "playwright": "web",
                 "capability": "appium", "capabilities": "appium"}  # fmt: skip


def driver_names(trees: dict[str, ast.Module], packages: tuple[str, ...] = ("device", "cli")) -> dict[str, int]:
    """Driver-specific names in the core's `device/` and `cli/` (issue 46 item 2), per driver: module
    names and identifiers (defined or used: functions, classes, parameters, variables, attributes,
    keywords, imported names) with a word `appium`, `capabilit(y|ies)` (appium) or `web`, `browser`,
    `playwright` (web), words split at `_`, `.` and case changes. String literals (help texts, error
    messages, which stay byte-identical) are counted apart, as `strings`."""

    def words(text: str) -> set[str]:
        return {w.lower() for w in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])", text)}

    def driver(text: str) -> set[str]:
        return {_DRIVER_WORDS[w] for w in words(text) if w in _DRIVER_WORDS}

    counts = {"appium": 0, "web": 0, "strings": 0}
    for module, tree in trees.items():
        if module.split(".")[1:2] not in ([p] for p in packages):
            continue
        names = [module.rsplit(".", 1)[-1]]
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.append(node.name)
            elif isinstance(node, ast.arg | ast.keyword) and node.arg:
                names.append(node.arg)
            elif isinstance(node, ast.Name):
                names.append(node.id)
            elif isinstance(node, ast.Attribute):
                names.append(node.attr)
            elif isinstance(node, ast.alias):
                names.append(node.asname or node.name)
            elif isinstance(node, ast.ImportFrom) and node.module:
                names.append(node.module)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and driver(node.value):
                counts["strings"] += 1
        for name in names:
            for d in driver(name):
                counts[d] += 1
    return counts


def _driver_figure(trees: dict[str, ast.Module]) -> str:
    c = driver_names(trees)
    return f"appium {c['appium']}, web {c['web']} (string literals naming them: {c['strings']})"


def static_figures(root: Path) -> dict[str, str]:
    """The figures counted from the code of the checkout at `root`, by name, as printed."""
    trees = {name: ast.parse(path.read_text("utf-8")) for name, path in module_paths(root / "trailblaze").items()}
    types = tool_types(trees)
    collections = tool_collections(trees, types)
    places = ref_tool_places(trees)
    most = max(places.values(), default=(0, 0, 0, 0))
    rich = rich_imports(trees)
    listeners = listener_interfaces(trees)
    sim = root / "drivers" / "sim" / "trailblaze_sim"
    top = sorted(p.stem for p in sim.glob("*.py"))
    return {
        "tool types": f"{len(types)} ({', '.join(types)})",
        "tool collections": f"{len(collections)} ({', '.join(collections)})",
        "places to add a ref tool": f"{most[0]} in {most[1]} file(s); with a new recorded tool: {most[2]} in {most[3]}",
        "rich imports in engine/": f"{len(rich)} ({', '.join(rich) or 'none'})",
        "duplicated gesture code": _gesture_figure(trees),
        "Maestro": maestro_tier(root),
        "tool handler signatures": _shapes_figure(trees),
        "context classes": f"{len(context_classes(trees))} ({', '.join(context_classes(trees))})",
        "places to add a recorded tool": _recorded_figure(trees),
        "listener interfaces": f"{len(listeners)} ({', '.join(listeners) or 'none'})",
        "driver-specific names in device/, cli/": _driver_figure(trees),
        "simulator top-level modules": f"{len(top)} ({', '.join(top)})",
        "simulator largest classes": ", ".join(f"{name} {count}" for count, name in _class_sizes(sim)[:5]),
        "SimulatedDevice mixins": _sim_mixins(sim),
        "functions over 10 parameters (click commands aside)": _signature_figure(trees),
        **_large_classes(root),
    }


def _signature_figure(trees: dict[str, ast.Module]) -> str:
    """Functions over 10 parameters that are not click commands, and the largest such count (issue 46
    item 4; tests/project/test_signatures.py holds it, with the pytest fixture's `record` exempt)."""
    counts = []
    for name, tree in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not any(
                ".command" in ast.unparse(d) or ".group" in ast.unparse(d) for d in node.decorator_list
            ):
                a = node.args
                count = len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs)
                count -= 1 if a.args and a.args[0].arg in ("self", "cls") else 0
                counts.append((count, f"{name}.{node.name}"))
    counts.sort(reverse=True)
    over = [f"{n} {c}" for c, n in counts if c > 10]
    return f"{len(over)} ({', '.join(over) or 'none'}); largest: {counts[0][1]} {counts[0][0]}"


def _shapes_figure(trees: dict[str, ast.Module]) -> str:
    shapes = handler_shapes(trees)
    return f"{len(shapes)} ({'; '.join(shapes)})"


def _recorded_figure(trees: dict[str, ast.Module]) -> str:
    fewest, most = recorded_tool_places(trees)
    return f"{fewest[0]} in {fewest[1]} file(s) (fewest; most: {most[0]} in {most[1]})"


def _before(rev: str) -> None:
    """The static figures of `rev` and of the working tree, side by side; the timed ones pointed to."""
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
        old = static_figures(Path(tmp))
    new = static_figures(ROOT)
    print(f"before ({rev}) and after (the working tree), counted from the code:")
    for name in new:
        print(f"{name}:\n  before: {old[name]}\n  after:  {new[name]}")
    print(
        "the fast tier's time (not re-measured here): `python -m pytest -n 2 -m \"not slow\"` in each checkout\n"
        "start-up (not re-measured here): `python benchmarks/startup.py` (another checkout: PYTHONPATH=<it>)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", metavar="REV", help="Also count the figures of this commit, side by side.")
    before = parser.parse_args().before
    if before:
        _before(before)
        return
    modules = module_paths()
    top = [p for p in PACKAGE.glob("*.py")]
    packages = [p for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()]
    text = {name: path.read_text("utf-8") for name, path in modules.items()}
    kinds = sum(len(re.findall(r"^\s*Kind\s*=\s*Literal\[", t, re.M)) for t in text.values())
    contexts = sorted(
        f"{name}.{m}" for name, t in text.items() for m in re.findall(r"^class (\w*Context)\b", t, re.M)
    )
    tool_classes = sorted(
        f"{name}.{m}" for name, t in text.items() for m in re.findall(r"^class (\w*Tool)\b", t, re.M)
    )
    params = _parameters(modules)
    lines = sum(t.count("\n") for t in text.values())
    print(f"modules in trailblaze/ (all): {len(modules)}; at the top level: {len(top)}; subpackages: {len(packages)}")
    print(f"lines in trailblaze/: {lines}")
    graph = import_graph()
    edges = {(package_of(m), package_of(d)) for m, ds in graph.items() if m not in TOP for d in ds} - {(p, p) for p in map(package_of, graph)}
    print(f"import layers (longest chain): {_layers(graph)}")
    print(
        f"packages: {sum(len(t) for t in TIERS) - 1} in {len(TIERS)} tiers; package-level import edges: {len(edges)}; "
        f"imports reaching up a tier: {len(package_violations(graph))}"
    )
    print(f"`Kind = Literal[...]` definitions: {kinds}")
    print(f"*Context classes: {len(contexts)} ({', '.join(contexts)})")
    print(f"*Tool classes: {len(tool_classes)} ({', '.join(tool_classes)})")
    trees = _trees(text)
    types = tool_types(trees)
    print(f"tool types (classes that model a tool): {len(types)} ({', '.join(types)})")
    collections = tool_collections(trees, types)
    print(f"tool collections (tools by name): {len(collections)} ({', '.join(collections)})")
    names, things = context_names(trees)
    print(f"tool context names: {len(names)} for {things} classes ({', '.join(names)})")
    places = ref_tool_places(trees)
    most = max(places.values(), default=(0, 0, 0, 0))
    print(
        f"places to add a ref tool the model calls: {most[0]} in {most[1]} file(s); "
        f"with a new recorded tool it writes: {most[2]} in {most[3]} files "
        f"(the most of {len(places)} ref tools: {', '.join(f'{k} {v[0]}' for k, v in sorted(places.items()))})"
    )
    rich = rich_imports(trees)
    print(f"rich imports in engine/: {len(rich)} ({', '.join(rich) or 'none'})")
    print(f"duplicated gesture code: {_gesture_figure(trees)}")
    print(f"Maestro: {maestro_tier(ROOT)}")
    print(f"tool handler signatures: {_shapes_figure(trees)}")
    print(f"context classes: {len(context_classes(trees))} ({', '.join(context_classes(trees))})")
    print(f"places to add a recorded tool: {_recorded_figure(trees)}")
    listeners = listener_interfaces(trees)
    print(f"listener interfaces: {len(listeners)} ({', '.join(listeners)})")
    print(f"driver-specific names in device/, cli/: {_driver_figure(trees)}")
    print("largest parameter counts:")
    for count, name in params[:5]:
        print(f"  {count:3d}  {name}")
    print(f"functions over 10 parameters: {sum(1 for c, _ in params if c > 10)}")
    for name, value in _large_classes(ROOT).items():
        print(f"{name}: {value}")
    _simulator()


def _class_sizes(package: Path) -> list[tuple[int, str]]:
    """Methods per class (`def` directly in the class body), largest first."""
    found = []
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ClassDef):
                count = sum(isinstance(b, ast.FunctionDef | ast.AsyncFunctionDef) for b in node.body)
                found.append((count, f"{path.relative_to(package).with_suffix('')}.{node.name}".replace("/", ".")))
    return sorted(found, reverse=True)


def _large_classes(root: Path) -> dict[str, str]:
    """The largest classes across trailblaze/ and drivers/ (issue 46), and those over 40 methods."""
    sizes = sorted(
        (count, f"{top}.{name}") for top in ("trailblaze", "drivers") for count, name in _class_sizes(root / top)
    )[::-1]
    over = [f"{name} {count}" for count, name in sizes if count > 40]
    return {
        "largest classes (trailblaze/, drivers/)": ", ".join(f"{name} {count}" for count, name in sizes[:5]),
        "classes over 40 methods": f"{len(over)} ({', '.join(over) or 'none'})",
    }


def _sim_mixins(package: Path) -> str:
    """`SimulatedDevice`'s base classes, the fields they declare without setting (annotation only) and
    the methods they stub under `if TYPE_CHECKING:` (issue 46 item 5)."""
    classes = {
        n.name: n for p in package.rglob("*.py") for n in ast.walk(ast.parse(p.read_text("utf-8"))) if isinstance(n, ast.ClassDef)
    }
    mixins = [classes[b] for b in _bases(classes["SimulatedDevice"]) if b in classes]
    fields = {s.target.id for m in mixins for s in m.body if isinstance(s, ast.AnnAssign) and s.value is None and isinstance(s.target, ast.Name)}
    stubs = [f for m in mixins for s in m.body if isinstance(s, ast.If) for f in s.body if isinstance(f, ast.FunctionDef)]
    return f"{len(mixins)} (fields re-declared: {len(fields)}, private stubs: {len(stubs)})"


def _simulator() -> None:
    from tests.support import sim_layering as sim

    modules = sim.module_paths()
    top = list(sim.PACKAGE.glob("*.py"))
    graph = sim.import_graph()
    print("\nthe simulator (drivers/sim/trailblaze_sim):")
    print(f"modules (all): {len(modules)}; at the top level: {len(top)} ({', '.join(sorted(p.stem for p in top))})")
    print(
        f"packages: {sum(len(t) for t in sim.TIERS) - 1} in {len(sim.TIERS)} tiers; import layers (longest chain): "
        f"{_layers(graph)}; imports reaching up a tier: {len(sim.package_violations(graph))}"
    )
    print(f"SimulatedDevice mixins: {_sim_mixins(sim.PACKAGE)}")
    print("largest classes (methods):")
    for count, name in _class_sizes(sim.PACKAGE)[:5]:
        print(f"  {count:3d}  {name}")


if __name__ == "__main__":
    main()
