"""The kafka_verify role's jobs: a foreground job's command line, and the background producers: their commands, the
fact naming them, the stop list, the figures."""

import base64
import json

import pytest
from ansible.errors import AnsibleFilterError
from ansible_collections.kafkaops.cluster.plugins.filter.kafka_verify import (
    kafka_verify_connection,
    kafka_verify_job_argv,
    kafka_verify_manifest_totals,
    kafka_verify_producer_starts,
    kafka_verify_producer_stops,
    kafka_verify_producers_started,
)

SETTINGS = {
    "python": "/venv/bin/python", "package": "kafkaops_verify", "servers": "b1:9092,b2:9092",
    "connection_file": "/jobs/connection.json", "duration": 0, "keys": 16, "payload_bytes": 64, "linger_ms": 5,
    "steady": {"topic": "orders", "rate": 50, "manifest": "/data/steady.json"},
    "transactional": {"topic": "orders-txn", "rate": 20, "manifest": "/data/txn.json", "records": 10,
                      "abort_every": 4},
}


def option(argv, name):
    return argv[argv.index(name) + 1]


def test_both_producers_run_the_same_job_with_their_own_topic_rate_and_manifest():
    steady, transactional = kafka_verify_producer_starts(SETTINGS)
    assert (steady["name"], steady["log"], transactional["name"], transactional["log"]) == (
        "steady", "steady_produce.log", "transactional", "transactional_produce.log")
    job = ["/venv/bin/python", "-m", "kafkaops_verify.steady_produce"]
    assert steady["argv"][:3] == transactional["argv"][:3] == job
    assert [option(steady["argv"], name) for name in ("--topic", "--rate", "--manifest", "--keys")] == [
        "orders", "50", "/data/steady.json", "16"]
    assert "--transaction-records" not in steady["argv"]
    assert [option(transactional["argv"], name) for name in (
        "--topic", "--rate", "--manifest", "--transaction-records", "--abort-every", "--client-option")] == [
        "orders-txn", "20", "/data/txn.json", "10", "4", "linger_ms=5"]
    assert (transactional["topic"], transactional["manifest"]) == ("orders-txn", "/data/txn.json")
    # The password reaches the jobs in this file only, never on their command lines.
    assert option(steady["argv"], "--connection-file") == option(transactional["argv"], "--connection-file") == (
        "/jobs/connection.json")


def test_a_producer_without_settings_is_left_out():
    assert [start["name"] for start in kafka_verify_producer_starts(dict(SETTINGS, transactional={}))] == ["steady"]


def test_a_missing_shared_setting_is_named():
    settings = dict(SETTINGS)
    del settings["servers"]
    with pytest.raises(AnsibleFilterError, match="lack servers"):
        kafka_verify_producer_starts(settings)


def started(*names):
    starts = {start["name"]: start for start in kafka_verify_producer_starts(SETTINGS)}
    return [{"item": starts[name], "stdout": str(4242 + number)} for number, name in enumerate(names)]


def test_the_fact_names_each_started_producer_and_the_stop_list_follows_it():
    fact = kafka_verify_producers_started(started("steady", "transactional"), "/tmp/jobs", "localhost")
    assert fact == {"pid": 4242, "manifest": "/data/steady.json", "jobs_dir": "/tmp/jobs", "host": "localhost",
                    "transactional": {"pid": 4243, "manifest": "/data/txn.json"}}
    assert [(stop["name"], stop["pid"], stop["log"]) for stop in kafka_verify_producer_stops(fact)] == [
        ("steady", 4242, "steady_produce.log"), ("transactional", 4243, "transactional_produce.log")]


def test_a_fact_without_a_transactional_producer_stops_the_steady_one_only():
    fact = kafka_verify_producers_started(started("steady"), "/tmp/jobs", "localhost")
    assert fact["transactional"] is None
    # A fact written before the transactional producer existed has no such key at all.
    older = {key: value for key, value in fact.items() if key != "transactional"}
    assert [stop["name"] for stop in kafka_verify_producer_stops(older)] == ["steady"]


