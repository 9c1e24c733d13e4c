"""Kafka's own `kafka-reassign-partitions --generate` proposal, computed offline for bench/plan.

The tool hands every topic it is given to AdminUtils.assignReplicasToBrokers (Kafka 3.9: in the jar
kafka-server-common) with the brokers of --broker-list and their racks, and proposes the result for all of
the topic's partitions, whatever their current replicas. bench/GenerateAssignment.java makes the same call on
a generated cluster; this module finds a Kafka 3.9 archive in the cache folder (KAFKAOPS_CACHE, as
bench/reassign does), takes its libs/ out into the repository's .cache, compiles the program there with the
JDK's javac and runs it.
"""

import glob
import os
import re
import resource
import subprocess
import tarfile
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
REPOSITORY = os.path.dirname(BENCH)
SOURCE = os.path.join(BENCH, "GenerateAssignment.java")
WORK = os.path.join(REPOSITORY, ".cache", "kafka-generate")
CACHE = os.environ.get("KAFKAOPS_CACHE", os.path.expanduser("~/.cache/kafkaops"))


def archive():
    """The newest kafka_2.13-3.9.*.tgz in the cache folder."""
    found = glob.glob(os.path.join(CACHE, "kafka_2.13-3.9.*.tgz"))
    if not found:
        raise SystemExit("no kafka_2.13-3.9.*.tgz in %s (set KAFKAOPS_CACHE)" % CACHE)
    return max(found, key=lambda path: [int(part) for part in re.findall(r"\d+", os.path.basename(path))])


def prepare():
    """The class path (libs and the compiled program); extracts and compiles only what is missing or stale."""
    path = archive()
    name = os.path.basename(path)[:-len(".tgz")]
    libs = os.path.join(WORK, name, "libs")
    if not os.path.isdir(libs):
        os.makedirs(WORK, exist_ok=True)
        with tarfile.open(path) as opened:
            members = [member for member in opened.getmembers() if member.name.startswith(name + "/libs/")]
            opened.extractall(WORK, members=members, filter="data")
    classes = os.path.join(WORK, name, "classes")
    compiled = os.path.join(classes, "GenerateAssignment.class")
    class_path = os.pathsep.join([os.path.join(libs, "*"), classes])
    if not os.path.exists(compiled) or os.path.getmtime(compiled) < os.path.getmtime(SOURCE):
        os.makedirs(classes, exist_ok=True)
        subprocess.run(["javac", "-d", classes, "-cp", os.path.join(libs, "*"), SOURCE], check=True)
    return class_path, name


def generate(class_path, assignment, brokers, targets):
    """Kafka's proposal for every topic of assignment ({topic: {partition: replicas}}) onto targets.

    brokers is a list of ids or {id: rack}; racks are passed for the targets when every one has a rack (the
    tool refuses a mix unless told --disable-rack-aware). Returns ({(topic, partition): replicas}, CPU seconds
    of the JVM (start-up included), wall seconds, milliseconds inside assignReplicasToBrokers).
    """
    racks = brokers if isinstance(brokers, dict) else {}
    lines = []
    for broker in sorted(targets):
        rack = racks.get(broker)
        lines.append("broker %d %s" % (broker, rack) if rack else "broker %d" % broker)
    for topic, partitions in sorted(assignment.items()):
        replication = len(next(iter(partitions.values())))
        lines.append("topic %s %d %d" % (topic, len(partitions), replication))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    completed = subprocess.run(["java", "-Xmx1g", "-cp", class_path, "GenerateAssignment"],
                               input="\n".join(lines) + "\n", capture_output=True, text=True, check=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    proposal, milliseconds = {}, None
    for line in completed.stdout.splitlines():
        if line.startswith("# assignment ms "):
            milliseconds = int(line.rsplit(" ", 1)[1])
            continue
        topic, partition, replicas = line.split(" ")
        proposal[(topic, int(partition))] = [int(broker) for broker in replicas.split(",")]
    return proposal, cpu, wall, milliseconds
