"""Every example command of README.md, of every page of the docs site and of every
`trailblaze COMMAND --help` runs as written.

Each example (tests/support/doc_examples.py) runs in bash in a fresh project folder holding the docs' own
files (the pytest guide's Python test example and `conftest.py`, the trails guide's `login.trail.md`) and the example trail
`trails/login.trail.yaml` with the demo's tools — one trail keeps a `trails/` example to seconds.
What an example needs from outside is a local stand-in: the model is the Messages-API fake serving
the demo policy (`ANTHROPIC_BASE_URL`), `--device android` is a simulated phone behind an adb server
of this test (`ANDROID_ADB_SERVER_PORT`), `--secret password` reads `TRAILBLAZE_SECRET_PASSWORD`, and
a `--port N` becomes a free port. `trailblaze sim …` runs until the script ends.

`PLAN` says what each example must do; a new example without an entry fails
`test_every_example_has_a_plan`, so none goes untested.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

import adbutils
import pytest
import yaml
from mcp import ClientSession, StdioServerParameters, stdio_client
from packaging.requirements import Requirement

from tests.support.doc_examples import (
    EXCLUDED_DOCS,
    ROOT,
    Example,
    doc_blocks,
    doc_examples,
    doc_files,
    help_examples,
)
from tests.support.report import build_run_dir
from tests.support.system_tools import require
from trailblaze.testing.chat_completions_api import FakeChatCompletionsAPI
from trailblaze.testing.demo_policy import demo_policy_unlabelled
from trailblaze.testing.messages_api import FakeMessagesAPI

pytestmark = pytest.mark.slow


@dataclass(frozen=True)
class Run:
    """Run it: this exit code, and this text in its output. `given` is what the project holds first:
    `verify unrecorded` (its login trail's last step, a verify, has no recording: the model records
    it, and the rest replays), `shard runs` (run directories `shards/1` … `shards/3`), `mcp trail`
    (`trails/login-mcp.trail.yaml`, authored by a `trailblaze mcp` session on `--device android` as
    the MCP guide shows)."""

    code: int = 0
    shows: str = ""
    given: str = ""


@dataclass(frozen=True)
class Mcp:
    """Start it as an MCP server (stdio, or `--http PORT`) and talk to it with the MCP SDK's client:
    this tool's answer shows this text."""

    tool: str
    shows: str


@dataclass(frozen=True)
class Elsewhere:
    """Run as written by something else, named here."""

    by: str


_CI = Elsewhere(".ci/run, which runs the README's two setup commands verbatim on a fresh venv")
_RECORD_DEMO = Elsewhere("tests/docs/test_readme_record.py, which runs the record-demo block as written")
_EXTRAS = Elsewhere("test_the_documented_extras_exist_and_dev_installs_them (no network here)")
_MCP_CLIENT = Elsewhere(
    "the server it registers, `trailblaze mcp --device sim:android --secret password`, runs here as "
    "the mcp --help example; Claude Code itself is not installed here"
)
_SHARDS = "trailblaze replay trails/ --device sim:android --secret password=hunter2 --shard {}/3 --run-dir shards/{}"
_MERGE = "trailblaze report --merge shards --report report.html --junit junit.xml"
_CI_SHARD = (
    'trailblaze replay trails/ --device "$TRAILBLAZE_DEVICE" --secret password=hunter2 --shard {}/2 --retries 1 '
    "--screenshots failures --run-dir shards/{} --junit shards/{}/junit.xml"
)
_GUIDE_APPIUM = Elsewhere(
    "tests/drivers/test_appium_guide.py, which follows the guide's local Appium path as written, through the real "
    "Appium server on the simulated phone"
)
_PYPI = Elsewhere(
    ".ci/wheels, which builds every distribution and installs trailblaze[android,ios,web] from the wheels "
    "into a fresh venv (nothing is published, and tests have no network)"
)
_FARM = Elsewhere(
    "tests/drivers/test_appium_farm_hubs.py, which sets the credentials and replays through a local stand-in of "
    "each farm's hub (TRAILBLAZE_APPIUM_HUB) that checks them and proxies to simulated phones; no farm is "
    "reachable here"
)
_SUITE = Elsewhere("the test suite, which .ci/run runs in full (`python -m pytest -n 2`)")
_BUILD = Elsewhere("tests/project/test_packaging.py, which builds every distribution and runs twine check on them")
_DEMO_SETUP = "trailblaze replay trails/ --device sim:android --secret password=hunter2 --report report.html"

