"""A realistic run directory for the report tests: real simulator screenshots and hierarchy dumps.

`build_run_dir` drives the bundled demo app on simulated Android and iOS devices (the same screens a
replay would see) and writes the five-trail run a CI job could produce: a clean replay, a self-healed
trail with LLM calls and a trail diff, an AI-verified iOS trail, a failure with candidates (whose
later step text carries markup), and a skipped trail.
"""

from __future__ import annotations

from pathlib import Path

from trailblaze.output.runlog import (
    LLMCallRecord,
    RunRecord,
    StepRecord,
    ToolRecord,
    TrailRecord,
    UsageTotals,
    write_run,
)
from trailblaze_sim import create_device
from trailblaze_sim.android.hierarchy import build_windows, render_hierarchy
from trailblaze_sim.device.simulated import SimulatedDevice
from trailblaze_sim.ios.source import build_snapshot
from trailblaze_sim.model import ManualClock, SimNode

XSS_TEXT = "Check the banner reads <script>alert('pwned')</script> & \"quotes\""
FAILED_STEP_TEXT = "Tap Sign in"
FAILED_ERROR = (
    "NOT_FOUND no element matches resourceId=sign_in after 5.0 s; closest on screen: "
    'Button "Log in" id=log_in; EditText "Password" id=password; TextView "Forgot password?" id=forgot'
)
CANDIDATES = [
    'Button "Log in" id=log_in [296,888][1048,1032]',
    'EditText "Password" id=password',
    'TextView "Forgot password?"',
]
HEAL_DIFF = """--- trails/compose.trail.yaml
+++ trails/compose.trail.yaml
@@ -14,7 +14,7 @@
       android-phone:
         - tapOnElementBySelector:
             nodeSelector:
-              androidViewId: compose_fab
+              androidViewId: compose
         - inputText:
             text: friend@example.com
"""


def _find(device: SimulatedDevice, node_id: str) -> SimNode:
    for node in device.tree().walk():
        if node.id == node_id:
            return node
    raise AssertionError(f"no node {node_id!r} on screen {device.screen_name()}")


def _tap(device: SimulatedDevice, node_id: str) -> None:
    device.tap(*_find(device, node_id).frame.center)


def native_source(d: SimulatedDevice) -> str:
    """What a client reads of the screen: the uiautomator dump on Android, WDA's source on iOS."""
    if d.platform == "android":
        return render_hierarchy(build_windows(d))
    return build_snapshot(
        d.tree(), d.current_app(), screen_width=d.screen_width, screen_height=d.screen_height
    ).xml()


class _Capture:
    """Writes screenshots and hierarchy dumps of one device into one trail folder."""

    def __init__(self, run_dir: Path, folder: str, device: SimulatedDevice) -> None:
        self.folder = folder
        self.device = device
        (run_dir / folder / "llm").mkdir(parents=True, exist_ok=True)
        self.root = run_dir / folder

    def shot(self, name: str) -> tuple[str, str]:
        """(screenshot path, hierarchy path), relative to the run directory."""
        d = self.device
        (self.root / f"{name}.png").write_bytes(d.screenshot_png())
        (self.root / f"{name}.xml").write_text(native_source(d), "utf-8")
        return f"{self.folder}/{name}.png", f"{self.folder}/{name}.xml"

    def step(self, record: StepRecord, action: object = None) -> StepRecord:
        """Fills the before/after captures around `action()`."""
        tag = "step-th" if record.index < 0 else f"step-{record.index:02d}"
        record.screenshot_before, record.hierarchy_before = self.shot(f"{tag}-before")
        if callable(action):
            action()
        record.screenshot_after, record.hierarchy_after = self.shot(f"{tag}-after")
        return record

    def transcript(self, name: str) -> str:
        (self.root / "llm" / name).write_text(
            '{"request": {"messages": []}, "response": {"content": []}}', "utf-8"
        )
        return f"{self.folder}/llm/{name}"


def _sel(node_id: str) -> dict[str, object]:
    return {"nodeSelector": {"androidViewId": node_id}}


def _login(device: SimulatedDevice, clock: ManualClock) -> None:
    _tap(device, "email")
    device.type_text("user@example.com")
    _tap(device, "password")
    device.type_text("hunter2")
    _tap(device, "sign_in")
    clock.advance(1.2)


