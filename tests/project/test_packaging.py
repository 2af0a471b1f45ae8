"""One install for users (issue 27 item 2): `trailblaze[android|ios|web]` pulls the driver distributions
at the same version, the version lives in trailblaze/__about__.py, and `python -m build` makes an sdist
and a wheel of every distribution that `twine check --strict` passes, with licence, classifiers, URLs
and `py.typed`. The fresh-venv install from the built wheels needs the package index for the
dependencies, so it runs in .ci/wheels (called by .ci/run), not here."""

from __future__ import annotations

import email
import email.message
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement

from tests.support.cli import trailblaze
from tests.support.paths import ROOT
from trailblaze.__about__ import __version__

DRIVERS = {"android": "trailblaze_android", "ios": "trailblaze_ios", "web": "trailblaze_web",
           "appium": "trailblaze_appium", "sim": "trailblaze_sim"}  # fmt: skip
ENTRY_POINTS = {"android": "trailblaze.drivers", "ios": "trailblaze.drivers", "web": "trailblaze.drivers",
                "appium": "trailblaze.drivers", "sim": "trailblaze.simulators"}  # fmt: skip


def _pyproject(folder: Path) -> dict[str, Any]:
    return tomllib.loads((folder / "pyproject.toml").read_text("utf-8"))["project"]


def test_the_version_is_in_one_place_and_everything_agrees_with_it() -> None:
    import trailblaze as package

    root = _pyproject(ROOT)
    assert "version" not in root and root["dynamic"] == ["version"]
    build = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]["dynamic"]
    assert build["version"] == {"attr": "trailblaze.__about__.__version__"}
    assert package.__version__ == __version__
    shown = trailblaze("--version")
    assert shown.returncode == 0 and shown.stdout == f"trailblaze, version {__version__}\n"
    extras = root["optional-dependencies"]
    for platform in DRIVERS:
        driver = _pyproject(ROOT / "drivers" / platform)
        assert driver["version"] == __version__, platform
        # the driver needs exactly this trailblaze, and trailblaze's extra exactly this driver
        pins = [Requirement(r) for r in driver["dependencies"] if Requirement(r).name == "trailblaze"]
        assert [str(p.specifier) for p in pins] == [f"=={__version__}"], platform
        assert extras[platform] == [f"trailblaze-{platform}=={__version__}"]


def test_the_extras_name_every_driver_and_provider_and_dev_needs_no_index() -> None:
    extras = _pyproject(ROOT)["optional-dependencies"]
    assert {"android", "ios", "web", "appium", "sim", "mcp", "openai", "bedrock", "vertex", "all", "dev"} <= set(extras)
    (everything,) = [Requirement(r) for r in extras["all"]]
    assert everything.name == "trailblaze"
    assert everything.extras == {"android", "ios", "web", "appium", "sim", "mcp", "openai", "bedrock", "vertex"}
    # a checkout installs the drivers from drivers/* (README's setup command): dev must not name them,
    # or `pip install -e ".[dev]"` would look for them on the package index
    assert not [r for r in extras["dev"] if Requirement(r).name.startswith("trailblaze")]
    assert {Requirement(r).name for r in extras["dev"]} >= {"build", "twine", "setuptools"}


def test_every_distribution_ships_its_licence_readme_and_py_typed() -> None:
    assert (ROOT / "LICENSE").read_text("utf-8").lstrip().startswith("Apache License")
    for platform, package in DRIVERS.items():
        folder = ROOT / "drivers" / platform
        assert (folder / "LICENSE").read_bytes() == (ROOT / "LICENSE").read_bytes(), platform
        assert (folder / "README.md").is_file() and (folder / package / "py.typed").is_file(), platform
        project = _pyproject(folder)
        assert project["license"] == "Apache-2.0" and project["readme"] == "README.md", platform
    assert (ROOT / "trailblaze" / "py.typed").is_file()


def _metadata(wheel: Path) -> email.message.Message:
    with zipfile.ZipFile(wheel) as z:
        (name,) = [n for n in z.namelist() if n.endswith(".dist-info/METADATA")]
        return email.message_from_bytes(z.read(name))


def _copy_sources(target: Path) -> None:
    """The files a build reads, outside the checkout: an in-place build leaves build/ and *.egg-info."""
    junk = shutil.ignore_patterns("__pycache__", "build", "*.egg-info", "dist")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, target / name)
    shutil.copytree(ROOT / "trailblaze", target / "trailblaze", ignore=junk)
    shutil.copytree(ROOT / "drivers", target / "drivers", ignore=junk)


