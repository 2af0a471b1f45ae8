"""Opening Appium sessions: the server (a URL or a farm preset), the capabilities, the retries.

One `Connection` opens every session of a device: the first when the device opens (so bad
credentials or a capability no device matches fail the run at once, exit 3, with the server's own
message), then one per trail when sessions are per trail. A farm that refuses a new session because
its queue or the plan's parallel sessions are full is asked again with backoff, for a bounded time
(`TRAILBLAZE_APPIUM_QUEUE_TIMEOUT` seconds, default 300). Each session request waits at most
`TRAILBLAZE_APPIUM_CONNECT_TIMEOUT` seconds (default 120; `--appium-connect-timeout` sets it) for the
server's answer, so a server that takes the connection and never answers fails the run (exit 3)
instead of hanging it; later commands have the longer `_COMMAND_TIMEOUT`. Every answer is read at
most `_answers.MAX_ANSWER_BYTES` far.

Credentials never reach a URL, a message or a file: a farm's go into its vendor capability block,
a `user:key@` in a server URL is moved out of every message (`display`), and both are registered
as secrets, so the run's redactor removes them from anything written.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from trailblaze.errors import DeviceError, UsageError
from trailblaze_appium._errors import is_queue_full, translate
from trailblaze_appium.farms import Farm, build_name
from trailblaze_appium.local_hints import with_local_hint
from trailblaze_appium.spec import CONNECT_TIMEOUT_ENV

if TYPE_CHECKING:
    from appium.webdriver.webdriver import WebDriver

__all__ = ["CONNECT_TIMEOUT_ENV", "QUEUE_TIMEOUT_ENV", "Connection"]

QUEUE_TIMEOUT_ENV = "TRAILBLAZE_APPIUM_QUEUE_TIMEOUT"
_DEFAULT_QUEUE_TIMEOUT = 300.0
_DEFAULT_CONNECT_TIMEOUT = 120.0
_COMMAND_TIMEOUT = 300.0  # a farm may take minutes to hand out a device; each command has this bound
_FIRST_NAME = "trailblaze"


def _seconds(env: dict[str, str] | os._Environ[str], name: str, default: float, *, positive: bool = False) -> float:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise UsageError(f"{name}={raw!r} is not a number of seconds; set e.g. {default:g}") from None
    if positive and not value > 0:
        raise UsageError(f"{name}={raw!r}: use a number of seconds above 0, e.g. {default:g}")
    return max(0.0, value)


@dataclass
class Connection:
    """Where sessions come from and with what."""

    url: str
    """The hub URL, credentials removed."""
    capabilities: dict[str, Any]
    source: str
    """The capabilities file (`caps.yaml`, `matrix.yaml[2]`), for messages."""
    farm: Farm | None = None
    region: str | None = None
    queue_timeout: float = _DEFAULT_QUEUE_TIMEOUT
    connect_timeout: float = _DEFAULT_CONNECT_TIMEOUT
    _user: str = ""
    _key: str = ""
    build: str = ""
    creations: int = 0
    """Sessions this connection opened (the benchmarks and tests count them)."""

    @classmethod
    def create(cls, target: str, capabilities: dict[str, Any], source: str) -> Connection:
        """A connection to `target`: an Appium URL (`http://host:4723`, a grid's `/wd/hub`) or a
        farm preset (`browserstack`, `saucelabs:eu-central-1`, `lambdatest`)."""
        from trailblaze.common.redact import register_secrets
        from trailblaze_appium.farms import farm_for

        queue = _seconds(os.environ, QUEUE_TIMEOUT_ENV, _DEFAULT_QUEUE_TIMEOUT)
        connect = _seconds(os.environ, CONNECT_TIMEOUT_ENV, _DEFAULT_CONNECT_TIMEOUT, positive=True)
        found = farm_for(target)
        if found is None:
            url, user, key = _split_credentials(target)
            if key:
                register_secrets({"appium_server_password": key}, where="the Appium URL")
            return cls(
                url, dict(capabilities), source, queue_timeout=queue, connect_timeout=connect, _user=user, _key=key
            )
        farm, region = found
        user, key = farm.credentials()
        register_secrets({farm.key_env: key}, where=f"${farm.key_env}")
        hub, _, _ = _split_credentials(farm.hub_url(region))
        return cls(
            hub, dict(capabilities), source, farm, region, queue, connect, user, key, build=build_name()
        )

    @property
    def display(self) -> str:
        """How messages name the server: the farm, or the URL without credentials."""
        if self.farm is not None:
            region = f" ({self.region})" if self.region and len(self.farm.regions) > 1 else ""
            return f"{self.farm.title}{region}"
        return f"the Appium server at {self.url}"

    def session_capabilities(self, name: str) -> dict[str, Any]:
        """The capabilities a new session asks for: the file's, plus the farm's block."""
        if self.farm is None:
            return dict(self.capabilities)
        return self.farm.apply(self.capabilities, self._user, self._key, name, self.build)

    def open(self, name: str = _FIRST_NAME) -> WebDriver:
        """A new session named `name` (on a farm); retries a full queue with backoff.

        Raises:
            DeviceError: the server cannot be reached or refused the session (its message).
        """
        from appium import webdriver
        from appium.options.common.base import AppiumOptions
        from appium.webdriver.client_config import AppiumClientConfig

        from trailblaze_appium._answers import BoundedConnection

        _quiet_selenium()
        options = AppiumOptions()
        options.load_capabilities(self.session_capabilities(name))
        deadline = time.monotonic() + self.queue_timeout
        delay = min(2.0, self.queue_timeout / 20) or 0.05  # about 20 tries within the bound, 2 s at first
        while True:
            try:
                # A URL's `user:key@` travels as a basic-auth header, never inside the URL selenium logs
                auth = {"username": self._user, "password": self._key} if self._user and self.farm is None else {}
                config = AppiumClientConfig(
                    self.url, keep_alive=True, timeout=self.connect_timeout, direct_connection=False, **auth
                )
                driver = webdriver.Remote(BoundedConnection(client_config=config), options=options)
                config.timeout = _COMMAND_TIMEOUT  # the session is open: commands get their own bound
                self.creations += 1
                return driver
            except Exception as exc:
                left = deadline - time.monotonic()
                if is_queue_full(exc) and left > 0:
                    time.sleep(min(delay, left))
                    delay = min(delay * 2, 30.0)
                    continue
                error = translate(exc, "creating a session", self.display, creating=True)
                if isinstance(error, DeviceError) and error.wire == "no_answer":
                    # no `wire`: the bound is the person's, so the session opens no retry on top of it
                    error = DeviceError(
                        f"creating a session on {self.display}: no answer within {self.connect_timeout:g} s; "
                        f"check the server, or give it longer with --appium-connect-timeout ({CONNECT_TIMEOUT_ENV})"
                    )
                error = with_local_hint(error, self.capabilities)
                said = error.message.lower()
                if self.farm is not None and ("authoriz" in said or "authentic" in said or "401" in said):
                    error = DeviceError(f"{error.message}; check {self.farm.user_env} and {self.farm.key_env}")
                if is_queue_full(exc):
                    error = DeviceError(
                        f"{error.message} (still full after {self.queue_timeout:g} s of retries; raise "
                        f"{QUEUE_TIMEOUT_ENV} or free a parallel session)"
                    )
                raise error from exc

def _split_credentials(url: str) -> tuple[str, str, str]:
    """(url without `user:key@`, user, key)."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url, "", ""
    userinfo, _, host = parts.netloc.rpartition("@")
    user, _, key = userinfo.partition(":")
    return urlunsplit(parts._replace(netloc=host)), user, key


def _quiet_selenium() -> None:
    """Selenium logs every request body at DEBUG, capabilities (and a farm's access key) included:
    keep its connection logger above DEBUG whatever the application's logging does."""
    import logging

    for name in ("selenium.webdriver.remote.remote_connection", "urllib3.connectionpool"):
        logger = logging.getLogger(name)
        if logger.getEffectiveLevel() < logging.INFO:
            logger.setLevel(logging.INFO)