def _trail_login(run_dir: Path) -> TrailRecord:
    clock = ManualClock()
    device = create_device("android", clock=clock)
    cap = _Capture(run_dir, "01-login", device)
    head = cap.step(
        StepRecord(
            index=-1,
            kind="trailhead",
            text="Launch the demo app signed out",
            status="passed",
            duration_ms=412.0,
        )
    )
    head.tools = [
        ToolRecord(
            name="launchApp",
            params={"appId": "dev.trailblaze.demo", "launchMode": "FORCE_RESTART"},
            status="OK",
            duration_ms=398.5,
        )
    ]
    email = cap.step(
        StepRecord(
            index=0,
            kind="step",
            text="Type user@example.com into the email field",
            status="passed",
            duration_ms=640.2,
        ),
        lambda: (_tap(device, "email"), device.type_text("user@example.com")),
    )
    email.tools = [
        ToolRecord(name="tapOnElementBySelector", params=_sel("email"), status="OK", duration_ms=231.0),
        ToolRecord(name="inputText", params={"text": "user@example.com"}, status="OK", duration_ms=402.7),
    ]
    password = cap.step(
        StepRecord(index=1, kind="step", text="Type the password", status="passed", duration_ms=588.0),
        lambda: (_tap(device, "password"), device.type_text("hunter2")),
    )
    password.tools = [
        ToolRecord(name="tapOnElementBySelector", params=_sel("password"), status="OK", duration_ms=198.0),
        ToolRecord(name="inputText", params={"text": "{{password}}"}, status="OK", duration_ms=380.1),
    ]
    sign_in = cap.step(
        StepRecord(index=2, kind="step", text="Tap Sign in", status="passed", duration_ms=1430.0),
        lambda: (_tap(device, "sign_in"), clock.advance(1.2)),
    )
    sign_in.tools = [
        ToolRecord(name="tapOnElementBySelector", params=_sel("sign_in"), status="OK", duration_ms=1422.0)
    ]
    verify = cap.step(
        StepRecord(index=3, kind="verify", text="The inbox is shown", status="passed", duration_ms=120.0)
    )
    verify.tools = [
        ToolRecord(
            name="assertVisibleBySelector",
            params={"selector": {"textRegex": "Inbox"}},
            status="OK",
            duration_ms=118.0,
        )
    ]
    return TrailRecord(
        path="trails/login.trail.yaml",
        id="login",
        title="Sign in with a valid password",
        device="sim:android",
        classifier="android-phone",
        platform="android",
        status="passed",
        started_at="2025-05-02T10:15:01Z",
        duration_ms=3190.2,
        steps=[head, email, password, sign_in, verify],
        directory="01-login",
    )


def _trail_compose(run_dir: Path) -> TrailRecord:
    clock = ManualClock()
    device = create_device("android", clock=clock)
    _login(device, clock)
    cap = _Capture(run_dir, "02-compose", device)
    usage = UsageTotals(
        llm_calls=2, input_tokens=9120, output_tokens=212, cache_read_input_tokens=3400, cost_usd=0.0312
    )
    step = cap.step(
        StepRecord(
            index=0,
            kind="step",
            text="Open the compose screen",
            status="passed-with-self-heal",
            mode="self-heal",
            duration_ms=6240.0,
            usage=usage,
            recording_written=True,
        ),
        lambda: _tap(device, "compose"),
    )
    step.tools = [
        ToolRecord(
            name="tapOnElementBySelector",
            params=_sel("compose_fab"),
            status="NOT_FOUND",
            message='no element matches resourceId=compose_fab after 5.0 s; closest on screen: ImageButton "Compose" id=compose',
            duration_ms=5012.0,
        ),
        ToolRecord(
            name="tapOnElementBySelector",
            params=_sel("compose"),
            status="OK",
            source="self-heal",
            llm_tool="tap ref=k4f",
            recorded=True,
            duration_ms=244.0,
        ),
        ToolRecord(
            name="objectiveStatus",
            params={"status": "completed"},
            status="OK",
            source="self-heal",
            duration_ms=0.4,
        ),
    ]
    step.llm_calls = [
        LLMCallRecord(
            index=1,
            model="claude-sonnet-4-5",
            input_tokens=4630,
            output_tokens=118,
            cache_creation_input_tokens=3400,
            cost_usd=0.0188,
            duration_ms=2210.0,
            transcript=cap.transcript("step-00-call-01.json"),
            tool_calls=["tap ref=k4f"],
            text="The compose button is the icon-only button described as Compose.",
        ),
        LLMCallRecord(
            index=2,
            model="claude-sonnet-4-5",
            input_tokens=4490,
            output_tokens=94,
            cache_read_input_tokens=3400,
            cost_usd=0.0124,
            duration_ms=1630.0,
            transcript=cap.transcript("step-00-call-02.json"),
            tool_calls=["objectiveStatus status=completed"],
        ),
    ]
    to = cap.step(
        StepRecord(
            index=1, kind="step", text="Type friend@example.com into To", status="passed", duration_ms=702.0
        ),
        lambda: (_tap(device, "to"), device.type_text("friend@example.com")),
    )
    to.tools = [
        ToolRecord(name="tapOnElementBySelector", params=_sel("to"), status="OK", duration_ms=255.0),
        ToolRecord(name="inputText", params={"text": "friend@example.com"}, status="OK", duration_ms=440.0),
    ]
    return TrailRecord(
        path="trails/compose.trail.yaml",
        id="compose",
        title="Compose a message",
        device="sim:android",
        classifier="android-phone",
        platform="android",
        status="passed-with-self-heal",
        started_at="2025-05-02T10:15:04Z",
        duration_ms=6942.0,
        steps=[step, to],
        heal_diff=HEAL_DIFF,
        usage=usage.model_copy(),
        directory="02-compose",
    )


