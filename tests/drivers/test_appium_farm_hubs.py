"""The device-farm presets end to end: `trailblaze replay --device appium:browserstack|saucelabs|lambdatest`
against a local stand-in of each farm's hub (`trailblaze.testing.farm_hub.FarmHub`), which checks the
credentials and the farm's own scripts the way the farm does and proxies the rest to simulated iPhones
behind the simulated WebDriverAgent (one backend per device the "farm" owns).

What is checked: sessions are named after their trails and grouped under the CI run's build, marked
passed or failed with the reason, linked from the report and JUnit where the farm gives a page; bad
credentials are exit 3 with the farm's words and no key anywhere; a full queue is waited out for a
bounded time; a session the farm ends fails only its trail.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli import copy_example, trailblaze
from trailblaze.testing.farm_hub import FarmHub
from trailblaze_sim import create_device
from trailblaze_sim.server.wda import WdaSimServer

pytestmark = pytest.mark.slow

KEY = "k3y-Farm-Access-0042"
USERS = {"browserstack": "BROWSERSTACK", "saucelabs": "SAUCE", "lambdatest": "LT"}
LOGIN, SEARCH = "Sign in with a valid account", "Search messages by title"


@pytest.fixture
def phones() -> Iterator[list[WdaSimServer]]:
    """Two simulated iPhones: the farm's devices."""
    servers = [WdaSimServer(create_device("ios", app="demo")) for _ in range(2)]
    for server in servers:
        server.start()
    yield servers
    for server in servers:
        server.stop()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    copy_example("login.trail.yaml", tmp_path)
    copy_example("search.trail.yaml", tmp_path)
    (tmp_path / "ios.yaml").write_text("platformName: iOS\ndeviceName: iPhone 15\nbundleId: dev.trailblaze.demo\n")
    return tmp_path


def _farm_env(monkeypatch: pytest.MonkeyPatch, farm: str, hub: FarmHub, key: str = KEY) -> None:
    prefix = USERS[farm]
    monkeypatch.setenv("TRAILBLAZE_APPIUM_HUB", hub.url)
    monkeypatch.setenv(f"{prefix}_USERNAME", "alice")
    monkeypatch.setenv(f"{prefix}_ACCESS_KEY", key)
    monkeypatch.setenv("GITHUB_RUN_NUMBER", "7")
    monkeypatch.setenv("GITHUB_REPOSITORY", "acme/app")
    monkeypatch.setenv("TRAILBLAZE_APPIUM_QUEUE_TIMEOUT", "5")


def _replay(project: Path, farm: str, *more: str) -> subprocess.CompletedProcess[str]:
    return trailblaze(
        "replay", "login.trail.yaml", "search.trail.yaml", "--device", f"appium:{farm}", "--capabilities", "ios.yaml",
        "--secret", "password=hunter2", "--report", "report.html", "--junit", "junit.xml", "--run-dir", "run", *more,
        cwd=project,
    )  # fmt: skip


def _no_key_anywhere(project: Path, result: subprocess.CompletedProcess[str]) -> None:
    assert KEY not in result.stdout + result.stderr
    for path in project.rglob("*"):
        if path.is_file() and path.suffix in (".html", ".xml", ".json", ".txt", ".yaml"):
            assert KEY not in path.read_text("utf-8", "replace"), path


