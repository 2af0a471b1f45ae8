"""The GitHub Actions workflow `trailblaze init` writes: replay on real emulators / simulators in CI.

On a stock `ubuntu-latest` runner the Android job enables KVM, boots an emulator with
`reactivecircus/android-emulator-runner` (API level and ABI in the job's `env`), installs the app
under test (`--install "$APP_APK"`) and replays its shard of the trails inside the emulator step.
With `ios` the iOS job does the same on a macOS runner: it boots a simulator, installs the app with
`simctl` and builds and starts WebDriverAgent with `xcodebuild`. A last job merges every shard's run
directory into one HTML report and one JUnit file. What the user must fill in (the app's build, its
path, the iOS scheme) is marked `FILL IN`. The workflow installs the pinned
`trailblaze[android]==<this version>`, so CI runs the trailblaze that wrote it. docs/guides/ci.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from trailblaze.__about__ import __version__

__all__ = ["ANDROID_API_LEVEL", "ANDROID_ABI", "EMULATOR_ACTION", "github_workflow"]

Platform = Literal["android", "ios"]

EMULATOR_ACTION = "reactivecircus/android-emulator-runner@v2"
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

jobs:
"""

_SECRETS = """\
      # Secrets the trails type as {{name}}: map each repository secret to TRAILBLAZE_SECRET_<NAME> and
      # add `--secret <name>` to the replay command (the value never reaches a file or log), e.g.
      # TRAILBLAZE_SECRET_PASSWORD: ${{ secrets.APP_PASSWORD }}
"""

_SETUP = """\
      - uses: actions/setup-python@v5
        with:
          python-version: "3.12"
      - name: Install trailblaze
        run: pip install "@SPEC@"
"""

_UPLOAD = """\
      - name: Keep the shard's run directory (screenshots of failures, report, JUnit)
        uses: actions/upload-artifact@v4
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
      - uses: actions/checkout@v4
      # FILL IN: build the app under test, or download the APK another workflow built, e.g.
      #   - uses: actions/download-artifact@v4
      #     with: {name: app-debug, path: app/build/outputs/apk/debug}
      - uses: actions/setup-java@v4
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
        uses: @EMULATOR_ACTION@
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
      - uses: actions/checkout@v4
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
        uses: actions/checkout@v4
        with:
          repository: appium/WebDriverAgent
          ref: ${{ env.WDA_REF }}
          path: WebDriverAgent
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
      - uses: actions/setup-python@v5
        with:
          python-version: "3.12"
      - name: Install trailblaze
        run: pip install "trailblaze==@VERSION@"
      - uses: actions/download-artifact@v4
        with:
          pattern: trailblaze-*-shard-*
          path: shards
      - name: Merge the shards into one report
        run: trailblaze report --merge shards/* -o report.html --junit junit.xml
      - uses: actions/upload-artifact@v4
        if: always()
        with:
          name: trailblaze-report
          path: |
            report.html
            junit.xml
"""


def github_workflow(platforms: Sequence[Platform], shards: int) -> str:
    """`.github/workflows/trailblaze.yml`: one sharded replay job per platform, then the merge job.

    `platforms` holds `android`, `ios` or both (written in that order); `shards` is each job's matrix size.
    """
    jobs: list[Platform] = [p for p in ("android", "ios") if p in platforms]
    devices = " and ".join({"android": "an Android emulator", "ios": "an iOS simulator"}[p] for p in jobs)
    text = _HEAD + "".join(_job(p) for p in jobs) + _REPORT
    return (
        text.replace("@DEVICES@", devices)
        .replace("@NEEDS@", ", ".join(jobs))
        .replace("@SHARD_LIST@", ", ".join(str(i) for i in range(1, shards + 1)))
        .replace("@SHARDS@", str(shards))
        .replace("@VERSION@", __version__)
    )


def _job(platform: Platform) -> str:
    template = _ANDROID if platform == "android" else _IOS
    # iOS installs with `simctl` before WebDriverAgent starts: trailblaze cannot install on iOS from the host
    install = ' --install "$APP_APK"' if platform == "android" else ""
    return (
        template.replace("@REPLAY@", _REPLAY.replace("@INSTALL@", install))
        .replace("@PLATFORM@", platform)
        .replace("@SPEC@", f"trailblaze[{platform}]=={__version__}")
        .replace("@EMULATOR_ACTION@", EMULATOR_ACTION)
        .replace("@API@", ANDROID_API_LEVEL)
        .replace("@ABI@", ANDROID_ABI)
    )
