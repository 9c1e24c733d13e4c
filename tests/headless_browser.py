"""Headless Chromium for the tests that look at a page as a reader sees it: the cluster report
(tests/integration/test_report.py) and the collection's HTML docs (tests/docs).

Debian's chromium and chromium-driver (scripts/ensure-chromium.sh installs them), found at KAFKAOPS_CHROMIUM and
KAFKAOPS_CHROMEDRIVER or on PATH, driven with selenium. Importable as `headless_browser`: pyproject.toml puts
tests/ on pytest's path.
"""

import os
import shutil

import pytest


def chromium(width=1000, height=900):
    """A started headless Chromium (quit() it when done), or a test failure saying what is missing."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.fail("selenium is missing: pip install -r requirements-dev.txt")
    binary = os.environ.get("KAFKAOPS_CHROMIUM") or shutil.which("chromium")
    driver = os.environ.get("KAFKAOPS_CHROMEDRIVER") or shutil.which("chromedriver")
    if not binary or not driver:
        pytest.fail("Chromium or chromedriver is missing (found %s, %s): run scripts/ensure-chromium.sh"
                    % (binary, driver))
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    # Root in a container has no sandbox to give; /dev/shm is small there.
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=%d,%d" % (width, height), "--hide-scrollbars"):
        options.add_argument(argument)
    return webdriver.Chrome(options=options, service=Service(driver))
