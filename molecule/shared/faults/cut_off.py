"""Faults beyond a kill on one broker or controller, each shown to have happened (issue 36), for the scenarios'
side effects (resilience in ZooKeeper mode, kraft in KRaft mode); nemesis.py does the faults themselves.

    cut_off.py cut   SERVERS BROKER NODE PEERS TOPIC   cut NODE off from PEERS (both ways), wait until the
                                                       other brokers have taken BROKER out of every ISR and
                                                       moved its leaders, then write probes and watch TOPIC
    cut_off.py heal  SERVERS BROKER NODE PEERS         heal the cut, wait until BROKER is back in every ISR
    cut_off.py pause SERVERS BROKER NODE UNIT SECONDS  SIGSTOP the broker's process for SECONDS (longer than
                                                       its ZooKeeper session, or its KRaft broker session),
                                                       SIGCONT, wait until it is back
    cut_off.py pause-leader SERVERS CONTROLLER NODE UNIT SECONDS TOPIC VOTERS STATE
                                                       SIGSTOP the KRaft quorum's leader (node id CONTROLLER)
                                                       for SECONDS, wait until the other voters' nodes (VOTERS)
                                                       all name another leader in their quorum-state file
                                                       (STATE) and write probes to TOPIC meanwhile; SIGCONT,
                                                       wait until it is a voter caught up with the leader

SERVERS are the other brokers' addresses (comma-separated): the cluster is read through them, as a client
that never reaches the faulty node would. PEERS are the containers to cut NODE off from. Prints one JSON
object of figures; a failure is reported in them ("error": the step and the exception), which resilience.yml
asserts on, and a fault is healed before the script ends whatever happened, except after `cut`, which the
play heals in its `always` section once it has tried a rolling restart under the cut.
"""

import json
import os
import sys
import time

from kafka import KafkaAdminClient

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nemesis import DockerExec, HostCommands, Partition, Pause, check_node, command_failed  # noqa: E402
from writes_while_down import measure  # noqa: E402

# ZooKeeper expires a silent broker's session after 18 s (Kafka 3.9's default), and followers that stop
# fetching leave the ISR after replica.lag.time.max.ms (30 s): well within this.
WAIT_SECONDS = 180


def read(servers):
    """(registered broker ids, {partition label: (leader, isr)}) as the brokers in `servers` see it."""
    admin = KafkaAdminClient(bootstrap_servers=servers, request_timeout_ms=20000)
    try:
        brokers = sorted(int(broker["broker_id"]) for broker in admin.describe_cluster()["brokers"])
        partitions = {}
        for topic in admin.describe_topics():
            for partition in topic["partitions"]:
                partitions["%s-%d" % (topic["name"], partition["partition_index"])] = (
                    partition["leader_id"], sorted(partition["isr_nodes"]), sorted(partition["replica_nodes"]))
        return brokers, partitions
    finally:
        admin.close()


def poll(reading, condition, what, interval=1.0):
    """(seconds until condition(*reading()) holds, that reading); raises naming `what` and the last reading. A read
    that fails is
    asked again: a broker restarting or cut off refuses one now and then, and the quorum has no leader while it
    elects one."""
    started, last = time.monotonic(), None
    while time.monotonic() - started < WAIT_SECONDS:
        try:
            last = reading()
            if condition(*last):
                return round(time.monotonic() - started, 1), last
        except Exception as error:  # noqa: BLE001 - asked again until WAIT_SECONDS
            last = repr(error)
        time.sleep(interval)
    raise RuntimeError("%s did not happen in %d s; last reading: %s" % (what, WAIT_SECONDS, str(last)[:500]))


def wait_for(servers, condition, what):
    """Seconds until condition(brokers, partitions) holds (read())."""
    return poll(lambda: read(servers), condition, what)[0]


def out_of_the_cluster(broker):
    """The broker is in no ISR and leads nothing."""
    return lambda brokers, partitions: all(
        leader != broker and broker not in isr for leader, isr, _replicas in partitions.values())


def back_in_every_isr(broker):
    """The broker is registered and in the ISR of every partition it holds a replica of."""
    return lambda brokers, partitions: broker in brokers and all(
        broker in isr for _leader, isr, replicas in partitions.values() if broker in replicas)


def cut(figures, servers, broker, node, peers, topic):
    figures["step"] = "reading the cluster before the cut"
    unused, before = read(servers)
    figures["led_before"] = sum(1 for leader, _isr, _replicas in before.values() if leader == broker)
    figures["replicas_before"] = sum(1 for _leader, _isr, replicas in before.values() if broker in replicas)
    partition = Partition(node, peers)
    figures["step"] = "cutting %s off from %s" % (node, ", ".join(peers))
    partition.apply()
    figures["step"] = "waiting until broker %d is out of every ISR and leads nothing" % broker
    figures["seconds_until_out"] = wait_for(servers, out_of_the_cluster(broker), figures["step"])
    figures["step"] = "writing probes and watching %s while broker %d is cut off" % (topic, broker)
    figures["writes"] = measure(servers, topic)
    figures["proof"] = partition.proof()


def heal(figures, servers, broker, node, peers):
    partition = Partition(node, peers)
    figures["step"] = "healing the cut of %s" % node
    partition.heal()
    figures["healed"] = not partition.proof()["in_place"]
    figures["step"] = "waiting until broker %d is back in every ISR" % broker
    figures["seconds_until_back"] = wait_for(servers, back_in_every_isr(broker), figures["step"])


