"""Device-farm presets: `appium:browserstack`, `appium:saucelabs[:REGION]`, `appium:lambdatest`.

A preset is data, not a code path: the hub URL, the environment variables holding the credentials,
the vendor capability block they go into, and the scripts the farm runs through `execute_script` to
name a session and mark it passed or failed. Everything else (sessions, actions, page sources) is the
same Appium protocol as a local server.

Facts, from each farm's Appium documentation:
- BrowserStack App Automate: hub `https://hub-cloud.browserstack.com/wd/hub`; `bstack:options`
  `{userName, accessKey, sessionName, buildName}`; `browserstack_executor: {"action":
  "setSessionName" | "setSessionStatus" | "getSessionDetails", "arguments": {...}}`; the session
  details carry `browser_url`, the session's dashboard page.
- Sauce Labs: hub `https://ondemand.REGION.saucelabs.com:443/wd/hub` (us-west-1, eu-central-1,
  us-east-4); `sauce:options` `{username, accessKey, name, build}`; `sauce:job-name=NAME`,
  `sauce:job-result=passed|failed`; the test page is `https://app.saucelabs.com/tests/ID` (other
  regions: `app.REGION.saucelabs.com`).
- LambdaTest: hub `https://mobile-hub.lambdatest.com/wd/hub`; `lt:options` `{username, accessKey,
  name, build, w3c}`; `lambda-name=NAME`, `lambda-status=passed|failed`. It returns no page link.

`TRAILBLAZE_APPIUM_HUB` replaces a preset's hub URL (a private endpoint, a proxy, a test stand-in);
the credentials still come from the farm's variables.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from trailblaze.errors import UsageError

__all__ = ["FARMS", "HUB_ENV", "Farm", "build_name", "farm_for"]

HUB_ENV = "TRAILBLAZE_APPIUM_HUB"


@dataclass(frozen=True)
class Farm:
    """One device farm's Appium endpoint and conventions."""

    name: str
    title: str
    hub: str
    """The hub URL; `{region}` is replaced by the region."""
    user_env: str
    key_env: str
    options_key: str
    """The vendor capability block the credentials, name and build go into."""
    user_field: str
    key_field: str
    name_field: str
    build_field: str
    regions: tuple[str, ...] = ()
    defaults: tuple[tuple[str, Any], ...] = ()
    """Entries the vendor block gets unless the capabilities file sets them."""

    def hub_url(self, region: str | None) -> str:
        override = os.environ.get(HUB_ENV, "").strip()
        if override:
            return override
        return self.hub.format(region=region or (self.regions[0] if self.regions else ""))

    def check_region(self, region: str | None) -> str | None:
        if region is None:
            return self.regions[0] if self.regions else None
        if region not in self.regions:
            known = ", ".join(self.regions) if self.regions else "none: it has one endpoint"
            raise UsageError(f"appium:{self.name}:{region}: unknown {self.title} region (regions: {known})")
        return region

    def credentials(self) -> tuple[str, str]:
        """(user, key) from the farm's environment variables; UsageError naming the missing one."""
        user = os.environ.get(self.user_env, "").strip()
        key = os.environ.get(self.key_env, "").strip()
        missing = [name for name, value in ((self.user_env, user), (self.key_env, key)) if not value]
        if missing:
            raise UsageError(
                f"appium:{self.name} needs your {self.title} credentials: export {' and '.join(missing)} "
                "(from the farm's account settings; they are secrets and never written anywhere)"
            )
        return user, key

    def apply(self, caps: dict[str, Any], user: str, key: str, name: str, build: str) -> dict[str, Any]:
        """`caps` with the vendor block holding the credentials, the session name and the build
        (a name or build the capabilities file sets is kept).

        The name and build are trailblaze's words, which a farm shows on its dashboard: no secret
        (a `--secret`, a value the capabilities file read from the environment) goes into them."""
        from trailblaze.common.redact import scrub

        name, build = scrub(name), scrub(build)
        out = dict(caps)
        block = dict(out.get(self.options_key) or {})
        for field, value in self.defaults:
            block.setdefault(field, value)
        block[self.user_field] = user
        block[self.key_field] = key
        block.setdefault(self.name_field, name)
        block.setdefault(self.build_field, build)
        out[self.options_key] = block
        return out

    def name_script(self, name: str) -> tuple[str, list[Any]]:
        if self.name == "browserstack":
            return _bstack("setSessionName", {"name": name}), []
        if self.name == "saucelabs":
            return f"sauce:job-name={name}", []
        return f"lambda-name={name}", []

    def status_script(self, passed: bool, reason: str | None) -> tuple[str, list[Any]]:
        status = "passed" if passed else "failed"
        if self.name == "browserstack":
            return _bstack("setSessionStatus", {"status": status, "reason": (reason or "")[:255]}), []
        if self.name == "saucelabs":
            return f"sauce:job-result={status}", []
        return f"lambda-status={status}", []

    def page_script(self) -> str | None:
        """The script whose answer holds the session's page (None: the page is known, or none)."""
        return _bstack("getSessionDetails", None) if self.name == "browserstack" else None

    def page_url(self, session_id: str, region: str | None, details: Any = None) -> str | None:
        if self.name == "browserstack":
            found = _json(details).get("browser_url") if details is not None else None
            return str(found) if found else None
        if self.name == "saucelabs":
            host = "app.saucelabs.com" if region in (None, "us-west-1") else f"app.{region}.saucelabs.com"
            return f"https://{host}/tests/{session_id}"
        return None