def _trail_ios_search(run_dir: Path) -> TrailRecord:
    clock = ManualClock()
    device = create_device("ios", clock=clock)
    _login(device, clock)
    cap = _Capture(run_dir, "03-search", device)
    usage = UsageTotals(llm_calls=1, input_tokens=3921, output_tokens=61, cost_usd=0.0127)
    tab = cap.step(
        StepRecord(index=0, kind="step", text="Open the Search tab", status="passed", duration_ms=520.0),
        lambda: _tap(device, "tab_search"),
    )
    tab.tools = [
        ToolRecord(
            name="tapOnElementBySelector",
            params={"nodeSelector": {"iosAccessibilityId": "tab_search"}},
            status="OK",
            duration_ms=510.0,
        )
    ]
    verify = cap.step(
        StepRecord(
            index=1,
            kind="verify",
            text="The search field is empty and shows its hint",
            status="passed-ai",
            mode="agent",
            duration_ms=2890.0,
            usage=usage,
        )
    )
    verify.tools = [
        ToolRecord(
            name="assertVisibleBySelector",
            params={"selector": {"textRegex": "Search messages"}},
            status="OK",
            source="agent",
            llm_tool="assertVisible ref=q1z",
            duration_ms=92.0,
        )
    ]
    verify.llm_calls = [
        LLMCallRecord(
            index=1,
            model="claude-sonnet-4-5",
            input_tokens=3921,
            output_tokens=61,
            cost_usd=0.0127,
            duration_ms=2650.0,
            transcript=cap.transcript("step-01-call-01.json"),
            tool_calls=["assertVisible ref=q1z", "objectiveStatus status=completed"],
        )
    ]
    return TrailRecord(
        path="trails/ios/search.trail.yaml",
        id="ios-search",
        title="Search starts empty",
        device="sim:ios",
        classifier="ios-iphone",
        platform="ios",
        status="passed-ai",
        started_at="2025-05-02T10:15:11Z",
        duration_ms=3410.0,
        steps=[tab, verify],
        usage=usage.model_copy(),
        directory="03-search",
    )


