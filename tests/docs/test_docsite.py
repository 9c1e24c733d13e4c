"""The collection's HTML docs, opened from disk in headless Chromium as a reader browses them.

`make docs` builds them into .cache/docs/html (KAFKAOPS_DOCS_HTML names another folder); `make docs-check` builds
them and runs this. The index must list every guide of docs/docsite/extra-docs.yml under its section and every
module; its link to kafka_topic must lead to that module's page, whose options table lists every option the
module documents; a guide must show its sections and link to the modules it names. No link of the pages opened
may point at a file that is not there.
"""

import ast
import os
from urllib.parse import unquote, urlsplit

import pytest
import yaml

from headless_browser import chromium

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HTML = os.environ.get("KAFKAOPS_DOCS_HTML") or os.path.join(ROOT, ".cache", "docs", "html")
INDEX = os.path.join(HTML, "index.html")


def documented(path, name="DOCUMENTATION"):
    """The YAML of a Python file's documentation string (a module's, or a doc fragment class's)."""
    with open(os.path.join(ROOT, path)) as stream:
        tree = ast.parse(stream.read())
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(getattr(target, "id", None) == name for target in node.targets):
            return yaml.safe_load(node.value.value)
    raise AssertionError("%s has no %s" % (path, name))


def module_options(module):
    """Every top-level option a module documents, its doc fragments' included."""
    doc = documented("plugins/modules/%s.py" % module)
    options = set(doc.get("options") or {})
    for fragment in doc.get("extends_documentation_fragment") or []:
        options |= set(documented("plugins/doc_fragments/%s.py" % fragment.split(".")[-1]).get("options") or {})
    return options


def page(url):
    """The file name a link or the browser's address points at, without its #fragment."""
    return os.path.basename(unquote(urlsplit(url).path))


def broken_links(driver):
    """The links of the page shown that point at a file on disk that is not there."""
    hrefs = driver.execute_script("return Array.from(document.querySelectorAll('a[href]'), a => a.href)")
    paths = set(unquote(urlsplit(href).path) for href in hrefs if href.startswith("file://"))
    return sorted(path for path in paths if not os.path.exists(path))


@pytest.fixture(scope="module")
def browser():
    if not os.path.isfile(INDEX):
        pytest.fail("no built docs at %s: run make docs first" % INDEX)
    driver = chromium(width=1200, height=1000)
    yield driver
    driver.quit()


def open_index(browser):
    browser.get("file://" + INDEX)
    assert browser.title.startswith("Kafkaops.Cluster"), browser.title


def test_the_index_lists_every_guide_under_its_section(browser):
    with open(os.path.join(ROOT, "docs", "docsite", "extra-docs.yml")) as stream:
        sections = yaml.safe_load(stream)["sections"]
    open_index(browser)

    headings = browser.find_elements("css selector", "h2")
    titles = [section["title"] for section in sections]
    assert [heading.text for heading in headings if heading.text in titles] == titles, [h.text for h in headings]
    by_title = dict((heading.text, heading) for heading in headings)
    for section in sections:
        links = by_title[section["title"]].find_elements("xpath", "./following-sibling::div[1]//a")
        targets = [page(link.get_attribute("href")) for link in links]
        assert targets == ["%s.html" % guide for guide in section["toctree"]], (section["title"], targets)
        assert all(link.text for link in links)
    assert broken_links(browser) == []


def test_the_index_links_to_the_kafka_topic_page_with_its_options(browser):
    open_index(browser)
    modules = [link.text for link in browser.find_elements("css selector", "a[href*='_module.html']")]
    for module in sorted(name[:-3] for name in os.listdir(os.path.join(ROOT, "plugins", "modules"))
                         if name.endswith(".py")):
        assert any(text.startswith("%s module" % module) for text in modules), (module, modules)

    browser.find_element("xpath", "//a[starts-with(normalize-space(), 'kafka_topic module')]").click()

    assert page(browser.current_url) == "kafka_topic_module.html", browser.current_url
    heading = browser.find_element("css selector", "h1").text
    assert heading.startswith("kafkaops.cluster.kafka_topic module"), heading
    table = browser.find_element("css selector", "table.ansible-option-table")
    anchors = [anchor.get_attribute("id") for anchor in table.find_elements("css selector", "div.ansibleOptionAnchor")]
    # Top-level options only: a sub-option's anchor is parameter-<option>/<sub-option>.
    shown = set(anchor[len("parameter-"):] for anchor in anchors
                if anchor.startswith("parameter-") and "/" not in anchor)
    assert shown == module_options("kafka_topic")
    assert "bootstrap_servers" in table.text and "config_mode" in table.text
    assert browser.find_element("id", "examples").text.count("kafkaops.cluster.kafka_topic") >= 1
    assert broken_links(browser) == []


def test_a_guide_shows_its_sections_and_links_to_the_modules_it_names(browser):
    open_index(browser)
    browser.find_element("css selector", "a[href$='docsite/guide_scaling.html']").click()

    assert browser.find_element("css selector", "h1").text.startswith("Scaling and balancing")
    sections = [heading.text for heading in browser.find_elements("css selector", "h2")]
    assert "Moving partitions: prepare and execute a reassignment" in sections, sections
    plan = browser.find_element("xpath", "//a[normalize-space()='kafkaops.cluster.kafka_reassignment_plan']")
    assert page(plan.get_attribute("href")) == "kafka_reassignment_plan_module.html"
    assert broken_links(browser) == []
