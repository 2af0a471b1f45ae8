"""P2: device round trips per replayed tap step (goal ≤ 2 when the UI is already settled).

Replays `tapOnElementBySelector` steps on the simulated demo app through the real clients and reads
`SessionStats` (hierarchy dumps + actions + screenshots the session made) around each step. Two
cases: taps that change the screen (switching bottom tabs) and taps that leave it as it is (tapping
the already-selected tab). Also prints the requests the simulator itself served, which include the
client's own extra calls (e.g. uiautomator2's adb `host:version` handshakes count per HTTP request).

Run: python benchmarks/p2_round_trips.py
"""

from __future__ import annotations

from trailblaze.device.devices import open_device
from trailblaze.tools.execute import run_recorded_tool
from trailblaze.tools.memory import Memory
from trailblaze.trail.model import parse_tool


def _measure(spec: str, branch: str) -> None:
    with open_device(spec, settle_timeout=3.0, poll_interval=0.05) as session:
        memory = Memory(secrets={"password": "hunter2"})
        for tool in (
            f"tapOnElementBySelector: {{nodeSelector: {{{branch}: {{resourceIdRegex: '.*email'}}}}}}",
            "inputText: {text: ada@example.com}",
            f"tapOnElementBySelector: {{nodeSelector: {{{branch}: {{resourceIdRegex: '.*password'}}}}}}",
            "inputText: {text: '{{password}}'}",
            f"tapOnElementBySelector: {{nodeSelector: {{{branch}: {{resourceIdRegex: '.*sign_in'}}}}}}",
        ):
            assert run_recorded_tool(session, parse_tool(tool), memory).ok
        cases = {
            "tap that changes the screen": ["tab_settings", "tab_search", "tab_inbox"] * 5,
            "tap that changes nothing": ["tab_inbox"] * 15,
        }
        for label, targets in cases.items():
            before = session.stats.copy()
            for target in targets:
                tool = f"tapOnElementBySelector: {{nodeSelector: {{{branch}: {{resourceIdRegex: '.*{target}'}}}}}}"
                result = run_recorded_tool(session, parse_tool(tool), memory)
                assert result.ok, result
            n = len(targets)
            after = session.stats
            dumps = (after.dumps - before.dumps) / n
            actions = (after.actions - before.actions) / n
            idle = (after.idle_waits - before.idle_waits) / n
            print(
                f"{spec:<12} {label:<30} round trips/step {dumps + actions:.2f} "
                f"(actions {actions:.2f}, dumps {dumps:.2f}; plus idle-signal calls {idle:.2f}, "
                "a round trip on Android, none on iOS)"
            )


def main() -> None:
    print("P2 — device round trips per replayed tap step (SessionStats; goal ≤ 2 on a settled UI)")
    _measure("sim:android", "androidAccessibility")
    _measure("sim:ios", "iosMaestro")


if __name__ == "__main__":
    main()
