"""What an Android phone answers: the shell and its commands, logcat, the uiautomator2 service and the
accessibility hierarchy it dumps. Imports `device`, `app` and the top level, never `ios`."""
