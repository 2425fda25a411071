"""Settings: TOML reading, ``[tool.pdlint]`` and rule packs (framework knowledge)."""
