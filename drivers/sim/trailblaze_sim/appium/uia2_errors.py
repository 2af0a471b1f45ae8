"""The W3C errors appium-uiautomator2-server 10.x answers with: HTTP status, `error` code and the
message of the Java exception it maps (`common/exceptions/*`), in the envelope
`{"value": {"error": …, "message": …, "stacktrace": …}, "sessionId": …}`."""

from __future__ import annotations

__all__ = ["Uia2Error"]

_PACKAGE = "io.appium.uiautomator2.common.exceptions."


class Uia2Error(Exception):
    """One of the server's exceptions, as the client sees it."""

    def __init__(self, status: int, error: str, message: str, java_class: str) -> None:
        super().__init__(message)
        self.status = status
        self.error = error
        self.message = message
        self.java_class = java_class

    @property
    def stacktrace(self) -> str:
        return f"{_PACKAGE}{self.java_class}: {self.message}\n\tat io.appium.uiautomator2.handler.request.SafeRequestHandler.handle(SafeRequestHandler.java:59)"

    @classmethod
    def no_such_element(
        cls, message: str = "An element could not be located on the page using the given search parameters"
    ) -> Uia2Error:
        return cls(404, "no such element", message, "ElementNotFoundException")

    @classmethod
    def stale(cls, message: str) -> Uia2Error:
        return cls(404, "stale element reference", message, "StaleElementReferenceException")

    @classmethod
    def invalid_argument(cls, message: str) -> Uia2Error:
        return cls(400, "invalid argument", message, "InvalidArgumentException")

    @classmethod
    def invalid_selector(cls, message: str) -> Uia2Error:
        return cls(400, "invalid selector", message, "InvalidSelectorException")

    @classmethod
    def invalid_element_state(cls, message: str) -> Uia2Error:
        return cls(400, "invalid element state", message, "InvalidElementStateException")

    @classmethod
    def invalid_session(cls, message: str) -> Uia2Error:
        return cls(404, "invalid session id", message, "NoSuchDriverException")

    @classmethod
    def session_not_created(cls, message: str) -> Uia2Error:
        return cls(500, "session not created", message, "SessionNotCreatedException")

    @classmethod
    def no_such_alert(cls) -> Uia2Error:
        return cls(404, "no such alert", "No alert is present on the screen", "NoAlertOpenException")

    @classmethod
    def unknown_command(
        cls,
        message: str = (
            "The requested resource could not be found, or a request was received using an HTTP method "
            "that is not supported by the mapped resource"
        ),
    ) -> Uia2Error:
        return cls(404, "unknown command", message, "UnknownCommandException")

    @classmethod
    def unknown(cls, message: str) -> Uia2Error:
        return cls(500, "unknown error", message, "UiAutomator2Exception")