def _trail_login_v2(run_dir: Path) -> TrailRecord:
    clock = ManualClock()
    device = create_device("android", app="demo@v2", clock=clock)
    cap = _Capture(run_dir, "04-login-v2", device)
    email = cap.step(
        StepRecord(
            index=0,
            kind="step",
            text="Type user@example.com into the email field",
            status="passed",
            duration_ms=610.0,
        ),
        lambda: (_tap(device, "email"), device.type_text("user@example.com")),
    )
    email.tools = [
        ToolRecord(name="tapOnElementBySelector", params=_sel("email"), status="OK", duration_ms=220.0),
        ToolRecord(name="inputText", params={"text": "user@example.com"}, status="OK", duration_ms=380.0),
    ]
    failed = cap.step(
        StepRecord(
            index=1,
            kind="step",
            text=FAILED_STEP_TEXT,
            status="failed",
            duration_ms=5050.0,
            error=FAILED_ERROR,
            candidates=list(CANDIDATES),
        )
    )
    failed.tools = [
        ToolRecord(
            name="tapOnElementBySelector",
            params=_sel("sign_in"),
            status="NOT_FOUND",
            message=FAILED_ERROR.removeprefix("NOT_FOUND "),
            duration_ms=5031.0,
        )
    ]
    not_run = StepRecord(index=2, kind="verify", text=XSS_TEXT, status="not-run")
    return TrailRecord(
        path="trails/login.trail.yaml",
        id="login-v2",
        title="Sign in on the redesigned login screen",
        device="sim:android:demo@v2",
        classifier="android-phone",
        platform="android",
        status="failed",
        started_at="2025-05-02T10:15:15Z",
        duration_ms=5720.0,
        steps=[email, failed, not_run],
        error=f"trails/login.trail.yaml step 2 ({FAILED_STEP_TEXT}): {FAILED_ERROR}",
        directory="04-login-v2",
    )


def _trail_skipped() -> TrailRecord:
    return TrailRecord(
        path="trails/settings.trail.yaml",
        id="settings",
        title="Toggle dark mode",
        device="sim:android",
        classifier="android-phone",
        platform="android",
        status="skipped",
        error="skip: dark mode rendering is not ready on Android",
        steps=[
            StepRecord(index=0, kind="step", text="Open the Settings tab", status="skipped"),
            StepRecord(index=1, kind="step", text="Turn on Dark mode", status="skipped"),
        ],
    )


def build_run_dir(run_dir: Path) -> RunRecord:
    """Writes a five-trail run (passed, healed, AI, failed, skipped) with real captures; returns it."""
    trails = [
        _trail_login(run_dir),
        _trail_compose(run_dir),
        _trail_ios_search(run_dir),
        _trail_login_v2(run_dir),
        _trail_skipped(),
    ]
    usage = UsageTotals()
    for trail in trails:
        usage.add(trail.usage)
    run = RunRecord(
        run_id=run_dir.name,
        started_at="2025-05-02T10:15:00Z",
        finished_at="2025-05-02T10:15:21Z",
        command=["trailblaze", "replay", "trails/", "--device", "sim:android", "--self-heal"],
        device="sim:android",
        trails=trails,
        usage=usage,
    )
    write_run(run, run_dir)
    return run


def build_many_trails(run_dir: Path, trails: int) -> None:
    """Writes a run of `trails` trails: the five of `build_run_dir`, over and over, each in a folder of
    its own (hard links to the first five's captures), as a run of a large suite leaves it."""
    import os
    import tempfile

    template = Path(tempfile.mkdtemp(prefix=f".{run_dir.name}-", dir=run_dir.parent))
    models = build_run_dir(template).trails
    run_dir.mkdir(parents=True, exist_ok=True)
    records = []
    for n in range(trails):
        model = models[n % len(models)]
        text = model.model_dump_json()
        if model.directory:
            folder = f"{n + 1:04d}-{model.directory.split('-', 1)[1]}"
            for source in (template / model.directory).rglob("*"):
                target = run_dir / folder / source.relative_to(template / model.directory)
                if source.is_dir():
                    target.mkdir(parents=True, exist_ok=True)
                else:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    os.link(source, target)
            text = text.replace(f'"{model.directory}/', f'"{folder}/').replace(
                f'"directory":"{model.directory}"', f'"directory":"{folder}"'
            )
        records.append(TrailRecord.model_validate_json(text))
    run = RunRecord(
        run_id=run_dir.name,
        started_at="2025-05-02T10:15:00Z",
        finished_at="2025-05-02T11:15:00Z",
        command=["trailblaze", "replay", "trails/", "--device", "sim:android"],
        device="sim:android",
        trails=records,
    )
    for record in records:
        run.usage.add(record.usage)
    write_run(run, run_dir)
    for source in sorted(template.rglob("*"), reverse=True):
        source.rmdir() if source.is_dir() else source.unlink()
    template.rmdir()
