"""Device-farm presets as data: hubs, regions, credentials from the farms' own variables, the build
name from the CI run, and the scripts that name and mark a session (checked by the hub stand-ins
in tests/drivers/test_appium_farm_hubs.py)."""

from __future__ import annotations

import pytest

from trailblaze.errors import UsageError
from trailblaze_appium.farms import FARMS, HUB_ENV, build_name, farm_for


def test_each_preset_names_its_hub_and_credential_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(HUB_ENV, raising=False)
    bs, region = farm_for("browserstack") or (None, None)
    assert bs is not None and region is None
    assert bs.hub_url(region) == "https://hub-cloud.browserstack.com/wd/hub"
    assert (bs.user_env, bs.key_env) == ("BROWSERSTACK_USERNAME", "BROWSERSTACK_ACCESS_KEY")
    sauce, region = farm_for("saucelabs") or (None, None)
    assert sauce is not None and region == "us-west-1"
    assert sauce.hub_url(region) == "https://ondemand.us-west-1.saucelabs.com:443/wd/hub"
    eu = farm_for("saucelabs:eu-central-1")
    assert eu is not None and eu[0].hub_url(eu[1]) == "https://ondemand.eu-central-1.saucelabs.com:443/wd/hub"
    lt, _ = farm_for("lambdatest") or (None, None)
    assert lt is not None and (lt.user_env, lt.key_env) == ("LT_USERNAME", "LT_ACCESS_KEY")
    assert farm_for("http://127.0.0.1:4723") is None
    monkeypatch.setenv(HUB_ENV, "http://127.0.0.1:9999/wd/hub")
    assert bs.hub_url(None) == "http://127.0.0.1:9999/wd/hub"


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("browserstak", "no such device farm preset; use appium:browserstack, appium:saucelabs, appium:lambdatest"),
        ("saucelabs:mars-1", "unknown Sauce Labs region (regions: us-west-1, eu-central-1, us-east-4)"),
        ("lambdatest:eu", "unknown LambdaTest region (regions: none: it has one endpoint)"),
    ],
)
def test_a_bad_preset_says_which_exist(target: str, message: str) -> None:
    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace(")", r"\)")):
        farm_for(target)


def test_missing_credentials_name_the_variables_and_never_a_value(monkeypatch: pytest.MonkeyPatch) -> None:
    farm = FARMS["saucelabs"]
    monkeypatch.delenv("SAUCE_USERNAME", raising=False)
    monkeypatch.setenv("SAUCE_ACCESS_KEY", "s3cret-key-value")
    with pytest.raises(UsageError) as raised:
        farm.credentials()
    assert "export SAUCE_USERNAME" in raised.value.message and "SAUCE_ACCESS_KEY" not in raised.value.message
    assert "s3cret-key-value" not in raised.value.message


def test_the_vendor_block_gets_credentials_name_and_build_but_keeps_the_files_own() -> None:
    farm = FARMS["browserstack"]
    caps = {"platformName": "Android", "bstack:options": {"buildName": "mine", "projectName": "p"}}
    out = farm.apply(caps, "me", "key", "Sign in", "ci #7")
    assert out["bstack:options"] == {
        "buildName": "mine", "projectName": "p", "userName": "me", "accessKey": "key", "sessionName": "Sign in",
    }  # fmt: skip
    assert caps["bstack:options"] == {"buildName": "mine", "projectName": "p"}  # the file's set is not changed
    assert FARMS["lambdatest"].apply({}, "u", "k", "n", "b")["lt:options"]["w3c"] is True


def test_status_and_name_scripts_are_the_farms_own() -> None:
    bs, sauce, lt = FARMS["browserstack"], FARMS["saucelabs"], FARMS["lambdatest"]
    assert bs.status_script(False, "step 2 failed")[0] == (
        'browserstack_executor: {"action": "setSessionStatus", "arguments": {"status": "failed", "reason": "step 2 failed"}}'
    )
    assert sauce.status_script(True, None)[0] == "sauce:job-result=passed"
    assert lt.status_script(False, "x")[0] == "lambda-status=failed"
    assert sauce.name_script("Login")[0] == "sauce:job-name=Login"
    assert lt.name_script("Login")[0] == "lambda-name=Login"
    assert sauce.page_url("abc", "us-west-1") == "https://app.saucelabs.com/tests/abc"
    assert sauce.page_url("abc", "eu-central-1") == "https://app.eu-central-1.saucelabs.com/tests/abc"
    assert lt.page_url("abc", None) is None
    assert bs.page_url("abc", None, '{"browser_url": "https://app-automate.browserstack.com/x"}') == (
        "https://app-automate.browserstack.com/x"
    )


@pytest.mark.parametrize(
    ("env", "build"),
    [
        ({"TRAILBLAZE_BUILD": "nightly 12", "GITHUB_RUN_NUMBER": "5"}, "nightly 12"),
        ({"GITHUB_RUN_NUMBER": "5", "GITHUB_REPOSITORY": "acme/app"}, "acme/app #5"),
        ({"CI_PIPELINE_IID": "88", "CI_PROJECT_PATH": "g/app"}, "g/app #88"),
        ({"BUILD_TAG": "jenkins-app-41"}, "jenkins-app-41"),
    ],
)
def test_the_build_is_the_ci_run(env: dict[str, str], build: str) -> None:
    assert build_name(env) == build


def test_without_ci_the_build_is_dated() -> None:
    assert build_name({}).startswith("trailblaze 20")
