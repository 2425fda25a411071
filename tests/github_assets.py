"""SchemaStore's JSON schemas for GitHub Actions files; never stored in the repo.

``github-action.json`` (action metadata, ``action.yml``) and
``github-workflow.json`` (workflow files), as vendored unmodified in the PyPI
wheel ``check-jsonschema``, checked by sha256 and cached like the SARIF schema
(see ``sarif_assets.py``). Run as a script to fill the cache (``.ci/run`` does).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from sarif_assets import wheel_member

PACKAGE = "check-jsonschema==0.39.0"
VENDOR = "check_jsonschema/builtin_schemas/vendor"
ACTION_SCHEMA_SHA256 = "224326cc5a334bdb97b56b6fc320cd4381ba7d61b477b425ed506e6a420b52ba"
WORKFLOW_SCHEMA_SHA256 = "d10c9f4656e1bd5bc6727e9b35080e017dc167154726fca93da33c7a6bd1c4f3"


def action_schema_path() -> Path:
    """SchemaStore's ``github-action.json``."""
    return wheel_member(
        PACKAGE, f"{VENDOR}/github-actions.json", ACTION_SCHEMA_SHA256, "github-action.json"
    )


def workflow_schema_path() -> Path:
    """SchemaStore's ``github-workflow.json``."""
    return wheel_member(
        PACKAGE, f"{VENDOR}/github-workflows.json", WORKFLOW_SCHEMA_SHA256, "github-workflow.json"
    )


def load_yaml(text: str) -> Any:
    """Parse a GitHub Actions YAML document with YAML 1.2 booleans, as GitHub
    reads it: ``on`` is the trigger key, not ``True``."""
    import yaml  # a dev dependency; the script part of this module runs before it

    class Yaml12Loader(yaml.SafeLoader):
        pass

    bool_tag = "tag:yaml.org,2002:bool"
    Yaml12Loader.yaml_implicit_resolvers = {
        first: [(tag, regex) for tag, regex in resolvers if tag != bool_tag]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    Yaml12Loader.add_implicit_resolver(
        bool_tag, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
    )
    return yaml.load(text, Loader=Yaml12Loader)


if __name__ == "__main__":
    print(action_schema_path())
    print(workflow_schema_path())