def test_a_start_that_printed_no_pid_is_named():
    results = started("steady")
    results[0]["stdout"] = ""
    with pytest.raises(AnsibleFilterError, match="the steady producer's start printed no PID"):
        kafka_verify_producers_started(results, "/tmp/jobs", "localhost")


def test_the_figures_leave_out_the_ranges():
    manifests = {
        "steady": {"acknowledged": 3, "partitions": [{"partition": 0}], "run_id": "s"},
        "transactional": {"acknowledged": 2, "aborted": 1, "aborted_keys": {"a": [[2, 3]]}, "partitions": []},
    }
    results = [{"item": {"name": name}, "content": base64.b64encode(json.dumps(manifest).encode()).decode()}
               for name, manifest in manifests.items()]
    assert kafka_verify_manifest_totals(results) == {
        "steady": {"acknowledged": 3, "run_id": "s"}, "transactional": {"acknowledged": 2, "aborted": 1}}


@pytest.mark.parametrize("connection, expected", [
    # broker_addresses.yml's fallback: the rest as the admin modules default it.
    ({"security_protocol": "PLAINTEXT"},
     {"security_protocol": "PLAINTEXT", "sasl_mechanism": "PLAIN", "sasl_username": "", "sasl_password": "",
      "ssl_cafile": "", "ssl_certfile": "", "ssl_keyfile": ""}),
    ({"security_protocol": "SASL_SSL", "sasl_mechanism": "SCRAM-SHA-512", "sasl_username": "admin",
      "sasl_password": "pw", "ssl_cafile": "/tls/ca.crt", "ssl_check_hostname": False},
     {"security_protocol": "SASL_SSL", "sasl_mechanism": "SCRAM-SHA-512", "sasl_username": "admin",
      "sasl_password": "pw", "ssl_cafile": "/tls/ca.crt", "ssl_certfile": "", "ssl_keyfile": ""}),
])
def test_the_admin_connection_as_the_jobs_take_it(connection, expected):
    assert kafka_verify_connection(connection) == expected


def test_a_connection_that_is_no_mapping_is_refused():
    with pytest.raises(AnsibleFilterError, match="kafka_verify_connection: expected the admin modules' connection"):
        kafka_verify_connection("SASL_SSL")


PROGRAM = ["/venv/bin/python", "-m", "kafkaops_verify.verify"]


@pytest.mark.parametrize("options, spark_settings, manifests, tail", [
    ({"--bootstrap-servers": "b1:9092", "--topics": ["orders", "payments"], "--examples": 5},
     {"spark.sql.shuffle.partitions": 8, "spark.ui.enabled": False}, ["/m/1.json", "/m/2.json"],
     ["--bootstrap-servers", "b1:9092", "--topics", "orders,payments", "--examples", "5",
      "--spark-setting=spark.sql.shuffle.partitions=8", "--spark-setting=spark.ui.enabled=False",
      "--manifest=/m/1.json", "--manifest=/m/2.json"]),
    ({"--records": 1000, "--seed": "0042", "--rate": 0.5}, None, None,
     ["--records", "1000", "--seed", "0042", "--rate", "0.5"]),
    ({}, {}, [], []),
])
def test_a_jobs_command_line_keeps_its_options_order_as_text(options, spark_settings, manifests, tail):
    assert kafka_verify_job_argv(options, PROGRAM, spark_settings, manifests) == PROGRAM + tail


@pytest.mark.parametrize("options, program, message", [
    ([["--topics", "x"]], PROGRAM, "options must be a mapping"),
    ({}, "/venv/bin/python -m kafkaops_verify.verify", "program must be a list"),
])
def test_a_jobs_command_line_wants_options_and_program(options, program, message):
    with pytest.raises(AnsibleFilterError, match=message):
        kafka_verify_job_argv(options, program)
