"""The GitHub Actions workflow `trailblaze init` writes: replay on real emulators / simulators in CI.

On a stock `ubuntu-latest` runner the Android job enables KVM, boots an emulator with
`reactivecircus/android-emulator-runner` (API level and ABI in the job's `env`), installs the app
under test (`--install "$APP_APK"`) and replays its shard of the trails inside the emulator step.
With `ios` the iOS job does the same on a macOS runner: it boots a simulator, installs the app with
`simctl` and builds and starts WebDriverAgent with `xcodebuild`. A last job merges every shard's run
directory into one HTML report and one JUnit file, after adding their results to the results store
(a SQLite file kept between runs with `actions/cache`, or the `TRAILBLAZE_RESULTS` secret's PostgreSQL). What the user must fill in (the app's build, its
path, the iOS scheme) is marked `FILL IN`. The workflow installs the pinned
`trailblaze[android]==<this version>`, so CI runs the trailblaze that wrote it, or what `pip_spec`
names (`pip_requirement`: a version, a wheel or sdist path, or a URL). docs/guides/ci.md.

The workflow passes zizmor's audits (tests/project/test_workflow_audit.py): the token may only read the
repository (`permissions: contents: read`), every action is pinned to the full commit SHA of a release
(`ACTIONS`; a tag can be moved to other code, a commit cannot) with the version in a comment, and
checkouts keep no credentials in `.git/config` for later steps or artifacts to leak.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from trailblaze.__about__ import __version__
from trailblaze.errors import UsageError

__all__ = [
    "ACTIONS",
    "ANDROID_API_LEVEL",
    "ANDROID_ABI",
    "EMULATOR_ACTION",
    "github_workflow",
    "pip_requirement",
]

Platform = Literal["android", "ios"]

ACTIONS = {
    "actions/cache": ("5a3ec84eff668545956fd18022155c47e93e2684", "v4.2.3"),
    "actions/checkout": ("11d5960a326750d5838078e36cf38b85af677262", "v4.4.0"),
    "actions/setup-python": ("a26af69be951a213d495a4c3e4e4022e16d87065", "v5.6.0"),
    "actions/setup-java": ("cf277c60eb25467037889841efdb72551f06f6c3", "v4.9.1"),
    "actions/upload-artifact": ("ea165f8d65b6e75b540449e92b4886f43607fa02", "v4.6.2"),
    "actions/download-artifact": ("d3f86a106a0bac45b974a628896c90dbdf5c8093", "v4.3.0"),
    "reactivecircus/android-emulator-runner": ("e89f39f1abbbd05b1113a29cf4db69e7540cae5a", "v2.37.0"),
}
"""Each action the workflow uses → (the commit its release tag points to, that tag). Each commit was
checked with `git rev-parse TAG^{commit}` in the action's own repository (2026-11-28)."""

EMULATOR_ACTION = "reactivecircus/android-emulator-runner@" + ACTIONS["reactivecircus/android-emulator-runner"][0]
"""The ecosystem's standard action that creates, boots and tears down an Android emulator."""
ANDROID_API_LEVEL = "34"
ANDROID_ABI = "x86_64"
"""x86_64 system images run at native speed under KVM on GitHub's Linux runners."""

# The replay every shard runs: failing steps' screenshots only (a retried trail keeps every step's,
# trailblaze.engine.ci_defaults), one retry so a flake is named rather than failing the build (ADR 0044).
_REPLAY = (
    'trailblaze replay trails/ --device "$TRAILBLAZE_DEVICE"@INSTALL@ --shard ${{ matrix.shard }}/@SHARDS@'
    " --retries 1 --screenshots failures"
    " --run-dir trailblaze-run --junit trailblaze-run/junit.xml --report trailblaze-run/report.html"
)

_HEAD = """\
# Replays the trails in trails/ with no LLM on @DEVICES@, split over @SHARDS@ machines per platform, and
# merges the shards' results into one HTML report and one JUnit file (the `report` job's artifact).
# Made by `trailblaze init` (trailblaze @VERSION@). Fill in every line marked FILL IN; the guide:
# https://github.com/trailblaze-py/trailblaze/blob/main/docs/guides/ci.md
name: trailblaze

on:
  push:
  pull_request:
  workflow_dispatch:

# The token only reads the repository: no job writes to it (artifacts need no token permission).
permissions:
  contents: read

jobs:
"""