def paused(figures, node, unit, seconds, during):
    """SIGSTOP the unit's process on node, run during() (the waits and probes of the fault), hold the pause for
    `seconds` in all, then SIGCONT it, whatever happened; the proof is read while it is paused."""
    frozen = Pause(node, unit)
    figures["step"] = "pausing %s on %s" % (unit, node)
    started = time.monotonic()
    frozen.apply()
    try:
        figures["proof"] = frozen.proof()
        during()
        time.sleep(max(0.0, seconds - (time.monotonic() - started)))
    finally:
        frozen.heal()
        figures["seconds_paused"] = round(time.monotonic() - started, 1)
    figures["running_again"] = frozen.proof()["state"] not in ("T", "t")


def pause(figures, servers, broker, node, unit, seconds):
    def dropped():
        figures["step"] = ("waiting until the cluster drops broker %d (its ZooKeeper session expires, or the KRaft "
                           "controllers fence it)" % broker)
        figures["seconds_until_unregistered"] = wait_for(
            servers, lambda brokers, partitions: broker not in brokers, figures["step"])

    paused(figures, node, unit, seconds, dropped)
    figures["step"] = "waiting until broker %d is back in every ISR" % broker
    figures["seconds_until_back"] = wait_for(servers, back_in_every_isr(broker), figures["step"])


def quorum(servers):
    """(leader id, leader epoch, {voter id: log end offset}) of the KRaft metadata quorum, asked through the
    brokers (they forward DescribeQuorum to the active controller)."""
    admin = KafkaAdminClient(bootstrap_servers=servers, request_timeout_ms=5000)
    try:
        answer = admin.describe_metadata_quorum()
    finally:
        admin.close()
    partition = answer["topics"][0]["partitions"][0]
    voters = dict((voter["replica_id"], voter["log_end_offset"]) for voter in partition["current_voters"])
    return partition["leader_id"], partition["leader_epoch"], voters


def wait_for_quorum(servers, condition, what):
    """(seconds until condition(leader, epoch, voters) holds, that reading of quorum())."""
    return poll(lambda: quorum(servers), condition, what, 0.5)


def parse_quorum_state(text):
    """(leader id, leader epoch) of a KRaft voter's quorum-state file (JSON that the voter rewrites at each
    election; leaderId -1 while it knows no leader)."""
    state = json.loads(text)
    return int(state["leaderId"]), int(state["leaderEpoch"])


def voters_view(nodes, path):
    """{node: (leader id, leader epoch)} as each voter's own quorum-state file says, read on its node."""
    host = HostCommands()
    view = {}
    for node in nodes:
        returncode, stdout, stderr = DockerExec(check_node(node, host)).run(["cat", path])
        if returncode != 0:
            raise command_failed(node, ["cat", path], returncode, stderr, "reading the quorum state")
        view[node] = parse_quorum_state(stdout)
    return view


def elected_without(controller, epoch):
    """The voters' views agree on one leader other than controller, in an epoch after `epoch`."""
    def condition(view):
        leaders = set(view.values())
        return len(leaders) == 1 and all(leader not in (-1, controller) and now > epoch for leader, now in leaders)
    return condition


def pause_leader(figures, servers, controller, node, unit, seconds, topic, voters, state_path):
    figures["step"] = "reading the quorum before the pause"
    leader, epoch, unused = quorum(servers)
    figures["quorum_before"] = {"leader": leader, "epoch": epoch}
    if leader != controller:
        raise RuntimeError("controller %d is not the quorum's leader (%d is)" % (controller, leader))

    # The other voters' own files, not a broker: a broker forwards DescribeQuorum to the controller it knows as
    # active and, while that one is paused, keeps its request waiting there for its controller socket timeout (30 s).
    def replaced():
        figures["step"] = "waiting until the voters %s have elected a leader other than %d" % (
            ", ".join(voters), controller)
        figures["seconds_until_new_leader"], (view,) = poll(
            lambda: (voters_view(voters, state_path),), elected_without(controller, epoch), figures["step"], 0.5)
        (new_leader, new_epoch), = set(view.values())
        figures["quorum_during"] = {"leader": new_leader, "epoch": new_epoch, "seen_by": sorted(view)}
        figures["step"] = "writing probes to %s while controller %d is paused" % (topic, controller)
        figures["writes"] = measure(servers, topic)

    paused(figures, node, unit, seconds, replaced)
    during_epoch = figures["quorum_during"]["epoch"]
    figures["step"] = "waiting until controller %d is a voter caught up with the leader" % controller
    # An answer of the epoch before the pause is the paused leader's own, given before it learns it was replaced.
    figures["seconds_until_caught_up"], unused = wait_for_quorum(
        servers, lambda now, now_epoch, now_voters: now_epoch >= during_epoch and controller in now_voters
        and now in now_voters and now_voters[controller] >= 0 and now_voters[now] - now_voters[controller] <= 50,
        figures["step"])


def main(action, servers, broker, node, *rest):
    figures = {"action": action, "broker": int(broker), "node": node, "error": None}
    servers = servers.split(",")
    try:
        if action == "cut":
            cut(figures, servers, int(broker), node, rest[0].split(","), rest[1])
        elif action == "heal":
            heal(figures, servers, int(broker), node, rest[0].split(","))
        elif action == "pause":
            pause(figures, servers, int(broker), node, rest[0], float(rest[1]))
        elif action == "pause-leader":
            pause_leader(figures, servers, int(broker), node, rest[0], float(rest[1]), rest[2], rest[3].split(","),
                         rest[4])
        else:
            raise ValueError("unknown action %r" % action)
    except Exception as error:  # noqa: BLE001 - reported, and failed by the playbook's assert
        figures["error"] = "%s: %r" % (figures.get("step"), error)
    figures.pop("step", None)
    print(json.dumps(figures))


if __name__ == "__main__":
    main(*sys.argv[1:])
