"""Tests of the driver distributions (drivers/android, ios, web, appium): the `Driver` interface end to end."""