_SECRETS = """\
      # Secrets the trails type as {{name}}: map each repository secret to TRAILBLAZE_SECRET_<NAME> and
      # add `--secret <name>` to the replay command (the value never reaches a file or log), e.g.
      # TRAILBLAZE_SECRET_PASSWORD: ${{ secrets.APP_PASSWORD }}
"""

_SETUP = """\
      - uses: @USES:actions/setup-python@
        with:
          python-version: "3.12"
      - name: Install trailblaze
        run: pip install @SPEC@
"""

# The merge job checks the repository out only to install a wheel or sdist kept in it (--pip-spec PATH).
_CHECKOUT = """\
      - uses: @USES:actions/checkout@
        with:
          persist-credentials: false
"""

_UPLOAD = """\
      - name: Keep the shard's run directory (screenshots of failures, report, JUnit)
        uses: @USES:actions/upload-artifact@
        if: always()
        with:
          name: trailblaze-@PLATFORM@-shard-${{ matrix.shard }}
          path: trailblaze-run/
          if-no-files-found: ignore
"""

_ANDROID = (
    """\
  android:
    name: android shard ${{ matrix.shard }}/@SHARDS@
    runs-on: ubuntu-latest
    timeout-minutes: 60
    strategy:
      fail-fast: false
      matrix:
        shard: [@SHARD_LIST@]
    env:
      # The emulator's system image: API level and ABI (x86_64 runs at native speed under KVM).
      ANDROID_API_LEVEL: "@API@"
      ANDROID_ABI: @ABI@
      # The device trailblaze drives: the emulator this job boots (the only device adb sees).
      TRAILBLAZE_DEVICE: android
      # FILL IN: the APK of the app under test, where the "Build the app" step leaves it.
      APP_APK: app/build/outputs/apk/debug/app-debug.apk
"""
    + _SECRETS
    + """\
    steps:
      - uses: @USES:actions/checkout@
        with:
          persist-credentials: false
      # FILL IN: build the app under test, or download the APK another workflow built, e.g.
      #   - uses: @USES:actions/download-artifact@
      #     with: {name: app-debug, path: app/build/outputs/apk/debug}
      - uses: @USES:actions/setup-java@
        with:
          distribution: temurin
          java-version: "17"
      - name: Build the app under test (FILL IN)
        run: ./gradlew assembleDebug
"""
    + _SETUP
    + """\
      - name: Enable KVM (hardware acceleration for the emulator)
        run: |
          echo 'KERNEL=="kvm", GROUP="kvm", MODE="0666", OPTIONS+="static_node=kvm"' | sudo tee /etc/udev/rules.d/99-kvm4all.rules
          sudo udevadm control --reload-rules
          sudo udevadm trigger --name-match=kvm
      - name: Replay shard ${{ matrix.shard }}/@SHARDS@ on an emulator
        uses: @USES:reactivecircus/android-emulator-runner@
        with:
          api-level: ${{ env.ANDROID_API_LEVEL }}
          arch: ${{ env.ANDROID_ABI }}
          target: google_apis
          emulator-options: -no-window -gpu swiftshader_indirect -noaudio -no-boot-anim -no-snapshot-save
          disable-animations: true
          # One line: the action runs each line of `script` as a command of its own.
          script: @REPLAY@
"""
    + _UPLOAD
)

