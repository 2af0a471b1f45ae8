"""The Appium session a driver works through (`AppiumSession`): one per device, opened by the
connection, renewed at each trail (`per-trail`) or kept for the run (`shared`), named and marked
passed or failed on a device farm. A command that finds the session gone forgets it, so the trail
fails there and the next trail opens a new one; never a new session in the middle of a trail."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Self

from trailblaze.errors import SessionLost
from trailblaze_appium._errors import translating
from trailblaze_appium.connection import Connection

if TYPE_CHECKING:
    from types import TracebackType

    from appium.webdriver.webdriver import WebDriver

__all__ = ["AppiumSession", "SessionMode"]

SessionMode = Literal["per-trail", "shared"]


class AppiumSession:
    """The Appium session behind one device: opened with the connection, renewed per trail or shared
    (`mode`), named and marked on a farm, forgotten when the server ends it. `AppiumDriver` builds
    the device's operations on it."""

    def __init__(self, connection: Connection, platform: Literal["android", "ios"], mode: SessionMode) -> None:
        self._conn = connection
        self._platform = platform
        self._mode = mode
        self._d: WebDriver | None = None
        self._trails = 0
        self._idle: bool | None = None
        """Whether the server's idle wait bounds settling (None: not asked yet in this session)."""
        self._lost: str | None = None
        """Why the session ended, when it did (the farm's words), until the next one opens."""
        self._d = self._new_session()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self._platform} on {self._conn.display}>"

    @property
    def connection(self) -> Connection:
        return self._conn

    @property
    def session_id(self) -> str | None:
        return None if self._d is None else str(self._d.session_id)

    # --- sessions (SupportsRemoteSession) ------------------------------------------------------------
    def _new_session(self, name: str = "trailblaze") -> WebDriver:
        driver = self._conn.open(name)
        self._lost = None
        # `POST /session/:id/keys` types into the focused element in both Appium drivers
        # (UiAutomator2's `keys`, XCUITest's `/wda/keys`); Selenium 4 dropped it from its table.
        driver.command_executor.add_command("tbKeys", "POST", "/session/$sessionId/keys")  # type: ignore[no-untyped-call]
        self._idle = None  # a new session has its own settings
        return driver

    def _session(self) -> WebDriver:
        if self._d is None:
            # Never a new session in the middle of a trail: the app's state went with the old one,
            # so the trail fails here and the next trail's `begin_trail` opens a new session.
            raise SessionLost(
                self._lost or f"the Appium session on {self._conn.display} has ended; the next trail opens a new one"
            )
        return self._d

    def _guard(self, what: str) -> Any:
        return _SessionGuard(self, what)

    def begin_trail(self, name: str) -> None:
        from trailblaze.common.redact import scrub

        name = scrub(name)  # what goes to a farm is a request: no secret in it
        self._trails += 1
        farm = self._conn.farm
        if self._d is not None and (self._mode == "shared" or self._trails == 1):
            if farm is not None:
                script, args = farm.name_script(name)
                with self._guard("naming the session"):
                    self._d.execute_script(script, *args)
            return
        self._quit()
        self._d = self._new_session(name)

    def end_trail(self, passed: bool, reason: str | None) -> str | None:
        farm = self._conn.farm
        if farm is None or self._d is None:
            return None
        from trailblaze.common.redact import scrub

        driver = self._d
        script, args = farm.status_script(passed, scrub(reason) if reason else reason)
        with self._guard("marking the session passed" if passed else "marking the session failed"):
            driver.execute_script(script, *args)
            page = farm.page_script()
            details = driver.execute_script(page) if page is not None else None
        return farm.page_url(str(driver.session_id), self._conn.region, details)

    def _quit(self) -> None:
        driver, self._d = self._d, None
        if driver is None:
            return
        try:
            driver.quit()
        except Exception:  # an ended session cannot be ended again; the next one is what matters
            pass


    # --- lifecycle ---------------------------------------------------------------------------------
    def close(self) -> None:
        self._quit()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()



class _SessionGuard:
    """`translating`, and a session that ended is forgotten so the next trail opens a new one."""

    def __init__(self, driver: AppiumSession, what: str) -> None:
        self._driver = driver
        self._inner = translating(what, driver.connection.display)

    def __enter__(self) -> None:
        self._inner.__enter__()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool:
        try:
            return bool(self._inner.__exit__(exc_type, exc, tb))
        except SessionLost as lost:
            self._driver._d = None  # dead: the next trail starts a new session
            self._driver._lost = lost.message
            raise
