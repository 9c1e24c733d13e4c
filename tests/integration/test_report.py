"""playbooks/report.yml against a live cluster, and its page opened from disk in headless Chromium.

A topic of its own with records and a throttle left set, a consumer group whose name carries markup,
a plan made by kafka_reassignment_plan that empties the highest broker of the topic, and a verify
report: the page must show the brokers, the topic, the group's name as text and the plan's charts
as drawn SVG bars. The page and a screenshot are kept in KAFKAOPS_REPORT_OUTPUT when set, else in
pytest's temporary folder.

Needs Chromium and its driver, and selenium (tests/headless_browser.py says where it finds them).
"""

import json
import os
import sys
import time
import uuid

import pytest
from kafka import KafkaProducer
from kafka.admin import ConfigResource, ConfigResourceType
from playbook_runner import run_playbook

from headless_browser import chromium

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PARTITIONS = 6
RECORDS = 300
# Group names are free text: this one must come out as text, not as markup.
GROUP = "report-<b>group</b>-%s" % uuid.uuid4().hex[:6]
THROTTLE_KEY = "follower.replication.throttled.replicas"


def run_report(tmp_path, bootstrap_servers, **variables):
    """ansible-playbook playbooks/report.yml on the controller; returns its PlaybookRun."""
    extra = tmp_path / ("report-%s.json" % uuid.uuid4().hex[:6])
    extra.write_text(json.dumps({"bootstrap_servers": bootstrap_servers, **variables}))
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"),
               PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])
    return run_playbook(os.path.join(ROOT, "playbooks", "report.yml"), ["localhost,"],
                        ["ansible_python_interpreter=%s" % sys.executable, "@%s" % extra], options=["-c", "local"],
                        environment=env, timeout=600, cwd=str(tmp_path))


@pytest.fixture
def output_dir(tmp_path):
    given = os.environ.get("KAFKAOPS_REPORT_OUTPUT")
    if given:
        os.makedirs(given, exist_ok=True)
        return given
    return str(tmp_path)


@pytest.fixture
def topic(kafka, bootstrap_servers, cluster):
    """A topic with records, a throttle left on it, and a consumer group with lag; all removed afterwards."""
    name = "report-%s" % uuid.uuid4().hex[:8]
    made = kafka("kafka_topic", name=name, partitions=PARTITIONS, replication_factor=2)
    assert not made.failed, made.output
    try:
        producer = KafkaProducer(bootstrap_servers=bootstrap_servers, acks="all")
        for number in range(RECORDS):
            producer.send(name, value=b"x" * 200, partition=number % PARTITIONS)
        producer.flush(60)
        producer.close()
        throttle = ConfigResource(ConfigResourceType.TOPIC, name, configs={THROTTLE_KEY: "0:1"})
        cluster.admin.alter_configs([throttle])
        # A new cluster creates its offsets topic on the first group request: until then there is no coordinator.
        deadline = time.monotonic() + 90
        while True:
            reset = kafka("kafka_consumer_group", group=GROUP, topics=[name], reset="offset", reset_offset=10)
            if not reset.failed or "CoordinatorNotAvailable" not in reset.get("msg", "") \
                    or time.monotonic() > deadline:
                break
            time.sleep(3)
        assert not reset.failed, reset.output
        yield name
    finally:
        kafka("kafka_consumer_group", group=GROUP, state="absent")
        kafka("kafka_topic", name=name, state="absent")


