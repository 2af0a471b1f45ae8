"""Declarative apps: the spec a YAML file describes (`spec`), an app's data directory (`data`) and how
its screens are laid out in points (`layout`). Imports only the top-level `model`."""
