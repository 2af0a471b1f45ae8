"""The docs are true and work offline (issue 40, item 5): the site ships mermaid, so the architecture
diagram draws in a browser with no network; the figures on Getting started are checked against the
repository; the pytest fixtures are documented from the code; every exit code the CLI uses is in the
exit-code reference."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.support.docs_site import ROOT, reference_hook
from tests.support.system_tools import require

GETTING_STARTED = ROOT / "docs" / "getting-started" / "index.md"
_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}


def _setup_command() -> str:
    text = GETTING_STARTED.read_text(encoding="utf-8")
    return next(line for line in text.splitlines() if line.startswith("pip install -e "))


def _entry_points(folder: str) -> set[str]:
    data = tomllib.loads((ROOT / folder / "pyproject.toml").read_text(encoding="utf-8"))
    return set(data["project"].get("entry-points", {}))


def test_getting_started_counts_the_plugins_it_installs() -> None:
    folders = re.findall(r"-e \./(drivers/\w+)", _setup_command())
    drivers = [f for f in folders if "trailblaze.drivers" in _entry_points(f)]
    simulators = [f for f in folders if "trailblaze.simulators" in _entry_points(f)]
    assert sorted(drivers + simulators) == sorted(folders)  # nothing else is installed from drivers/
    text = " ".join(GETTING_STARTED.read_text(encoding="utf-8").split())
    said = re.search(r"installs trailblaze with its (\w+) driver plugins \(([^)]+)\) and the simulator", text)
    assert said is not None, "Getting started must say how many driver plugins the first command installs"
    assert _NUMBERS[said.group(1)] == len(drivers)
    assert len(said.group(2).replace(" and ", ", ").split(", ")) == len(drivers)
    assert len(simulators) == 1


@pytest.mark.slow
def test_getting_started_says_about_how_many_tests_the_suite_has() -> None:
    text = " ".join(GETTING_STARTED.read_text(encoding="utf-8").split())
    said = re.search(r"the test suite \(about ([\d,]+) tests\)", text)
    assert said is not None
    documented = int(said.group(1).replace(",", ""))
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:xdist", "-p", "no:cacheprovider"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    collected = re.search(r"(\d+) tests? collected", done.stdout)
    assert collected is not None, done.stdout[-2000:] + done.stderr[-2000:]
    actual = int(collected.group(1))
    assert abs(actual - documented) <= actual * 0.1, f"the suite has {actual} tests; Getting started says {documented}"
    assert "minutes" not in said.string[said.end() : said.end() + 80]  # a duration is not checkable here


def test_the_fixture_reference_is_generated_from_the_plugin() -> None:
    import trailblaze.pytest.plugin as plugin
    from trailblaze.device.driver import Driver

    hook = reference_hook()
    declared = {
        name for name, value in vars(plugin).items()
        if hasattr(value, "_fixture_function_marker") or hasattr(value, "_pytestfixturefunction")
    }  # fmt: skip
    assert {f.name for f in hook.pytest_fixtures()} == declared
    page = hook.pytest_page()
    section = page.split("\n## Fixtures\n", 1)[1]
    for name in declared:
        assert f"| `{name}` |" in section
    runner = section.split("### `trail_runner`", 1)[1].split("\n### ", 1)[0]
    tool_row = next(line for line in runner.splitlines() if line.startswith("| `tool()` |"))
    assert tool_row.split(" | ")[1].endswith("-> ToolResult")  # not a TrailResult: it has no `.error`
    driver = section.split("### `driver`: `Driver`", 1)[1]
    methods = {n for n, v in vars(Driver).items() if callable(v) and not n.startswith("_")}
    assert len(methods) >= 15
    for name in methods:
        assert f"| `{name}()` |" in driver or f"| `{name}` |" in driver, name
    guide = (ROOT / "docs" / "guides" / "pytest.md").read_text(encoding="utf-8")
    assert "reference/pytest.md#fixtures" in guide
    assert not re.search(r"\.tool\(text\)`?\s*→\s*`?TrailResult", guide)


def test_every_exit_code_the_cli_uses_is_in_the_reference() -> None:
    from trailblaze import errors

    table = (ROOT / "docs" / "reference" / "exit-codes.md").read_text(encoding="utf-8")
    documented = {int(m) for m in re.findall(r"^\| (\d+) \|", table, flags=re.MULTILINE)}
    used = {v for n, v in vars(errors).items() if n.startswith("EXIT_") and isinstance(v, int)}
    for node in ast.walk(ast.parse((ROOT / "trailblaze" / "cli" / "main.py").read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "sys.exit" and node.args:
            if isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, int):
                used.add(node.args[0].value)
    assert 130 in used
    assert used <= documented, f"exit codes used but not documented: {sorted(used - documented)}"


@pytest.mark.slow
def test_the_architecture_diagram_draws_in_chromium_with_the_network_off(tmp_path: Path) -> None:
    browser = require("chromium", why="drawing the docs' mermaid diagram in a headless browser")
    site = tmp_path / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    built = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
                           cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)  # fmt: skip
    assert built.returncode == 0, built.stdout + built.stderr
    assert (site / "javascripts" / "mermaid.min.js").stat().st_size > 1_000_000
    page = site / "explanations" / "architecture" / "index.html"
    assert "```mermaid" not in page.read_text() and "flowchart LR" in page.read_text()
    # every request but file:// goes to a closed port: a CDN would be unreachable, as offline
    dom = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={tmp_path / 'profile'}", "--proxy-server=http://127.0.0.1:9",
         "--proxy-bypass-list=<-loopback>", "--virtual-time-budget=20000", "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert "<body" in dom.stdout, dom.stderr[-2000:]
    # drawn: Material swaps the diagram's source for a <div class="mermaid"> holding the SVG (in a
    # closed shadow root); undrawn, the source text stays on the page
    assert '<div class="mermaid"></div>' in dom.stdout
    assert "flowchart LR" not in dom.stdout


def test_what_the_readme_commands_write_is_git_ignored() -> None:
    """Issue 48 item 7: after the README's setup command (its report and the pictures beside it) and the
    docs site's `mkdocs build` (MkDocs writes `site/`), `git status` shows nothing new."""
    import yaml

    report = re.search(r"--report (\S+)\.html", _setup_command())
    assert report is not None, "the README's setup command writes a report"
    site = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=yaml.BaseLoader).get("site_dir", "site")
    ignored = {line.strip().strip("/") for line in (ROOT / ".gitignore").read_text().splitlines()}
    written = {f"{report[1]}.html", f"{report[1]}_files", ".trailblaze", site}
    assert written <= ignored, written - ignored
