#!/usr/bin/env bash
# Makes sure headless Chromium and its driver are there for the report page's browser test
# (tests/integration/test_report.py): Debian's chromium and chromium-driver. Quick when they are.
set -euo pipefail

if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then
  exit 0
fi

echo "No Chromium or chromedriver: installing Debian's chromium and chromium-driver"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
# A font, so that the page's text renders in the screenshot on a machine that has none.
apt-get install -y -q --no-install-recommends chromium chromium-driver fonts-dejavu-core >/dev/null
# chromium --version prints a shell warning from Debian's wrapper on some machines; only the last line counts.
echo "$(chromium --version 2>/dev/null | tail -n 1), $(chromedriver --version | cut -d' ' -f1-2)"
