"""P2 through the replayer: device round trips per replayed tap step (goal ≤ 2 on a settled UI).

Replays a trail (sign in, then 12 one-tap steps switching bottom tabs, then 6 taps on the tab that
is already selected) with `replay_trail` on the simulated demo app through the real clients, and
reads the session's `SessionStats` after every step. The first resolve of each step reuses the last
settle's dump, so a settled tap step should cost one action plus one (or two) dumps.

Run: python benchmarks/p2_replay.py
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from trailblaze.device.devices import open_device
from trailblaze.engine.replay import replay_trail
from trailblaze.output.runlog import StepRecord
from trailblaze.tools.memory import Memory

_TAPS = ["tab_settings", "tab_search", "tab_inbox"] * 4 + ["tab_inbox"] * 6


def _trail(branch: str, prefix: str) -> str:
    def tap(ident: str) -> str:
        return f"        - tapOnElementBySelector: {{nodeSelector: {{{branch}: {{resourceIdRegex: '{prefix}{ident}'}}}}}}\n"

    key = "android" if branch.startswith("android") else "ios"
    out = "trail:\n  - step: Sign in\n    recording:\n      " + key + ":\n"
    out += "        - launchApp: {appId: dev.trailblaze.demo, launchMode: CLEAR_STATE}\n"
    out += tap("email") + "        - inputText: {text: ada@example.com}\n"
    out += tap("password") + "        - inputText: {text: '{{password}}'}\n" + tap("sign_in")
    for ident in _TAPS:
        out += f"  - step: Tap {ident}\n    recording:\n      {key}:\n" + tap(ident)
    return out


def _measure(spec: str, branch: str, prefix: str) -> None:
    with tempfile.TemporaryDirectory() as tmp, open_device(spec, poll_interval=0.05) as session:
        path = Path(tmp) / "p2.trail.yaml"
        path.write_text(_trail(branch, prefix))
        rows: list[tuple[int, int, int]] = []
        last = session.stats.copy()

        def on_step(rec: StepRecord) -> None:
            nonlocal last
            now = session.stats.copy()
            rows.append((now.dumps - last.dumps, now.actions - last.actions, now.screenshots - last.screenshots))
            last = now

        record = replay_trail(path, session, memory=Memory(secrets={"password": "hunter2"}), on_step=on_step)
        assert record.status == "passed", record.error
        for label, part in (("tap that changes the screen", rows[1:13]), ("tap that changes nothing", rows[13:])):
            n = len(part)
            dumps = sum(r[0] for r in part) / n
            actions = sum(r[1] for r in part) / n
            shots = sum(r[2] for r in part) / n
            print(
                f"{spec:<12} {label:<30} round trips/step {dumps + actions + shots:.2f} "
                f"(actions {actions:.2f}, dumps {dumps:.2f}, screenshots {shots:.2f})"
            )


def main() -> None:
    print("P2 — device round trips per replayed tap step through replay_trail (goal ≤ 2 on a settled UI)")
    _measure("sim:android", "androidAccessibility", "dev.trailblaze.demo:id/")
    _measure("sim:ios", "iosMaestro", "")


if __name__ == "__main__":
    main()
