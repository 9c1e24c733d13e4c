"""The pure parts of the config_files action: which file entries it takes and what it hands the module."""

import pytest
from ansible_collections.kafkaops.cluster.plugins.action.config_files import (
    FileEntryError,
    check_file_entries,
    has_sensitive_entry,
    module_file_entries,
)

SERVER = {"dest": "/etc/kafka/broker-1/server.properties", "template": "server.properties.j2",
          "template_vars": {"instance": {"broker_id": 1}}, "owner": "root", "group": "kafka", "mode": "0640"}
MYID = {"dest": "/var/lib/zookeeper/myid", "content": "1\n"}


def test_entries_with_content_or_template_are_taken_and_sensitive_defaults_to_false():
    assert check_file_entries([SERVER, MYID]) == [dict(SERVER, sensitive=False), dict(MYID, sensitive=False)]


def test_sensitive_is_read_as_a_boolean():
    assert check_file_entries([dict(MYID, sensitive="yes")])[0]["sensitive"] is True


def test_no_files_is_an_empty_list():
    assert check_file_entries(None) == []


@pytest.mark.parametrize("files, message", [
    ("server.properties", r"^files: expected a list of dicts"),
    (["server.properties"], r"^files\[0\]: expected a dict"),
    ([MYID, {"dest": "/etc/kafka/x"}], r"^files\[1\]: give exactly one of content and template \(dest /etc/kafka/x\)"),
    ([dict(SERVER, content="a=1\n")], r"^files\[0\]: give exactly one of content and template"),
    ([dict(MYID, template_vars={"a": 1})], r"^files\[0\]\.template_vars: only used with template"),
    ([dict(SERVER, template_vars=["instance"])], r"^files\[0\]\.template_vars: expected a dict"),
    ([dict(SERVER, template=["a.j2"])], r"^files\[0\]\.template: expected the name of a template"),
    ([dict(MYID, sensitive="maybe")], r"^files\[0\]\.sensitive: expected a boolean"),
    ([dict(MYID, src="myid")], r"^files\[0\]: unknown keys src \(known: dest, content, template"),
], ids=["not-a-list", "not-a-dict", "neither", "both", "vars-without-template", "vars-not-a-dict",
        "template-not-a-name", "sensitive-not-a-bool", "unknown-key"])
def test_bad_entries_are_refused_naming_the_field(files, message):
    with pytest.raises(FileEntryError, match=message):
        check_file_entries(files)


def test_the_module_gets_rendered_content_and_no_template_keys():
    rendered = []

    def render(index, entry):
        rendered.append((index, entry["template"], entry["template_vars"]))
        return "broker.id=%d\n" % entry["template_vars"]["instance"]["broker_id"]

    entries = check_file_entries([MYID, SERVER])
    assert module_file_entries(entries, render) == [
        dict(MYID, sensitive=False),
        {"dest": SERVER["dest"], "content": "broker.id=1\n", "owner": "root", "group": "kafka", "mode": "0640",
         "sensitive": False}]
    assert rendered == [(1, "server.properties.j2", {"instance": {"broker_id": 1}})]


def test_entries_with_content_are_not_rendered():
    def render(index, entry):
        raise AssertionError("rendered %s" % entry)

    assert module_file_entries(check_file_entries([MYID]), render) == [dict(MYID, sensitive=False)]


@pytest.mark.parametrize("files, expected", [
    ([], False),
    ([dict(MYID, sensitive=False)], False),
    ([dict(MYID, sensitive=False), dict(MYID, dest="/etc/kafka/jaas.conf", sensitive=True)], True),
])
def test_a_sensitive_entry_keeps_the_arguments_out_of_the_host_log(files, expected):
    assert has_sensitive_entry({"directories": [], "files": files}) is expected
