"""What an iPhone answers through WebDriverAgent: its routes (`wda`), settings, the accessibility source
and its queries (predicate, class chain, XPath). Imports `device`, `app` and the top level, never
`android`."""