PLAN: dict[str, Run | Mcp | Elsewhere] = {
    # docs: setup (its replay is also the replay --help example run below)
    f'pip install -e ".[dev]" -e ./drivers/android -e ./drivers/ios -e ./drivers/web -e ./drivers/appium -e ./drivers/sim && {_DEMO_SETUP}': _CI,
    "python -m pytest -n 2": _CI,
    # docs: try it without a phone
    "trailblaze snapshot --device sim:android": Run(shows='Button "Sign in"'),
    "trailblaze sim android --port 15037": Run(shows="127.0.0.1:15037"),
    "adb -P 15037 devices": Run(shows="emulator-5554\tdevice"),
    "ANDROID_ADB_SERVER_PORT=15037 trailblaze tool '{tapOnElementBySelector: {nodeSelector: "
    '{androidAccessibility: {resourceIdRegex: ".*sign_in"}}}}\' --device android': Run(shows="OK tapped"),
    "trailblaze sim ios --port 18100": Run(shows="http://127.0.0.1:18100"),
    "trailblaze sim android": Run(shows="127.0.0.1:"),
    "trailblaze schema": Run(shows='"$schema"'),
    # docs: record
    "export ANTHROPIC_API_KEY=…": Run(),
    "trailblaze record trails/login.trail.yaml --device sim:android --secret password=hunter2": Run(
        # the model records the last step; a fully recorded trail would have nothing to record
        shows="5/5 steps passed", given="verify unrecorded"
    ),
    "trailblaze record login.trail.md --device sim:android --secret password=hunter2": Run(
        shows="login.trail.yaml was updated"  # the sibling .yaml; the .md is never changed
    ),
    "trailblaze sim llm": Run(shows="ANTHROPIC_BASE_URL=http://127.0.0.1:"),
    "trailblaze sim llm --port 8787": Run(shows="ANTHROPIC_BASE_URL=http://127.0.0.1:8787"),
    "cat > first.trail.yaml <<'EOF'": _RECORD_DEMO,
    "ANTHROPIC_BASE_URL=http://127.0.0.1:8787 trailblaze record first.trail.yaml --device sim:android "
    "--secret password=hunter2": _RECORD_DEMO,
    "trailblaze replay first.trail.yaml --device sim:android --secret password=hunter2": _RECORD_DEMO,
    # docs: web (the vendored TodoMVC app in a real Chromium)
    "pip install -e ./drivers/web": _CI,
    "trailblaze replay trails/web/ --device web": Run(shows="1 trail: 1 passed", given="web trail"),
    'trailblaze replay trails/web/ --device web --emulate "iPhone 15"': Run(shows="1 trail: 1 passed", given="web trail"),
    "python -m playwright install firefox": Elsewhere(
        "hand: downloads Playwright's Firefox build (no network here); the error without it is "
        "tests/drivers/test_web_options.py::test_firefox_not_installed_says_how_to_install_it"
    ),
    "python benchmarks/replay_vs_raw.py": Elsewhere(
        "hand: a benchmark (a minute on both platforms) that prints figures; here only `--help` runs"
    ),
    "python benchmarks/mutant_kills.py": Elsewhere(
        "hand: a benchmark (about a minute) that prints the kill table and fails until every mutant is "
        "killed; tests/mutation/test_mutants.py replays its contradicted pairs; here only `--help` runs"
    ),
    "python benchmarks/assertion_proof.py": Elsewhere(
        "hand: a benchmark (a minute) that prints the mutation proof's cost per assertion and its share of a "
        "record; tests/mutation/test_assertion_facts.py checks what it measures"
    ),
    "python benchmarks/nl_record_kills.py": Elsewhere(
        "hand: a benchmark (minutes) that records NL-only copies of the examples and prints their kill table"
    ),
    "trailblaze check trails/": Run(shows="checked: "),
    "trailblaze check trails/login.trail.yaml --runs .trailblaze/runs": Run(shows="1 trail checked"),
    "python benchmarks/record_replay_20.py": Elsewhere(
        "hand: a benchmark (minutes on both platforms) that prints figures; here only `--help` runs"
    ),
    "trailblaze replay trails/ --device android --install app-debug.apk": Elsewhere(
        "tests/device/test_install_permissions.py, which replays with --install of an APK on the simulated phone"
    ),
    # docs: commands, tools, CI
    "trailblaze devices": Run(shows="android:emulator-5554"),
    "trailblaze -V": Run(shows="trailblaze, version "),
    'eval "$(_TRAILBLAZE_COMPLETE=bash_source trailblaze)"': Run(),
    "trailblaze tool '{demo_signIn: {email: user@example.com, password: \"{{password}}\"}}' "
    "--device sim:android --secret password=hunter2": Run(shows="signed in as user@example.com"),
    "trailblaze init --app-id dev.trailblaze.demo": Run(shows="created .github/workflows/trailblaze.yml"),
    "trailblaze replay trails/ --device android --secret password --junit junit.xml --report report.html": Run(
        shows="1 trail: 1 passed"
    ),
    # docs: pytest
    "pytest trails/": Run(shows="1 passed"),
    "pytest trails/ -m smoke": Run(shows="1 passed"),
    "pytest tests/": Run(shows="2 passed"),
    "pytest e2e/": Run(shows="1 passed"),
    "pytest tests/data/pytest/trails/email.trail.yaml --device sim:android:demo@v2 "
    "--trailblaze-element-timeout 1": Run(code=1, shows="trail demo/email failed on sim:android:demo@v2"),
    # docs: choosing the model (the OpenAI-compatible server is FakeChatCompletionsAPI, the demo policy)
    "pip install 'trailblaze[openai]'": _EXTRAS,
    "pip install 'trailblaze[bedrock]'": _EXTRAS,
    "pip install 'trailblaze[vertex]'": _EXTRAS,
    "ollama pull mistral-small3.2": Elsewhere(
        "hand: downloads a model; its server's part is played here by "
        "FakeChatCompletionsAPI, the next command runs against it"
    ),
    "vllm serve Qwen/Qwen2.5-VL-7B-Instruct --port 8000 --enable-auto-tool-choice --tool-call-parser hermes": Elsewhere(
        "hand: needs a GPU and the model; its server's part is played here by FakeChatCompletionsAPI, "
        "the next command runs against it"
    ),
    "trailblaze record trails/login.trail.yaml --device sim:android --secret password=hunter2 "
    "--model openai:mistral-small3.2 --llm-base-url http://127.0.0.1:11434/v1": Run(
        shows="(openai:mistral-small3.2)", given="verify unrecorded"
    ),
    "trailblaze record trails/login.trail.yaml --device sim:android --secret password=hunter2 "
    "--model openai:Qwen/Qwen2.5-VL-7B-Instruct --llm-base-url http://127.0.0.1:8000/v1": Run(
        shows="(openai:Qwen/Qwen2.5-VL-7B-Instruct)", given="verify unrecorded"
    ),
    "trailblaze sim openai --port 8788": Run(shows="http://127.0.0.1:8788/v1"),
    # docs: the site
    "python benchmarks/report_picture.py": Elsewhere(
        "hand: replays the examples and photographs their report in Chromium (about 20 s), rewriting "
        "docs/images/report.png; here only `--help` runs"
    ),
    'pip install -e ".[docs]"': Elsewhere(
        "test_the_documented_extras_exist_and_dev_installs_them (no network here); the site it builds is "
        "tests/docs/test_docs_site.py's `mkdocs build --strict`"
    ),
    # docs: MCP
    "trailblaze mcp": Mcp("list_devices", shows="sim:android"),
    "pip install 'trailblaze[mcp]'": _EXTRAS,
    "claude mcp add trailblaze -e TRAILBLAZE_SECRET_PASSWORD=hunter2 -- trailblaze mcp --device sim:android "
    "--secret password": _MCP_CLIENT,
    "trailblaze replay trails/login-mcp.trail.yaml --device android --secret password": Run(
        shows="1 trail: 1 passed", given="mcp trail"
    ),
    # docs: shards, devices
    _SHARDS.format(1, 1): Run(shows="1 trail: 1 passed"),
    _SHARDS.format(2, 2): Run(shows="no trail"),
    _SHARDS.format(3, 3): Run(shows="no trail"),
    _MERGE: Run(shows="junit:  junit.xml"),
    "trailblaze replay trails/ --device sim:android --secret password=hunter2 --retries 1 --allure-dir allure-results "
    "--ctrf ctrf.json": Run(shows="ctrf:   ctrf.json"),
    "trailblaze report --merge shards --allure-dir allure-results --ctrf ctrf.json": Run(
        shows="allure: allure-results", given="shard runs"
    ),
    # the matrix's first job; download-artifact puts its `run` at shards/run-1 (see `_GITHUB`)
    "trailblaze replay trails/ --device sim:android --secret password --shard ${{ matrix.shard }}/3 "
    "--run-dir run": Run(shows="1 trail: 1 passed"),
    "pytest trails/ --device sim:android --device sim:ios --trailblaze-each-device -n 2": Run(
        shows="2 passed"
    ),
    "pytest trails/ --device sim:android": Run(shows="1 passed"),
    # docs: one trail, every device
    "trailblaze replay trails/ --device sim:android --device sim:android+small --device sim:ios+tablet "
    "--secret password=hunter2 --report report.html": Run(shows="merged 3 runs: 3 trails (3 passed)"),
    "trailblaze replay trails/ --device sim:android+small --secret password=hunter2": Run(shows="1 passed"),
    "trailblaze replay trails/ --device sim:android --secret password=hunter2 --trail-timeout 600": Run(
        shows="1 passed"
    ),
    "pytest trails/ --device sim:android --device sim:android+small --device sim:ios+tablet --trailblaze-each-device": Run(
        shows="3 passed"
    ),
    "trailblaze sim android --profile small+dark": Run(shows="small+dark: Small Phone 360x640"),
    "trailblaze snapshot --device android@127.0.0.1:15037:emulator-5554": Run(shows='Button "Sign in"'),
    "trailblaze snapshot --device ios@http://127.0.0.1:18100": Run(shows='Button "Sign in"'),
    "python benchmarks/pytest_workers.py": Elsewhere(
        "hand: a benchmark (minutes) that prints figures; here only `--help` runs"
    ),
    # --help epilogs
    "trailblaze init my-app --app-id com.example.app --platform ios --shards 4": Run(
        shows="created my-app/trails/example.trail.yaml"
    ),
    "trailblaze validate trails/": Run(shows="all valid"),
    "trailblaze validate trails/login.trail.yaml": Run(shows="1 file checked, all valid"),
    "trailblaze validate trails/ --platform ios": Run(shows="recorded for android and ios"),
    "trailblaze record trails/login.trail.yaml --device sim:android --resume --secret password=hunter2": Elsewhere(
        "tests/engine/test_record_resume.py, which stops a record part-way and resumes it from its draft (here no "
        "record has stopped, so there is no draft to resume)"
    ),
    "trailblaze port trails/ --from android --device sim:ios --secret password=hunter2": Elsewhere(
        "tests/port/test_port.py, which ports every example with its iOS (or Android) recordings taken out "
        "(here login.trail.yaml has both, so there is nothing to port)"
    ),
    "trailblaze port trails/open-message.trail.yaml --from android --device sim:android+tablet --secret password": Elsewhere(
        "tests/port/test_port_form_factor.py, which ports a trail to the tablet's two-pane layout"
    ),
    "trailblaze sim ios --port 18100 --app demo@v2": Run(shows="http://127.0.0.1:18100"),
    "trailblaze sim android --faults 0.033": Run(shows="faults: 0.033 of requests (about 1 in 30), seed 0"),
    "trailblaze report .trailblaze/runs/20250101-120000 -o report.html --junit junit.xml": Run(
        shows="junit:  junit.xml"
    ),
    "trailblaze snapshot --device android:emulator-5554 --screenshot s.png --set-of-mark": Run(
        shows='EditText "Email"'
    ),
    "trailblaze tool pressBack --device sim:android": Run(shows="OK"),
    "trailblaze tool '{tapOnElementBySelector: {nodeSelector: {iosMaestro: {resourceIdRegex: email}}}}' "
    "--device sim:ios": Run(shows='OK tapped TextField "Email"'),
    "trailblaze tool '{tapOnElementBySelector: {nodeSelector: {androidAccessibility: "
    '{resourceIdRegex: ".*sign_in"}}}}\' --device sim:android': Run(shows="OK tapped"),
    "ANTHROPIC_API_KEY=... trailblaze record trails/login.trail.yaml --device sim:android "
    "--secret password=hunter2": Run(shows="5/5 steps passed", given="verify unrecorded"),
    "trailblaze record trails/login.trail.yaml --device android --rerecord --secret password": Run(
        shows="verified by replay"
    ),
    "trailblaze record trails/login.trail.yaml --device sim:ios --step 3 --secret password=hunter2": Run(
        shows="verified by replay"
    ),
    _DEMO_SETUP: Run(shows="1 trail: 1 passed"),
    "trailblaze replay trails/ --device android --secret password --junit junit.xml --tags smoke": Run(
        shows="1 trail: 1 passed"
    ),
    "trailblaze replay trails/login.trail.yaml --device sim:ios:demo@v2 --secret password=hunter2 "
    "--self-heal": Run(shows="passed-with-self-heal"),
    "trailblaze report --merge shards/1 shards/2 shards/3 --report report.html --junit junit.xml": Run(
        shows="junit:  junit.xml", given="shard runs"
    ),
    # docs/guides/results-store.md and `trailblaze results --help`
    # "results store": the example run of five trails (from 2025, one failed, one healed) in the store
    "trailblaze results": Run(shows="login-v2    sim:android  failed", given="results store"),
    "trailblaze results --flaky --since 7d": Run(shows="no flaky trail in 0 trail", given="results store"),
    "trailblaze results --gate --max-flake-rate 0.2": Run(
        code=1, shows="gate: login-v2 on sim:android: latest run failed", given="results store"
    ),
    "trailblaze results import shards/": Run(shows="imported 3 runs", given="shard runs"),
    "trailblaze mcp --device sim:android --secret password": Mcp("snapshot", shows='EditText "Email"'),
    "trailblaze mcp --device android --http 8765": Mcp("snapshot", shows='EditText "Email"'),
    "trailblaze mcp --device sim:android --root trails": Mcp("snapshot", shows='EditText "Email"'),
    # docs/guides/ci.md and install.md
    "trailblaze init --app-id com.example.app": Run(shows="created .github/workflows/trailblaze.yml"),
    "trailblaze init --app-id com.example.app --ios": Run(shows="next: trailblaze validate trails"),
    "trailblaze init --app-id com.example.app --ios --pip-spec git+https://github.com/you/trailblaze@main": Run(
        shows="next for iOS"
    ),
    "trailblaze init --app-id com.example.app --platform ios --shards 4": Run(shows="--device ios"),
    "export TRAILBLAZE_DEVICE=sim:android": Run(),
    _CI_SHARD.format(1, 1, 1): Run(shows="1 trail: 1 passed"),
    _CI_SHARD.format(2, 2, 2): Run(shows="no trail"),
    "trailblaze report --merge shards/* -o report.html --junit junit.xml": Run(shows="junit:  junit.xml"),
    "trailblaze report --merge": Elsewhere("the full merge command of the same page's shard script"),
    # docs/guides/maestro.md: the repository's demo-app flows, copied into the project
    "trailblaze validate tests/data/maestro/flows/": Run(shows="all valid", given="maestro flows"),
    "trailblaze replay tests/data/maestro/flows/login.yaml --device sim:android": Run(
        shows="1 trail: 1 passed", given="maestro flows"
    ),
    "trailblaze replay tests/data/maestro/flows/ --device sim:ios": Run(shows="6 passed", given="maestro flows"),
    "pytest tests/data/maestro/flows/login.yaml --device sim:android": Run(shows="1 passed", given="maestro flows"),
    "trailblaze import maestro tests/data/maestro/flows/ --out imported/": Run(
        shows="wrote imported/login.trail.yaml", given="maestro flows"
    ),
    "trailblaze replay imported/ --device sim:android": Run(shows="6 passed", given="maestro flows"),
    "trailblaze replay tests/data/maestro/scripts/scripts.yaml --device sim:android --env DOMAIN=example.com": Run(
        shows="1 trail: 1 passed", given="maestro flows"
    ),
    "trailblaze replay tests/data/maestro/scripts/scripts.yaml --device sim:android --env DOMAIN=example.com "
    "--script-host api.example.com": Run(shows="1 trail: 1 passed", given="maestro flows"),
    "python benchmarks/maestro_hostile.py": Elsewhere(
        "tests/toolset/test_maestro_scripts.py, which builds the same tree of flows and times its refusal (under 2 s)"
    ),
    # docs/contributing.md, contributing-tools.md, guides/simulator.md
    "python3 -m venv .venv && . .venv/bin/activate": _CI,
    "ruff check .": _CI,
    "mypy": _CI,
    'python -m pytest -n 2 -m "not slow"': _SUITE,
    "python benchmarks/tiers.py": Elsewhere(
        "hand: it runs the fast tier (about a minute and a half) and prints its time and the unmarked tests "
        "over a second; here only `--help` runs"
    ),
    "python -m pytest tests/device/test_settle.py -q -x -p no:randomly -n 0": _SUITE,
    "python -m trailblaze.tools.make_index": Elsewhere(
        "tests/toolset/test_tool_index.py, which fails when the generated index differs from what it writes"
    ),
    "python -m pytest tests/toolset/test_toolset.py tests/toolset/test_execute.py -q -p no:randomly -n 0": _SUITE,
    "python benchmarks/startup.py --runs 9": Elsewhere(
        "hand: a benchmark (minutes) that prints figures; here only `--help` runs"
    ),
    "trailblaze --help": Run(shows="Usage: trailblaze"),
    "python benchmarks/architecture.py": Elsewhere(
        "hand: a benchmark that reads the checkout's own code (the examples run in a scratch folder); the "
        "figures are printed by hand, and tests/toolset/test_toolset.py holds the tool model's figures it prints"
    ),
    "python benchmarks/architecture.py --before e06e342": Elsewhere(
        "hand: it reads the checkout's git history, which the examples' fresh project folder has not"
    ),
    'python -c "from trailblaze.tools.toolset import all_tools; print(*(f\'{t.name} {t.kind} {t.source}\' for t in '
    "all_tools()), sep='\\n')\"": Run(shows="mobile_maestro action catalog"),
    'pip install -e ".[dev]" -e ./drivers/android -e ./drivers/ios -e ./drivers/sim': Elsewhere(
        ".ci/run, whose setup command installs these checkout folders (and drivers/web) into a fresh venv"
    ),
    'pip install "trailblaze[android,sim]"': _PYPI,
    "trailblaze sim android|ios": Elsewhere(
        "a name for `trailblaze sim android` and `trailblaze sim ios`, which run as written on other pages"
    ),
    "trailblaze sim openai": Run(shows="http://127.0.0.1:"),
    "python benchmarks/maestro_corpus.py": Elsewhere(
        "tests/trail/test_maestro_reader.py, which reads the same corpus (0 tracebacks, the accepted count); "
        "here only `--help` runs"
    ),
    'pip install "trailblaze[android]"': _PYPI,
    'pip install "trailblaze[android,ios]"': _PYPI,
    'pip install "trailblaze[android]==0.1.0"': _PYPI,
    'pip install "trailblaze @ git+https://github.com/YOU/trailblaze@main" "trailblaze-android @ '
    'git+https://github.com/YOU/trailblaze@main#subdirectory=drivers/android"': Elsewhere(
        "tests/cli/test_init.py, which checks init writes this form (a Git URL needs the network)"
    ),
    'pip install "dist/trailblaze-0.1.0-py3-none-any.whl[android]" dist/trailblaze_android-0.1.0-py3-none-any.whl': _PYPI,
    "trailblaze --version": Run(shows="trailblaze, version "),
    'pip install -e ".[dev]" -e ./drivers/android -e ./drivers/ios -e ./drivers/web -e ./drivers/appium -e ./drivers/sim': _CI,
    "for project in . drivers/android drivers/ios drivers/web drivers/appium drivers/sim; do python -m build "
    '--no-isolation --outdir dist "$project"; done': _BUILD,
    "python benchmarks/device_faults.py": Elsewhere(
        "hand: a benchmark (about two minutes: 200 replays on simulated phones) that prints figures; here "
        "only `--help` runs, and tests/engine/test_replay_hiccups.py replays examples at three times its fault rate"
    ),
    "python benchmarks/large_runs.py": Elsewhere(
        "hand: a benchmark (about ten minutes: 1,100 replays on a simulated phone, a 1,000-trail report in "
        "Chromium) that prints figures; here only `--help` runs, and tests/output/test_large_runs.py holds each "
        "target on a smaller run"
    ),
    "python benchmarks/appium_replay.py": Elsewhere(
        "hand: a benchmark (about a minute: the real Appium server on the simulated phone) that prints figures; "
        "here only `--help` runs"
    ),
    "trailblaze replay flow.yaml --device web": Elsewhere(
        "tests/engine/test_maestro_web_flows.py, which replays a Maestro web flow (`url:`) of the vendored TodoMVC "
        "page in the system Chromium"
    ),
    # docs: device farms and Appium (no farm and no global Appium install are reachable here)
    'pip install "trailblaze[appium]"': _PYPI,
    "trailblaze replay trails/ --device appium:http://127.0.0.1:4723 --capabilities pixel.yaml --secret password": _GUIDE_APPIUM,
    'mkdir -p ~/adb-only/platform-tools && ln -sf "$(command -v adb)" ~/adb-only/platform-tools/adb': _GUIDE_APPIUM,
    "ANDROID_HOME=~/adb-only appium": _GUIDE_APPIUM,
    "export BROWSERSTACK_USERNAME=... BROWSERSTACK_ACCESS_KEY=...": _FARM,
    "trailblaze replay trails/ --device appium:browserstack --capabilities farm.yaml --secret password": _FARM,
    "pytest trails/ -n 4 --device appium:browserstack --trailblaze-capabilities farm.yaml": Elsewhere(
        "tests/drivers/test_appium_farm_hubs.py::test_pytest_spreads_workers_over_the_farms_devices, with -n 2 against "
        "the stand-in of BrowserStack's hub and two simulated devices"
    ),
    "python -m twine check --strict dist/*": _BUILD,
}


