"""The wire endpoints `runtime` starts: the adb server (`adb`) and the WebDriverAgent server (`wda`),
each with the Appium personality of its platform. Nothing below imports them."""
