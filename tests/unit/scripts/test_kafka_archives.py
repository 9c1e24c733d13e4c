"""The archives scripts/build-kafka-archive.sh makes (`make archive`, which `make unit` runs first):
what the roles rely on is in each, for both lines of Kafka and both layouts."""

import os
import re
import tarfile
import zipfile

import pytest

CACHE = os.environ.get("KAFKAOPS_CACHE", os.path.expanduser("~/.cache/kafkaops"))
ZOOKEEPER_MODE, KRAFT = "3.9.2", "4.4.0"
LAYOUTS = {"apache": ("kafka_2.13-%s.tgz", "libs", "config"),
           "confluent": ("confluent-kafka-%s.tgz", "share/java/kafka", "etc/kafka")}


def _contents(version, layout):
    """(jar file names, config file names, the broker jar's class names) of one archive."""
    archive_name, jar_folder, config_folder = LAYOUTS[layout]
    path = os.path.join(CACHE, archive_name % version)
    assert os.path.isfile(path), "%s is missing: run make archive" % path
    with tarfile.open(path) as archive:
        members = archive.getnames()
        top = members[0].split("/")[0]
        jars = sorted(os.path.basename(name) for name in members if name.startswith("%s/%s/" % (top, jar_folder))
                      and name.endswith(".jar"))
        configs = sorted(os.path.basename(name) for name in members
                         if name.startswith("%s/%s/" % (top, config_folder)) and not name.endswith("/"))
        broker_jar = archive.extractfile("%s/%s/kafka_2.13-%s.jar" % (top, jar_folder, version))
        with zipfile.ZipFile(broker_jar) as classes:
            class_names = set(classes.namelist())
    return jars, configs, class_names


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("version", [ZOOKEEPER_MODE, KRAFT])
def test_an_archive_carries_one_clients_jar_naming_its_version(version, layout):
    jars, unused, class_names = _contents(version, layout)
    # kafka_distribution reads the version from this jar's name.
    clients = [name for name in jars if re.match(r"kafka-clients-.*\.jar$", name)]
    assert clients == ["kafka-clients-%s.jar" % version]
    assert "kafka-tools-%s.jar" % version in jars
    # The broker and the storage tool that formats KRaft log folders.
    assert {"kafka/Kafka.class", "kafka/tools/StorageTool.class"} <= class_names


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_the_zookeeper_mode_line_carries_zookeeper_and_log4j_1(layout):
    jars, configs, unused = _contents(ZOOKEEPER_MODE, layout)
    assert any(name.startswith("zookeeper-3.") for name in jars)
    assert any(name.startswith("reload4j-") for name in jars)
    assert any(name.startswith("slf4j-reload4j-") for name in jars)
    assert configs == ["log4j.properties", "server.properties", "zookeeper.properties"]


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_the_kraft_line_logs_through_log4j_2_and_has_no_zookeeper(layout):
    jars, configs, unused = _contents(KRAFT, layout)
    assert not any(name.startswith("zookeeper-") for name in jars)
    assert not any("reload4j" in name for name in jars)
    core = [name for name in jars if name.startswith("log4j-core-")]
    assert len(core) == 1
    # The slf4j binding is the one of the same log4j version, or Kafka's own logging goes nowhere.
    assert "log4j-slf4j-impl-%s" % core[0][len("log4j-core-"):] in jars
    assert configs == ["log4j2.properties", "server.properties"]