def test_the_report_page_shows_the_cluster_and_the_plan_in_a_browser(kafka, bootstrap_servers, cluster, topic,
                                                                     tmp_path, output_dir):
    brokers = cluster.broker_ids()
    target = brokers[:-1]
    plan_file = tmp_path / "plan.json"
    planned = kafka("kafka_reassignment_plan", topics=[topic], broker_list=target, dest=str(plan_file))
    assert not planned.failed and plan_file.exists(), planned.output
    # prepare_reassignment.yml keeps the plan's summary beside the plan; the page reads it from there.
    (tmp_path / "plan.summary.json").write_text(json.dumps(planned["summary"]))
    moves_off_last = sum(1 for replicas in cluster.replicas(topic).values() if brokers[-1] in replicas)
    assert moves_off_last, "the test needs replicas of %s on broker %d" % (topic, brokers[-1])
    verify_report = tmp_path / "verify-report.json"
    verify_report.write_text(json.dumps({
        "ok": True, "records": RECORDS, "expected": RECORDS, "lost": 0, "duplicates": 0, "out_of_order": 0,
        "corrupt": 0, "offset_gaps": 0, "unacknowledged": 0, "per_partition": [], "examples": [],
        "topics": [topic], "missing_topics": [], "manifests": [], "lost_checked": True,
        "started_at": "2026-01-01T00:00:00+00:00", "elapsed_seconds": 12.5}))
    page = os.path.join(output_dir, "report.html")

    run = run_report(tmp_path, bootstrap_servers, report_file=page, plan_file=str(plan_file),
                     verify_reports=[str(verify_report)])
    assert run.rc == 0, run.describe()
    assert run.messages("Say where the page is") == ["The cluster report is in %s" % os.path.realpath(page)], \
        run.describe()
    with open(page) as stream:
        html = stream.read()
    # Self-contained: nothing is fetched when the page opens.
    assert "src=" not in html and "<link" not in html and "@import" not in html

    driver = chromium()
    try:
        driver.get("file://" + os.path.realpath(page))
        # The whole page in one picture (the window as tall as the page), taken before the checks so that
        # a failing check can be looked at.
        height = driver.execute_script("return document.documentElement.scrollHeight")
        driver.set_window_size(1000, min(height + 20, 4000))
        assert driver.save_screenshot(os.path.join(output_dir, "report.png"))

        shown = [int(row.get_attribute("data-broker"))
                 for row in driver.find_elements("css selector", "#brokers tr[data-broker]")]
        assert shown == brokers
        row = driver.find_element("css selector", '#topics tr[data-topic="%s"]' % topic)
        assert topic in row.text and "%d" % PARTITIONS in row.text
        assert THROTTLE_KEY in driver.find_element("id", "throttles").text

        # The group's name is text on the page, and its markup made no element.
        groups = driver.find_element("id", "groups")
        assert GROUP in groups.text and not groups.find_elements("css selector", "b")
        lag = [line for line in groups.text.splitlines() if GROUP in line]
        assert lag and lag[0].split()[-1] == str(RECORDS - PARTITIONS * 10), groups.text

        charts = driver.find_elements("css selector", "svg.plan-chart")
        assert [chart.get_attribute("data-metric") for chart in charts] == ["replicas", "leaders", "bytes"]
        replicas_chart = charts[0]
        bars = replicas_chart.find_elements("css selector", "rect[data-broker]")
        assert sorted(set(int(rect.get_attribute("data-broker")) for rect in bars)) == brokers
        assert len(bars) == 2 * len(brokers)

        def value(broker, series):
            rect = replicas_chart.find_element(
                "css selector", 'rect[data-broker="%d"][data-series="%s"]' % (broker, series))
            return int(rect.get_attribute("data-value")), rect.size["width"]

        before, before_width = value(brokers[-1], "before")
        after, unused = value(brokers[-1], "after")
        assert before - after == moves_off_last and before_width > 0

        # The byte balance the plan reached (the test's topic holds records, so the default plans by bytes),
        # broker by broker, and every broker's log dirs.
        balance = driver.find_element("id", "plan-balance-summary")
        assert "of each other" in balance.text and "the best any plan can reach" in balance.text, balance.text
        assert 0.0 <= float(balance.get_attribute("data-spread-after")) <= 100.0
        rows = driver.find_elements("css selector", "#plan-balance tr[data-broker]")
        assert sorted(int(row.get_attribute("data-broker")) for row in rows) == brokers
        leaving = driver.find_element("css selector", '#plan-balance tr[data-broker="%d"]' % brokers[-1])
        assert "(leaves)" in leaving.text
        dirs = driver.find_elements("css selector", "#log-dirs tr[data-broker]")
        assert sorted(set(int(row.get_attribute("data-broker")) for row in dirs)) == brokers
        assert "OK" in driver.find_element("id", "verify").text
    finally:
        driver.quit()