@pytest.mark.parametrize("farm", ["browserstack", "saucelabs", "lambdatest"])
def test_each_farm_names_marks_and_links_one_session_per_trail(
    farm: str, phones: list[WdaSimServer], project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FarmHub(farm, backend=phones[0].url, user="alice", key=KEY) as hub:  # type: ignore[arg-type]
        _farm_env(monkeypatch, farm, hub)
        result = _replay(project, farm)
    assert result.returncode == 0, result.stdout + result.stderr
    first, second = hub.sessions.values()
    # the first session opens with the device (before any trail), then takes the first trail's name
    assert (first.name, first.names, first.statuses) == ("trailblaze", [LOGIN], ["passed"])
    assert (second.name, second.names, second.statuses) == (SEARCH, [], ["passed"])
    assert first.build == second.build == "acme/app #7" and first.ended and second.ended
    run = json.loads((project / "run" / "run.json").read_text("utf-8"))
    links = [t["session_url"] for t in run["trails"]]
    junit = (project / "junit.xml").read_text("utf-8")
    report = (project / "report.html").read_text("utf-8")
    if farm == "lambdatest":  # it returns no page for a session
        assert links == [None, None] and "trailblaze.session_url" not in junit
    else:
        assert all(link and link.startswith("https://") and link.endswith(sid) for link, sid in zip(links, hub.sessions, strict=True))
        for link in links:
            assert f'value="{link}"' in junit and f'href="{link}"' in report
    _no_key_anywhere(project, result)


def test_one_shared_session_serves_every_trail(
    phones: list[WdaSimServer], project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FarmHub("saucelabs", backend=phones[0].url, user="alice", key=KEY) as hub:
        _farm_env(monkeypatch, "saucelabs", hub)
        result = _replay(project, "saucelabs", "--appium-session", "shared")
    assert result.returncode == 0, result.stdout + result.stderr
    (only,) = hub.sessions.values()
    assert only.names == [LOGIN, SEARCH] and only.statuses == ["passed", "passed"]


def test_a_failing_trail_is_marked_failed_with_its_reason(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # demo@v2 renamed the sign-in button: the login trail fails at step 4, the search trail's sign-in too
    with WdaSimServer(create_device("ios", app="demo@v2")) as phone:
        with FarmHub("browserstack", backend=phone.url, user="alice", key=KEY) as hub:
            _farm_env(monkeypatch, "browserstack", hub)
            result = _replay(project, "browserstack", "--element-timeout", "1")
    assert result.returncode == 1, result.stdout + result.stderr
    first, _ = hub.sessions.values()
    assert first.statuses == ["failed"]
    assert "step 4" in first.reasons[0] and "sign_in" in first.reasons[0]


def test_bad_credentials_are_exit_3_with_the_farms_answer_and_no_key(
    phones: list[WdaSimServer], project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FarmHub("browserstack", backend=phones[0].url, user="alice", key="the-right-key-99") as hub:
        _farm_env(monkeypatch, "browserstack", hub)
        result = _replay(project, "browserstack")
    assert result.returncode == 3, result.stdout + result.stderr
    assert "BrowserStack refused a new session: Authorization Required" in result.stderr
    assert "check BROWSERSTACK_USERNAME and BROWSERSTACK_ACCESS_KEY" in result.stderr
    assert hub.refusals == ["credentials"] and not hub.sessions
    _no_key_anywhere(project, result)


def test_a_full_queue_is_waited_out(phones: list[WdaSimServer], project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FarmHub("lambdatest", backend=phones[0].url, user="alice", key=KEY, queue_full=2) as hub:
        _farm_env(monkeypatch, "lambdatest", hub)
        result = _replay(project, "lambdatest")
    assert result.returncode == 0, result.stdout + result.stderr
    assert hub.refusals == ["queue", "queue"] and len(hub.sessions) == 2


def test_a_queue_that_stays_full_ends_the_run_after_the_bound(
    phones: list[WdaSimServer], project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FarmHub("lambdatest", backend=phones[0].url, user="alice", key=KEY, queue_full=1000) as hub:
        _farm_env(monkeypatch, "lambdatest", hub)
        monkeypatch.setenv("TRAILBLAZE_APPIUM_QUEUE_TIMEOUT", "0.5")
        result = _replay(project, "lambdatest")
    assert result.returncode == 3, result.stdout + result.stderr
    assert "LambdaTest refused a new session: Queue Timeout" in result.stderr
    assert "still full after 0.5 s of retries; raise TRAILBLAZE_APPIUM_QUEUE_TIMEOUT" in result.stderr
    assert len(hub.refusals) >= 3  # retried within the bound, not just once


def test_a_session_the_farm_ends_fails_its_trail_and_the_run_goes_on(
    phones: list[WdaSimServer], project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The first session ends (the farm's idle timeout) after 12 of its commands, inside the login trail.
    with FarmHub("browserstack", backend=[p.url for p in phones], user="alice", key=KEY, expire_after=12) as hub:
        _farm_env(monkeypatch, "browserstack", hub)
        result = _replay(project, "browserstack")
    assert result.returncode == 3, result.stdout + result.stderr
    run = json.loads((project / "run" / "run.json").read_text("utf-8"))
    assert [t["status"] for t in run["trails"]] == ["error", "passed"]
    assert "the Appium session on BrowserStack ended" in run["trails"][0]["error"]
    assert "the next trail opens a new one" in result.stdout
    assert len(hub.sessions) == 2 and list(hub.sessions.values())[1].statuses == ["passed"]


def test_pytest_spreads_workers_over_the_farms_devices(
    phones: list[WdaSimServer], project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`pytest -n 2` with one farm preset: each worker gets its own session and device, at once."""
    (project / "pytest.ini").write_text("[pytest]\ntrailblaze_trail_paths = .\n")
    with FarmHub("browserstack", backend=[p.url for p in phones], user="alice", key=KEY) as hub:
        _farm_env(monkeypatch, "browserstack", hub)
        monkeypatch.setenv("TRAILBLAZE_SECRET_PASSWORD", "hunter2")
        result = subprocess.run(
            [sys.executable, "-m", "pytest", "-n", "2", "-p", "no:cacheprovider", "login.trail.yaml", "search.trail.yaml",
             "--device", "appium:browserstack", "--trailblaze-capabilities", "ios.yaml", "--trailblaze-secret", "password"],
            cwd=project, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "2 passed" in result.stdout
    assert hub.peak == 2  # two sessions alive at once, one per worker
    assert sorted(s.statuses[0] for s in hub.sessions.values()) == ["passed", "passed"]
    _no_key_anywhere(project, result)


def test_a_matrix_file_is_one_device_per_entry_and_each_device_runs_every_trail(
    phones: list[WdaSimServer], project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One capabilities file holding a list (a farm's device matrix) with `--trailblaze-each-device`:
    every trail runs on every entry, each in sessions asking for that entry's device."""
    (project / "pytest.ini").write_text("[pytest]\ntrailblaze_trail_paths = .\n")
    (project / "matrix.yaml").write_text(
        "- {platformName: iOS, deviceName: iPhone 15, bundleId: dev.trailblaze.demo}\n"
        "- {platformName: iOS, deviceName: iPhone SE, bundleId: dev.trailblaze.demo}\n"
    )
    with FarmHub("saucelabs", backend=[p.url for p in phones], user="alice", key=KEY) as hub:
        _farm_env(monkeypatch, "saucelabs", hub)
        monkeypatch.setenv("TRAILBLAZE_SECRET_PASSWORD", "hunter2")
        result = subprocess.run(
            [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-v", "login.trail.yaml", "search.trail.yaml",
             "--device", "appium:saucelabs", "--trailblaze-capabilities", "matrix.yaml",
             "--trailblaze-each-device", "--trailblaze-secret", "password"],
            cwd=project, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "4 passed" in result.stdout
    for n in (1, 2):
        assert f"[appium:saucelabs#matrix.yaml[{n}]] PASSED" in result.stdout
    asked = sorted(str(s.capabilities.get("appium:deviceName")) for s in hub.sessions.values())
    assert asked == ["iPhone 15", "iPhone 15", "iPhone SE", "iPhone SE"]  # a session per trail and device
    assert all(s.statuses == ["passed"] for s in hub.sessions.values())
