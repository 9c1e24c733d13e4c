"""A seeded random schedule of faults (issue 36): every EVERY seconds for MINUTES minutes, one nemesis on one
node, held HOLD seconds, proved while in place, then healed. The seed is printed, so a run that found something
can be run again exactly; run it longer than the test suite does, with producers writing and the verify job
after (bench/faults does all three on the local containers).

    schedule.py --nodes kafkaops-1,kafkaops-2,kafkaops-3 --units kafkaops-1=kafka-broker-1+zookeeper,... \
        [--seed N] [--every 30] [--minutes 5] [--hold 12] [--faults partition,one-way,pause,slow-link] \
        [--disks kafkaops-1=/var/lib/kafka/faults-disk:kafka-broker-1,...] [--each] [--report FILE]

A partition cuts the node off from every other node named (both ways; one-way: only what it sends); a pause
stops one of its units, drawn from --units; a slow link rate-limits what it sends and drops a share of packets
each way; a node stop stops the whole container (docker stop) and starts it again; a full disk fills the small
filesystem a broker keeps one of its log dirs on (--disks: prepared with nemesis.py before the broker first
started), then heals as an operator does: the filler deleted and the broker restarted, since Kafka keeps a log dir
that hit a full disk offline until then. --each draws every fault once in each round of as many faults, in an
order the seed shuffles, so that a short run still tries them all. Prints one line per fault as it heals, then the
table; --report writes every proof as JSON. Standard library only, like nemesis.py.
"""

import argparse
import json
import random
import sys
import time

try:
    from .nemesis import UNIT_NAME, FullDisk, NemesisError, NodeStop, Partition, Pause, SlowLink, _checked
except ImportError:  # run as a script, beside nemesis.py
    from nemesis import UNIT_NAME, FullDisk, NemesisError, NodeStop, Partition, Pause, SlowLink, _checked

FAULTS = ("partition", "one-way", "pause", "slow-link", "node-stop", "full-disk")


class FullLogDir(FullDisk):
    """A full disk under one of a broker's log dirs, healed as an operator heals it: the filler deleted, then the
    broker restarted (Kafka takes a log dir that hit a full disk offline, and brings it back only at a start)."""

    def __init__(self, node, path, unit, runner=None):
        # The filesystem was mounted before the broker first started (nemesis.py prepare full-disk): its size
        # is not needed to fill it.
        super().__init__(node, path, 1, 0, runner)
        self.unit = _checked(unit, UNIT_NAME, "unit")

    def heal(self):
        super().heal()
        self.run(["systemctl", "restart", self.unit])


class ScheduleError(ValueError):
    """An option the schedule cannot run with; option names it."""

    def __init__(self, option, reason):
        super().__init__("%s: %s" % (option, reason))
        self.option = option