def _bstack(action: str, arguments: Mapping[str, Any] | None) -> str:
    body: dict[str, Any] = {"action": action}
    if arguments is not None:
        body["arguments"] = dict(arguments)
    return "browserstack_executor: " + json.dumps(body)


def _json(value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        return value
    try:
        parsed = json.loads(str(value))
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


FARMS: dict[str, Farm] = {
    farm.name: farm
    for farm in (
        Farm(
            "browserstack", "BrowserStack", "https://hub-cloud.browserstack.com/wd/hub",
            "BROWSERSTACK_USERNAME", "BROWSERSTACK_ACCESS_KEY", "bstack:options",
            "userName", "accessKey", "sessionName", "buildName",
        ),
        Farm(
            "saucelabs", "Sauce Labs", "https://ondemand.{region}.saucelabs.com:443/wd/hub",
            "SAUCE_USERNAME", "SAUCE_ACCESS_KEY", "sauce:options",
            "username", "accessKey", "name", "build",
            regions=("us-west-1", "eu-central-1", "us-east-4"),
        ),
        Farm(
            "lambdatest", "LambdaTest", "https://mobile-hub.lambdatest.com/wd/hub",
            "LT_USERNAME", "LT_ACCESS_KEY", "lt:options",
            "username", "accessKey", "name", "build",
            defaults=(("w3c", True),),
        ),
    )
}  # fmt: skip


def farm_for(target: str) -> tuple[Farm, str | None] | None:
    """The preset `target` names (`saucelabs:eu-central-1` → Sauce Labs, that region), None for a
    URL. UsageError for an unknown word."""
    if "://" in target:
        return None
    word, _, region = target.partition(":")
    farm = FARMS.get(word)
    if farm is None:
        raise UsageError(
            f"appium:{target}: no such device farm preset; use appium:{', appium:'.join(FARMS)} "
            "or an Appium server URL (appium:http://127.0.0.1:4723)"
        )
    return farm, farm.check_region(region or None)


_CI_BUILDS = (
    ("TRAILBLAZE_BUILD", "{TRAILBLAZE_BUILD}"),
    ("GITHUB_RUN_NUMBER", "{GITHUB_REPOSITORY} #{GITHUB_RUN_NUMBER}"),
    ("CI_PIPELINE_IID", "{CI_PROJECT_PATH} #{CI_PIPELINE_IID}"),
    ("BUILDKITE_BUILD_NUMBER", "{BUILDKITE_PIPELINE_SLUG} #{BUILDKITE_BUILD_NUMBER}"),
    ("CIRCLE_BUILD_NUM", "{CIRCLE_PROJECT_REPONAME} #{CIRCLE_BUILD_NUM}"),
    ("BUILD_TAG", "{BUILD_TAG}"),
)


def build_name(env: Mapping[str, str] | None = None) -> str:
    """The build a farm groups this run's sessions under: `TRAILBLAZE_BUILD`, else the CI system's
    run (GitHub Actions, GitLab, Buildkite, CircleCI, Jenkins), else `trailblaze` and today's date."""
    import datetime
    import string

    source = os.environ if env is None else env
    for key, template in _CI_BUILDS:
        if source.get(key, "").strip():
            fields = [f for _, f, _, _ in string.Formatter().parse(template) if f]
            return template.format(**{f: source.get(f, "").strip() or "?" for f in fields}).strip()
    return f"trailblaze {datetime.date.today().isoformat()}"