_IOS = (
    """\
  ios:
    name: ios shard ${{ matrix.shard }}/@SHARDS@
    # The iOS simulator and Xcode exist on macOS runners only.
    runs-on: macos-14
    timeout-minutes: 90
    strategy:
      fail-fast: false
      matrix:
        shard: [@SHARD_LIST@]
    env:
      # The simulator the app and WebDriverAgent run on (`xcrun simctl list devices available`).
      IOS_SIMULATOR: iPhone 15
      # The device trailblaze drives: WebDriverAgent on that simulator, on its default port.
      TRAILBLAZE_DEVICE: ios:http://127.0.0.1:8100
      # FILL IN: the simulator build of the app under test, where the "Build the app" step leaves it.
      APP_PATH: build/Build/Products/Debug-iphonesimulator/YourApp.app
      # The WebDriverAgent source (appium/WebDriverAgent): pin a release tag you have tested.
      WDA_REF: master
"""
    + _SECRETS
    + """\
    steps:
      - uses: @USES:actions/checkout@
        with:
          persist-credentials: false
"""
    + _SETUP
    + """\
      - name: Boot the simulator
        run: xcrun simctl boot "$IOS_SIMULATOR" && xcrun simctl bootstatus "$IOS_SIMULATOR" -b
      # FILL IN: your workspace (-workspace App.xcworkspace) or project, and your app's scheme.
      - name: Build the app under test (FILL IN your scheme)
        run: >-
          xcodebuild build -scheme YOUR_APP_SCHEME -sdk iphonesimulator
          -destination "platform=iOS Simulator,name=$IOS_SIMULATOR" -derivedDataPath build
      - name: Install the app on the simulator
        run: xcrun simctl install booted "$APP_PATH"
      - name: Check out WebDriverAgent
        uses: @USES:actions/checkout@
        with:
          repository: appium/WebDriverAgent
          ref: ${{ env.WDA_REF }}
          path: WebDriverAgent
          persist-credentials: false
      - name: Build and start WebDriverAgent
        run: |
          xcodebuild build-for-testing -project WebDriverAgent/WebDriverAgent.xcodeproj -scheme WebDriverAgentRunner -destination "platform=iOS Simulator,name=$IOS_SIMULATOR" -derivedDataPath wda-build CODE_SIGNING_ALLOWED=NO
          nohup xcodebuild test-without-building -project WebDriverAgent/WebDriverAgent.xcodeproj -scheme WebDriverAgentRunner -destination "platform=iOS Simulator,name=$IOS_SIMULATOR" -derivedDataPath wda-build > wda.log 2>&1 &
          for _ in $(seq 1 60); do curl -fsS http://127.0.0.1:8100/status && exit 0; sleep 5; done
          tail -50 wda.log; echo "WebDriverAgent did not answer on :8100 within 5 minutes" >&2; exit 1
      - name: Replay shard ${{ matrix.shard }}/@SHARDS@ on the simulator
        run: @REPLAY@
"""
    + _UPLOAD
)

_REPORT = """\
  report:
    needs: [@NEEDS@]
    if: always()
    runs-on: ubuntu-latest
    steps:
@REPORT_CHECKOUT@      - uses: @USES:actions/setup-python@
        with:
          python-version: "3.12"
      - name: Install trailblaze
        run: pip install @REPORT_SPEC@
      - uses: @USES:actions/download-artifact@
        with:
          pattern: trailblaze-*-shard-*
          path: shards
      # The results store keeps every run's results (docs/guides/results-store.md): here a SQLite file
      # carried between runs as a cache; set a TRAILBLAZE_RESULTS secret (postgresql://…) to share one.
      - name: Restore the results store
        uses: @USES:actions/cache@
        with:
          path: .trailblaze/results.db
          key: trailblaze-results-${{ github.run_id }}-${{ github.run_attempt }}
          restore-keys: trailblaze-results-
      - name: Add the shards' results to the store
        run: trailblaze results import shards/
        env:
          TRAILBLAZE_RESULTS: ${{ secrets.TRAILBLAZE_RESULTS }}
      - name: Merge the shards into one report
        run: trailblaze report --merge shards/* -o report.html --junit junit.xml
        env:
          TRAILBLAZE_RESULTS: ${{ secrets.TRAILBLAZE_RESULTS }}
      - uses: @USES:actions/upload-artifact@
        if: always()
        with:
          name: trailblaze-report
          path: |
            report.html
            report_files/
            junit.xml
"""


def github_workflow(platforms: Sequence[Platform], shards: int, pip_spec: str | None = None) -> str:
    """`.github/workflows/trailblaze.yml`: one sharded replay job per platform, then the merge job.

    `platforms` holds `android`, `ios` or both (written in that order); `shards` is each job's matrix
    size; `pip_spec` is what the jobs install instead of this version (see `pip_requirement`).

    Raises:
        UsageError: `pip_spec` is not a version, a path or a URL that can go into the workflow.
    """
    jobs: list[Platform] = [p for p in ("android", "ios") if p in platforms]
    devices = " and ".join({"android": "an Android emulator", "ios": "an iOS simulator"}[p] for p in jobs)
    text = _HEAD + "".join(_job(p, pip_spec) for p in jobs) + _REPORT
    text = (
        text.replace("@DEVICES@", devices)
        .replace("@NEEDS@", ", ".join(jobs))
        .replace("@SHARD_LIST@", ", ".join(str(i) for i in range(1, shards + 1)))
        .replace("@SHARDS@", str(shards))
        .replace("@REPORT_SPEC@", pip_requirement(pip_spec, None))
        .replace("@REPORT_CHECKOUT@", _CHECKOUT if _is_path(pip_spec) else "")
        .replace("@VERSION@", __version__)
    )
    for action, (commit, tag) in ACTIONS.items():
        text = text.replace(f"@USES:{action}@", f"{action}@{commit} # {tag}")
    return text


