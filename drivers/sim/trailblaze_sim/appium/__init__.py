"""What a phone gives Appium: the simulated Android phone grows the parts of a real one that the
unmodified Appium server (3.x) and its UiAutomator2 driver (appium-uiautomator2-driver 8.7.0) use.

- `phone.AppiumPhone`: one per device of the fake adb server; keeps the APKs' manifests, the Appium
  Settings app (`settings_app`), the instrumentation started by `am instrument -w`
  (`instrumentation`) and the shell commands around them (`shell_commands`).
- `uia2_server.Uia2Server`: appium-uiautomator2-server 10.x's HTTP protocol on device port 6790
  (sessions, settings, page source, locators, element commands, W3C actions, device info), over the
  same device model and `U2Service` as the uiautomator2 JSON-RPC server; its parts are
  `uia2_session`, `uia2_screen`, `uia2_source`, `uia2_find`, `uia2_actions`, `uia2_gestures`, `uia2_device` and
  `uia2_errors`.
- `apk_manifest`: what the package manager reads from an APK's compiled manifest.
- `xcuitest.XcuitestSimServer`: what Appium's XCUITest driver answers in front of the simulated
  WebDriverAgent: a `WdaSimServer` with its own route table (a copy of WDA's, wrapped and extended);
  `server.wda` starts it.

Nothing here is imported by the core; `server.adb` creates one `AppiumPhone` per device.
"""