@pytest.mark.slow
def test_build_makes_an_sdist_and_wheel_of_every_distribution_that_twine_checks(tmp_path: Path) -> None:
    source, dist = tmp_path / "src", tmp_path / "dist"
    source.mkdir()
    _copy_sources(source)
    for project in (source, *(source / "drivers" / p for p in DRIVERS)):
        # --no-isolation: the build backend of this venv (dev extra), no package index
        built = subprocess.run(
            [sys.executable, "-m", "build", "--no-isolation", "--sdist", "--wheel", "--outdir", str(dist), str(project)],
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    names = ["trailblaze", *(f"trailblaze_{p}" for p in DRIVERS)]
    assert sorted(p.name for p in dist.iterdir()) == sorted(
        f"{n}-{__version__}{suffix}" for n in names for suffix in ("-py3-none-any.whl", ".tar.gz")
    )
    checked = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", *map(str, sorted(dist.iterdir()))],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert checked.returncode == 0 and checked.stdout.count("PASSED") == 2 * (1 + len(DRIVERS)), checked.stdout + checked.stderr

    main = _metadata(dist / f"trailblaze-{__version__}-py3-none-any.whl")
    assert main["Version"] == __version__ and main["License-Expression"] == "Apache-2.0"
    assert "Typing :: Typed" in main.get_all("Classifier", [])
    assert any(url.startswith("Source, https://") for url in main.get_all("Project-URL", []))
    requires = [Requirement(r) for r in main.get_all("Requires-Dist", [])]
    for platform in DRIVERS:
        (pin,) = [r for r in requires if r.name == f"trailblaze-{platform}"]
        assert str(pin.specifier) == f"=={__version__}" and pin.marker is not None
        assert pin.marker.evaluate({"extra": platform}) and not pin.marker.evaluate({"extra": "dev"})
    with zipfile.ZipFile(dist / f"trailblaze-{__version__}-py3-none-any.whl") as z:
        files = set(z.namelist())
    assert {"trailblaze/py.typed", "trailblaze/__about__.py"} <= files
    assert {"trailblaze/output/report.css", "trailblaze/output/report.js"} <= files  # the report's page data
    assert not any(name.startswith("trailblaze/sim/") for name in files)  # the simulator is its own wheel
    with zipfile.ZipFile(dist / f"trailblaze_sim-{__version__}-py3-none-any.whl") as z:
        assert "trailblaze_sim/apps/demo.yaml" in z.namelist()
    assert f"trailblaze-{__version__}.dist-info/licenses/LICENSE" in files
    for platform, package in DRIVERS.items():
        wheel = dist / f"trailblaze_{platform}-{__version__}-py3-none-any.whl"
        meta = _metadata(wheel)
        assert (
            meta["License-Expression"] == "Apache-2.0" and meta["Description-Content-Type"] == "text/markdown"
        )
        assert f"trailblaze=={__version__}" in meta.get_all("Requires-Dist", [])
        with zipfile.ZipFile(wheel) as z:
            assert f"{package}/py.typed" in z.namelist(), platform
            if platform == "appium":  # the capability names it checks files against
                assert f"{package}/known_capabilities.yaml" in z.namelist()
            entry_points = z.read(f"trailblaze_{platform}-{__version__}.dist-info/entry_points.txt").decode()
        group = ENTRY_POINTS[platform]
        assert f"[{group}]" in entry_points, platform
        assert (f"{platform} = {package}:driver_plugin" if group == "trailblaze.drivers" else
                f"sim = {package}.plugin:simulator_plugin") in entry_points  # fmt: skip
        with tarfile.open(dist / f"trailblaze_{platform}-{__version__}.tar.gz") as sdist:
            assert f"trailblaze_{platform}-{__version__}/LICENSE" in sdist.getnames(), platform


def test_a_missing_driver_names_the_extra_that_installs_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import trailblaze.device.devices as devices
    from trailblaze.errors import UsageError

    monkeypatch.setattr(devices, "entry_points", lambda group: [])
    for platform in (p for p in DRIVERS if ENTRY_POINTS[p] == "trailblaze.drivers"):
        with pytest.raises(UsageError) as raised:
            devices.load_driver_plugin(platform)
        assert f'pip install "trailblaze[{platform}]"' in raised.value.message, raised.value.message


def test_the_guides_pin_this_version() -> None:
    guides = ROOT / "docs" / "guides"
    pins = [
        (path.name, m[1])
        for path in sorted(guides.glob("*.md"))
        for m in re.finditer(r"trailblaze(?:\[[a-z,]+\])?==([0-9][^\"'\s`]*)", path.read_text("utf-8"))
    ]
    assert {name for name, _ in pins} >= {"ci.md", "install.md"}
    assert {version for _, version in pins} == {__version__}


def _distributions_of(text: str) -> set[str]:
    """The folders a shell `for project in . drivers/a drivers/b; do` builds."""
    (line,) = [m[1] for m in re.finditer(r"for project in ([^;]+); do", text)]
    return {word for word in line.split() if word != "."}


def test_every_distribution_an_extra_names_is_built_released_and_installed() -> None:
    """An extra that names a distribution the release does not publish lets anyone register that
    name on PyPI and run their code on every machine that installs the extra (issue 38 item 1):
    the extras, the release workflow, .ci/wheels and the drivers/ folders name the same list."""
    extras = _pyproject(ROOT)["optional-dependencies"]
    named = {
        Requirement(r).name.removeprefix("trailblaze-")
        for values in extras.values()
        for r in values
        if Requirement(r).name.startswith("trailblaze-")
    }
    folders = {p.name for p in (ROOT / "drivers").iterdir() if (p / "pyproject.toml").is_file()}
    release = _distributions_of((ROOT / ".github" / "workflows" / "release.yml").read_text("utf-8"))
    wheels_script = (ROOT / ".ci" / "wheels").read_text("utf-8")
    assert named == folders == set(DRIVERS)
    assert release == _distributions_of(wheels_script) == {f"drivers/{name}" for name in DRIVERS}
    installed = re.search(r"for driver in ([a-z ]+); do", wheels_script)
    assert installed is not None and set(installed[1].split()) == set(DRIVERS)
    guide = (ROOT / "docs" / "guides" / "install.md").read_text("utf-8")
    for name in DRIVERS:
        assert f"trailblaze-{name}" in guide, f"docs/guides/install.md names no trusted publisher for trailblaze-{name}"
