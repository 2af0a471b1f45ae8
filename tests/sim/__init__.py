"""Tests of the simulator distribution (drivers/sim): its adb, uiautomator2, WebDriverAgent and Appium sides."""