def plan(seed, every, minutes, hold, nodes, faults, units, disks=None, each=False):
    """[{at, fault, node, unit}] of the run: the same seed gives the same schedule. Pure.

    at: seconds from the start; a fault is held `hold` seconds and healed before the next one starts, so no two
    faults are ever in place at once. units: {node: [units]} for pauses (a node without units is never paused).
    disks: {node: (path, broker unit)} for full disks (a node without one never gets a full disk). each: every
    fault once per round, in an order the seed shuffles.
    """
    disks = disks or {}
    if every <= 0 or minutes <= 0:
        raise ScheduleError("--every/--minutes", "must be above 0, got %s and %s" % (every, minutes))
    if not 0 < hold < every:
        raise ScheduleError("--hold", "must be above 0 and below --every (%s), so that each fault is healed before "
                                      "the next starts; got %s" % (every, hold))
    if not nodes:
        raise ScheduleError("--nodes", "name at least one container")
    unknown = sorted(set(faults) - set(FAULTS))
    if unknown or not faults:
        raise ScheduleError("--faults", "choose among %s, got %s" % (", ".join(FAULTS), ", ".join(unknown) or "none"))
    if ("partition" in faults or "one-way" in faults) and len(nodes) < 2:
        raise ScheduleError("--nodes", "a partition needs a second node to cut the first off from")
    pausable = [node for node in nodes if units.get(node)]
    if "pause" in faults and not pausable:
        raise ScheduleError("--units", "a pause needs a unit for at least one node (node=unit+unit,...)")
    fillable = [node for node in sorted(nodes) if node in disks]
    if "full-disk" in faults and not fillable:
        raise ScheduleError("--disks", "a full disk needs a prepared log dir for at least one node "
                                       "(node=path:broker-unit,...)")
    draw = random.Random(seed)
    events = []
    kinds = sorted(set(faults))
    for index in range(int(minutes * 60 // every)):
        if each:
            if index % len(kinds) == 0:
                round_order = list(kinds)
                draw.shuffle(round_order)
            fault = round_order[index % len(kinds)]
        else:
            fault = draw.choice(sorted(faults))
        node = draw.choice(pausable if fault == "pause" else fillable if fault == "full-disk" else sorted(nodes))
        unit = draw.choice(units[node]) if fault == "pause" else disks[node][1] if fault == "full-disk" else None
        event = {"at": index * every, "fault": fault, "node": node, "unit": unit}
        if fault == "full-disk":
            event["path"] = disks[node][0]
        events.append(event)
    return events


def nemesis_of(event, nodes):
    """The nemesis an event applies."""
    node, fault = event["node"], event["fault"]
    if fault in ("partition", "one-way"):
        return Partition(node, [peer for peer in nodes if peer != node], one_way=fault == "one-way")
    if fault == "pause":
        return Pause(node, event["unit"])
    if fault == "slow-link":
        return SlowLink(node)
    if fault == "full-disk":
        return FullLogDir(node, event["path"], event["unit"])
    return NodeStop(node)


def shown(fault, proof):
    """What a fault's proof says happened, in a few words, for the table."""
    if fault in ("partition", "one-way"):
        return "%d packets dropped" % proof.get("dropped_packets", 0)
    if fault == "pause":
        return "state %s" % proof.get("state")
    if fault == "slow-link":
        qdisc = proof.get("root_qdisc") or {}
        return "%s overlimits, %s dropped by the rate limit" % (qdisc.get("overlimits"), qdisc.get("dropped"))
    if fault == "full-disk":
        return "%s bytes free of %s" % (proof.get("available_bytes"), proof.get("size_bytes"))
    return "container %s" % proof.get("status")


def run(events, nodes, hold, out=sys.stdout, clock=time.monotonic, sleep=time.sleep, build=nemesis_of):
    """Apply, prove, hold and heal each event at its time; returns the events with what was seen. A fault that
    cannot be applied or proved is recorded with its error and healed; the schedule goes on."""
    started = clock()
    done = []
    for event in events:
        sleep(max(0.0, started + event["at"] - clock()))
        nemesis = build(event, nodes)
        seen = dict(event, error=None, in_place=False, healed=False)
        try:
            nemesis.apply()
            sleep(hold)
            proof = nemesis.proof()
            seen.update(in_place=bool(proof.get("in_place")), shown=shown(event["fault"], proof), proof=proof)
        except NemesisError as error:
            seen["error"] = str(error)
        finally:
            try:
                nemesis.heal()
                seen["healed"] = not nemesis.proof().get("in_place")
            except NemesisError as error:
                seen["error"] = seen["error"] or "heal: %s" % error
        done.append(seen)
        out.write("%6.0f s  %-9s %-16s %s%s\n" % (event["at"], event["fault"], event["node"],
                                                  seen.get("shown") or seen["error"],
                                                  "" if seen["healed"] else "  (NOT HEALED)"))
        out.flush()
    return done


def table(done, seed):
    """The markdown table of a run's faults."""
    lines = ["Faults (seed %s): %d applied, %d shown in place, %d healed" % (
        seed, len(done), sum(1 for item in done if item["in_place"]), sum(1 for item in done if item["healed"])),
        "", "| at s | fault | node | unit | in place | shown | healed |", "|---|---|---|---|---|---|---|"]
    for item in done:
        lines.append("| %d | %s | %s | %s | %s | %s | %s |" % (
            item["at"], item["fault"], item["node"], item["unit"] or "", "yes" if item["in_place"] else "NO",
            item.get("shown") or item["error"], "yes" if item["healed"] else "NO"))
    return "\n".join(lines)


def _node_entries(text, option, form):
    """(node, what follows its '=', the entry) of each entry of 'node=...,node=...'; raises naming option."""
    for entry in (text or "").split(","):
        if not entry.strip():
            continue
        node, equals, rest = entry.partition("=")
        if not equals or not rest.strip():
            raise ScheduleError(option, "expected %s, got %r" % (form, entry))
        yield node.strip(), rest.strip(), entry


def parse_units(text):
    """{node: [units]} of 'node=unit+unit,node=unit'."""
    return dict((node, [name for name in rest.split("+") if name])
                for node, rest, _entry in _node_entries(text, "--units", "node=unit+unit"))


def parse_disks(text):
    """{node: (path, unit)} of 'node=path:unit,node=path:unit'."""
    disks = {}
    for node, rest, entry in _node_entries(text, "--disks", "node=/path:broker-unit"):
        path, colon, unit = rest.partition(":")
        if not colon or not path.startswith("/") or not unit:
            raise ScheduleError("--disks", "expected node=/path:broker-unit, got %r" % entry)
        disks[node] = (path, unit)
    return disks


def main(argv=None, out=sys.stdout):
    options = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    options.add_argument("--nodes", required=True, help="the containers, comma-separated")
    options.add_argument("--units", default="", help="pause: node=unit+unit,... (the units a pause may stop)")
    options.add_argument("--seed", type=int, default=None, help="the schedule's seed (default: drawn and printed)")
    options.add_argument("--every", type=float, default=30.0, help="seconds between faults (30)")
    options.add_argument("--minutes", type=float, default=5.0, help="how long the schedule runs (5)")
    options.add_argument("--hold", type=float, default=12.0, help="seconds each fault stays (12)")
    options.add_argument("--faults", default="partition,one-way,pause,slow-link", help="the faults to draw from")
    options.add_argument("--disks", default="", help="full-disk: node=path:broker-unit,... (prepared log dirs)")
    options.add_argument("--each", action="store_true", help="every fault once in each round, in a seeded order")
    options.add_argument("--report", help="write every fault and its proof to this JSON file")
    arguments = options.parse_args(argv)
    seed = arguments.seed if arguments.seed is not None else random.SystemRandom().randrange(1, 10 ** 9)
    nodes = [node for node in arguments.nodes.split(",") if node]
    try:
        events = plan(seed, arguments.every, arguments.minutes, arguments.hold, nodes,
                      [fault for fault in arguments.faults.split(",") if fault], parse_units(arguments.units),
                      parse_disks(arguments.disks), arguments.each)
    except ScheduleError as error:
        print("schedule.py: %s" % error, file=sys.stderr)
        return 2
    out.write("schedule.py: seed %d, %d faults, one every %g s, each held %g s\n"
              % (seed, len(events), arguments.every, arguments.hold))
    done = run(events, nodes, arguments.hold, out)
    out.write(table(done, seed) + "\n")
    if arguments.report:
        with open(arguments.report, "w") as report:
            json.dump({"seed": seed, "every": arguments.every, "hold": arguments.hold, "faults": done}, report,
                      indent=1, sort_keys=True)
    return 0 if all(item["in_place"] and item["healed"] for item in done) else 1


if __name__ == "__main__":
    sys.exit(main())