def _plan(command: str) -> Run | Mcp | Elsewhere:
    return PLAN[command.split("\n", 1)[0]]  # a heredoc is planned by its first line


def _examples() -> list[Example]:
    seen: set[tuple[str, ...]] = set()
    unique = []
    for example in doc_examples() + help_examples():
        if example.commands not in seen:  # the same script in two places runs once
            seen.add(example.commands)
            unique.append(example)
    return unique


EXAMPLES = _examples()


def test_every_example_has_a_plan() -> None:
    commands = {c.split("\n", 1)[0] for e in EXAMPLES for c in e.commands}
    assert commands - set(PLAN) == set(), "new examples: add them to PLAN"
    assert set(PLAN) - commands == set(), "PLAN names examples that are gone"
    assert len(EXAMPLES) >= 35  # the parser still finds them all


def test_every_page_of_the_site_is_read_or_excluded_with_a_reason() -> None:
    pages = {p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").rglob("*.md")}
    read = {p.relative_to(ROOT).as_posix() for p in doc_files()}
    assert {"docs/getting-started/index.md", "docs/guides/pytest.md", "docs/guides/mcp.md"} <= read
    unread = pages - read
    assert all(any(p.startswith(folder) for folder in EXCLUDED_DOCS) for p in unread), unread
    assert all(reason.strip() for reason in EXCLUDED_DOCS.values())
    # the guides hold the examples the README used to: they are found where they now are
    wheres = {e.where.split(":", 1)[0] for e in EXAMPLES}
    assert {"README.md", "docs/guides/recording.md", "docs/guides/sharding.md", "docs/guides/pytest.md"} <= wheres


def test_no_example_takes_the_real_adb_servers_port() -> None:
    # 5037 is where the real adb server (and `trailblaze devices`) listens: a simulator there clashes.
    assert [c for e in EXAMPLES for c in e.commands if re.search(r"\b5037\b", c)] == []


@pytest.mark.parametrize(
    ("script", "option"),
    [
        ("record_replay_20.py", "--runs"),
        ("pytest_workers.py", "--workers"),
        ("mutant_kills.py", "--trail"),
        ("report_picture.py", "--width"),
        ("maestro_corpus.py", "--list"),
        ("startup.py", "--runs"),
        ("architecture.py", "--before"),
        ("appium_replay.py", "--farm-ms"),
        ("device_faults.py", "--replays"),
        ("large_runs.py", "--skip-replay"),
        ("tiers.py", "--junit"),
    ],
)
def test_the_benchmark_examples_exist_and_parse_their_options(script: str, option: str) -> None:
    assert any(k == f"python benchmarks/{script}" or k.startswith(f"python benchmarks/{script} ") for k in PLAN)
    done = subprocess.run([sys.executable, f"benchmarks/{script}", "--help"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 0 and option in done.stdout, done.stderr


def test_the_documented_extras_exist_and_dev_installs_them() -> None:
    # `pip install 'trailblaze[X]'` needs the network; what it would install is checked here: X is an
    # extra of pyproject.toml, and every requirement of it is one of `dev`'s, installed in this venv.
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    dev = {(r := Requirement(text)).name: r for text in extras["dev"]}
    pip = re.compile(r"pip install 'trailblaze\[(\w+)\]'")
    named = {m[1] for e in EXAMPLES for c in e.commands if (m := pip.fullmatch(c))}
    assert named == {"openai", "bedrock", "vertex", "mcp"}
    assert any('pip install -e ".[docs]"' in c for e in EXAMPLES for c in e.commands)
    named.add("docs")  # the README's, from the checkout: `pip install -e ".[docs]"`
    for extra in named:
        for text in extras[extra]:
            want = Requirement(text)
            assert want.name in dev and want.extras <= dev[want.name].extras, (extra, text)
            assert want.specifier.contains(version(want.name)), (extra, text, version(want.name))


def test_the_mcp_json_config_is_the_planned_server_command() -> None:
    (config,) = [json.loads(block) for block in doc_blocks("json") if "mcpServers" in block]
    server = config["mcpServers"]["trailblaze"]
    command = " ".join([server["command"], *server["args"]])
    assert isinstance(PLAN[command], Mcp)  # so it runs with the MCP client above
    assert server["env"] == {"TRAILBLAZE_SECRET_PASSWORD": "hunter2"}


def test_the_docs_tool_excerpt_is_from_the_demo_tools() -> None:
    (excerpt,) = [block for block in doc_blocks("python") if "@trailblaze.tool" in block]
    source = (ROOT / "trails" / "tools" / "demo.py").read_text()
    for line in excerpt.splitlines()[1:]:  # after the `# trails/tools/demo.py` caption
        assert line.strip() == "..." or line.removesuffix('"""') in source, line


# --- running them ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StandIns:
    """What the examples talk to and read, made once for them all: two local models serving the demo
    policy — the Messages API (as `trailblaze sim llm`, `ANTHROPIC_BASE_URL`) and an OpenAI-compatible
    server (as `trailblaze sim openai`; it stands in for Ollama and vLLM at `--llm-base-url
    http://127.0.0.1:PORT/v1`) — and a run directory as `report` reads it (it takes real captures),
    copied where an example needs one."""

    anthropic: str
    openai: str
    run_dir: Path


@pytest.fixture(scope="module")
def stand_ins(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandIns]:
    run_dir = tmp_path_factory.mktemp("doc-examples") / "run"
    build_run_dir(run_dir)
    # they stand in for Anthropic, Ollama, vLLM…: answers under the model name the example asks for
    messages = FakeMessagesAPI(policy=demo_policy_unlabelled, keep_requests=False)
    chat = FakeChatCompletionsAPI(policy=demo_policy_unlabelled, keep_requests=False)
    try:
        yield StandIns(messages.url, chat.url, run_dir)
    finally:
        messages.close()
        chat.close()


def _runnable() -> list[Example]:
    """The examples that run here, heaviest first (so the pool ends together); a one-command example
    that is also a command of a longer script runs in that script only."""
    runnable = [e for e in EXAMPLES if not all(isinstance(_plan(c), Elsewhere) for c in e.commands)]
    in_scripts = {c for e in runnable if len(e.commands) > 1 for c in e.commands}
    runnable = [e for e in runnable if len(e.commands) > 1 or e.commands[0] not in in_scripts]
    return sorted(runnable, key=_weight, reverse=True)


def _weight(example: Example) -> int:
    """A rough cost: processes started, and the slow kinds (pytest workers, MCP sessions) more."""
    script = " ".join(example.commands)  # a web example without chromium is skipped where it runs
    plans = [_plan(c) for c in example.commands]
    return (len(example.commands) + 3 * script.count(" -n ") + 2 * script.count("pytest")
            + 2 * sum(isinstance(p, Mcp) or (isinstance(p, Run) and p.given == "mcp trail") for p in plans))  # fmt: skip


def test_examples_run_as_written(stand_ins: StandIns, tmp_path: Path) -> None:
    # The examples are independent (own folder, phone and ports) and mostly wait on a process
    # starting or on the device: run four at a time.
    runnable = _runnable()
    with ThreadPoolExecutor(max_workers=4) as pool:
        problems = list(
            pool.map(lambda ie: _run_example(ie[1], stand_ins, tmp_path / f"ex{ie[0]}"), enumerate(runnable))
        )
    failed = [p for p in problems if p and not p.startswith(_SKIPPED)]
    assert not failed, f"{len(failed)} of {len(runnable)} examples failed:\n\n" + "\n\n".join(failed)
    skipped = [p.removeprefix(_SKIPPED) for p in problems if p and p.startswith(_SKIPPED)]
    if skipped:  # the others passed; these need a program this machine lacks
        pytest.skip(
            f"{len(runnable) - len(skipped)} examples passed, {len(skipped)} not run: " + "; ".join(skipped)
        )


_SKIPPED = "skipped: "
# What GitHub makes of the CI workflow's replay before bash sees it: the matrix's first job, whose `run`
# artifact download-artifact puts at `shards/run-1` for the merging job.
_GITHUB = {"--shard ${{ matrix.shard }}/3 --run-dir run": "--shard 1/3 --run-dir shards/run-1"}
_ANDROID = re.compile(r"--device android\b|\badb |trailblaze devices|ANDROID_ADB_SERVER_PORT|trailblaze mcp")
_LOCAL_MODEL = re.compile(r"--llm-base-url http://127\.0\.0\.1:\d+/v1")


def _run_example(example: Example, stand_ins: StandIns, folder: Path) -> str | None:
    """Runs one example's script; None when every command did what PLAN says, else what went wrong
    (or why it was not run)."""
    from trailblaze_sim.runtime import start_simulator

    ports = {p: str(_free_port()) for c in example.commands for p in re.findall(r"--(?:port|http) (\d+)", c)}

    def local(text: str) -> str:  # the README's ports become free ones: examples run in parallel
        text = _LOCAL_MODEL.sub(f"--llm-base-url {stand_ins.openai}", text)
        for old, new in (*ports.items(), *_GITHUB.items()):
            text = re.sub(rf"(?<![\w$]){re.escape(old)}(?!\w)", new, text)
        return text

    if any(c.startswith("adb ") for c in example.commands):
        try:
            require("adb", _WHEEL_ADB, why=f"{example.where}")
        except pytest.skip.Exception as exc:
            return f"{_SKIPPED}{exc.msg}"
    if any("--device web" in c for c in example.commands):
        try:
            require("chromium", why=f"{example.where}")
        except pytest.skip.Exception as exc:
            return f"{_SKIPPED}{exc.msg}"
    plans = [_plan(c) for c in example.commands]
    given = {p.given for p in plans if isinstance(p, Run)}
    project = _project(folder, runs="trailblaze report" in " ".join(example.commands), given=given,
                       run_dir=stand_ins.run_dir)  # fmt: skip
    # `--device android` (or adb, or a device list) in this example: a phone of its own
    phone = start_simulator("android", "demo") if _ANDROID.search(" ".join(example.commands)) else None
    servers: list[subprocess.Popen[str]] = []
    env = _environment(stand_ins.anthropic, phone.port if phone else _free_port())
    try:
        if "mcp trail" in given:
            asyncio.run(_author_login_mcp(project, env))
        for written, plan in zip(example.commands, plans, strict=True):
            command = local(written)
            if isinstance(plan, Elsewhere):  # `pip install …`, `ollama pull …`: a stand-in plays its part
                continue
            exported = re.fullmatch(r"export (\w+)=(\S+)", command)
            if exported:  # each command is its own shell: the script's later commands see the variable
                env[exported.group(1)] = exported.group(2)
                continue
            if isinstance(plan, Mcp):
                output, code = asyncio.run(_talk_to_mcp(command, plan.tool, project, env)), 0
            elif command.startswith("trailblaze sim "):  # a foreground server: up while the script runs
                proc = subprocess.Popen(["bash", "-c", f"exec {command}"], cwd=project, env=env, text=True,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)  # fmt: skip
                servers.append(proc)
                output, code = _first_line(proc), 0
            else:
                done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", command], cwd=project, env=env,
                                      capture_output=True, text=True, timeout=300)  # fmt: skip
                output, code = done.stdout + done.stderr, done.returncode
            want = plan.code if isinstance(plan, Run) else 0
            if code != want or local(plan.shows) not in output or "Traceback" in output:
                return f"{example.where}: {command}\nexit {code} (want {want}, showing {local(plan.shows)!r}):\n{output}"
        return None
    finally:
        for proc in servers:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.communicate(timeout=30)
        if phone:
            phone.stop()


async def _talk_to_mcp(command: str, tool: str, project: Path, env: dict[str, str]) -> str:
    """Starts `trailblaze mcp …` as written and asks it for `tool`; its answer (or why there is none)."""
    from tests.support.mcp import Client, http_session

    http = re.search(r"--http (\d+)", command)
    if not http:
        params = StdioServerParameters(
            command="bash", args=["-c", f"exec {command}"], env=env, cwd=str(project)
        )
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return (await Client(session).call(tool))[0]
    proc = subprocess.Popen(["bash", "-c", f"exec {command}"], cwd=project, env=env, text=True,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    try:
        url = f"http://127.0.0.1:{http.group(1)}/mcp"
        try:  # on timeout, `finally` stops the server, which ends the reading thread
            started = await asyncio.wait_for(asyncio.to_thread(_line_with, proc, url), timeout=120)
        except TimeoutError:
            return f"(no {url} in 120 s)"
        token = re.search(r"Authorization: Bearer (\S+)\)", started)
        if url not in started or token is None:
            return started
        async with http_session(f"{url}#{token.group(1)}") as client:  # the token the server printed
            return (await client.call(tool))[0]
    finally:
        proc.terminate()
        proc.communicate(timeout=60)


def _line_with(proc: subprocess.Popen[str], text: str) -> str:
    """The first error-output line of a server naming `text` (where it listens), or why none came."""
    assert proc.stderr is not None
    lines = []
    for line in proc.stderr:
        lines.append(line)
        if text in line:
            return line
    return f"(exit {proc.wait()}) " + "".join(lines)


async def _author_login_mcp(project: Path, env: dict[str, str]) -> None:
    """`trails/login-mcp.trail.yaml`, authored by refs in a `trailblaze mcp` session as the README shows."""
    from tests.support.mcp import Client, author_sign_in

    command = "exec trailblaze mcp --device android --secret password"
    params = StdioServerParameters(command="bash", args=["-c", command], env=env, cwd=str(project))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        path = project / "trails" / "login-mcp.trail.yaml"
        await author_sign_in(Client(session), path, typed_password="{{password}}")


_WHEEL_ADB = Path(adbutils.__file__).parent / "binaries" / "adb"


def _environment(model: str, adb_port: int) -> dict[str, str]:
    env = {
        **os.environ,
        # the venv's programs; Debian's adb, else the one the adbutils wheel ships
        "PATH": os.pathsep.join(
            [str(Path(sys.executable).parent), os.environ.get("PATH", ""), str(_WHEEL_ADB.parent)]
        ),
        "ANTHROPIC_BASE_URL": model,
        "ANDROID_ADB_SERVER_PORT": str(adb_port),
        "TRAILBLAZE_SECRET_PASSWORD": "hunter2",
        "COLUMNS": "200",
    }
    env.pop("ANTHROPIC_API_KEY", None)
    env.pop("TRAILBLAZE_DEVICE", None)
    env.pop("TRAILBLAZE_RESULTS", None)  # the guides' commands use the project's default store
    for name in [n for n in env if n.startswith("PYTEST_")]:  # this run's xdist worker id, addopts, …
        del env[name]
    return env


def _project(folder: Path, *, runs: bool, given: set[str], run_dir: Path) -> Path:
    (folder / "trails").mkdir(parents=True)
    shutil.copy(ROOT / "trails" / "login.trail.yaml", folder / "trails")
    if "verify unrecorded" in given:  # so that `record` asks the model, once
        trail = yaml.safe_load((folder / "trails" / "login.trail.yaml").read_text())
        del trail["trail"][-1]["recording"]
        (folder / "trails" / "login.trail.yaml").write_text(yaml.safe_dump(trail, sort_keys=False))
    if "web trail" in given:  # the web example: its trail and the app it opens (a path from the project)
        shutil.copytree(ROOT / "trails" / "web", folder / "trails" / "web")
        shutil.copytree(ROOT / "tests" / "data" / "web" / "todomvc", folder / "tests" / "data" / "web" / "todomvc")
    if "maestro flows" in given:
        shutil.copytree(ROOT / "tests" / "data" / "maestro" / "flows", folder / "tests" / "data" / "maestro" / "flows")
        shutil.copytree(
            ROOT / "tests" / "data" / "maestro" / "scripts", folder / "tests" / "data" / "maestro" / "scripts"
        )
    for shard in ("1", "2", "3") if "shard runs" in given else ():
        shutil.copytree(run_dir, folder / "shards" / shard)
    if "results store" in given:  # the demo run, added to the project's default results store
        from trailblaze.results.ingest import run_rows
        from trailblaze.results.store import open_store

        with open_store(str(folder / ".trailblaze" / "results.db")) as store:
            store.add([run_rows(run_dir, "replay")])
    shutil.copy(ROOT / "trails" / "conftest.py", folder / "trails")
    shutil.copytree(
        ROOT / "trails" / "tools", folder / "trails" / "tools", ignore=shutil.ignore_patterns("__pycache__")
    )
    data = folder / "tests" / "data" / "pytest" / "trails"
    data.mkdir(parents=True)
    shutil.copy(ROOT / "tests" / "data" / "pytest" / "trails" / "email.trail.yaml", data)
    (folder / "e2e").mkdir()
    shutil.copy(ROOT / "tests" / "data" / "pytest" / "trails" / "email.trail.yaml", folder / "e2e")
    (test,) = [b for b in doc_blocks("python") if "def test_" in b]
    (conftest,) = [b for b in doc_blocks("python") if "def llm" in b]
    (folder / "tests" / "test_readme_example.py").write_text(test)
    (folder / "tests" / "conftest.py").write_text(conftest)
    (markdown,) = doc_blocks("markdown")
    (folder / "login.trail.md").write_text(markdown)
    if runs:
        shutil.copytree(run_dir, folder / ".trailblaze" / "runs" / "20250101-120000")  # `report RUN_DIR`
    return folder


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _first_line(proc: subprocess.Popen[str]) -> str:
    """What a server prints first (how to connect), or its error output if it stopped."""
    assert proc.stdout is not None and proc.stderr is not None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], 1.0)
        if ready:
            return proc.stdout.readline()
        if proc.poll() is not None:
            break
    return f"(no first line; exit {proc.poll()}) {proc.stderr.read() if proc.poll() is not None else ''}"