_VERSION = re.compile(r"\d+(\.\d+)*((a|b|rc)\d+)?(\.post\d+)?(\.dev\d+)?(\+[A-Za-z0-9.]+)?")
# No quote, `$`, backslash, brace or space: the spec lands inside `run: pip install "…"`, where any of
# them could end the string or start a shell or GitHub expression.
_SAFE = re.compile(r"[A-Za-z0-9._~:/?#@&+,;=%-]+")


def pip_requirement(pip_spec: str | None, extra: Platform | None) -> str:
    """What `pip install` is given for trailblaze (with the driver `extra`, if any), quoted for the shell.

    `pip_spec` None is this version (`"trailblaze[android]==0.1.0"`); a version pins that one. Before a
    release is on the index, an extra cannot be installed from it (it pins `trailblaze-android` at the
    same version), so the two forms that work from a repository bring the driver along:
    - a Git URL (`git+https://…@main`) installs trailblaze and the driver from it, the driver from its
      folder (`"trailblaze @ URL" "trailblaze-android @ URL#subdirectory=drivers/android"`);
    - a wheel or sdist path installs it with its extras and the driver's file of the same build beside
      it (`"dist/trailblaze-0.2.0-py3-none-any.whl[android]" "dist/trailblaze_android-0.2.0-py3-none-any.whl"`:
      build every distribution into one folder), by path, so nothing on the index stands in for them.
    Any other URL (`https://…/x.whl`) becomes a direct reference (`"trailblaze[android] @ URL"`).

    Raises:
        UsageError: `pip_spec` is empty or holds a character that is not safe in the workflow.
    """
    extras = f"[{extra}]" if extra else ""
    if pip_spec is None:
        return f'"trailblaze{extras}=={__version__}"'
    if _VERSION.fullmatch(pip_spec):
        return f'"trailblaze{extras}=={pip_spec}"'
    if not _SAFE.fullmatch(pip_spec):
        raise UsageError(
            f"--pip-spec {pip_spec!r}: give a version (0.2.0), a wheel or sdist path "
            "(dist/trailblaze-0.2.0-py3-none-any.whl) or a URL (git+https://github.com/you/trailblaze@main), "
            "without spaces, quotes, $, braces or backslashes"
        )
    if pip_spec.startswith("git+") and "#" not in pip_spec:
        driver = f' "trailblaze-{extra} @ {pip_spec}#subdirectory=drivers/{extra}"' if extra else ""
        return f'"trailblaze @ {pip_spec}"{driver}'
    if "://" in pip_spec:
        return f'"trailblaze{extras} @ {pip_spec}"'
    folder, _, name = pip_spec.rpartition("/")
    if extra and name.startswith("trailblaze-"):  # the driver's file of the same build, beside it
        driver = f"{folder}/" * bool(folder) + f"trailblaze_{extra}-" + name.removeprefix("trailblaze-")
        return f'"{pip_spec}{extras}" "{driver}"'
    return f'"{pip_spec}{extras}"'


def _is_path(pip_spec: str | None) -> bool:
    return pip_spec is not None and "://" not in pip_spec and not _VERSION.fullmatch(pip_spec)


def _job(platform: Platform, pip_spec: str | None) -> str:
    template = _ANDROID if platform == "android" else _IOS
    # iOS installs with `simctl` before WebDriverAgent starts: trailblaze cannot install on iOS from the host
    install = ' --install "$APP_APK"' if platform == "android" else ""
    return (
        template.replace("@REPLAY@", _REPLAY.replace("@INSTALL@", install))
        .replace("@PLATFORM@", platform)
        .replace("@SPEC@", pip_requirement(pip_spec, platform))
        .replace("@API@", ANDROID_API_LEVEL)
        .replace("@ABI@", ANDROID_ABI)
    )
