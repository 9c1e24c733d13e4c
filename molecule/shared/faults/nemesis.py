"""Nemeses: faults a scenario applies to one of its containers, heals, and proves were in place.

Each fault is a small class with prepare() (what must be there before the service starts; only
FullDisk needs it), apply(), heal() (safe to call at any time, also when nothing was applied) and
proof() (plain data read from the node; every proof has `in_place`). Commands run through a runner:
DockerExec for commands inside a container, HostCommands for docker itself. Unit tests hand in a fake
runner that records the argv lists and answers with sample outputs.

Run as a script, for side_effect playbooks (prints one JSON object; README.md says more):
    python3 nemesis.py apply partition --node kafkaops-res2 --peers kafkaops-res1,kafkaops-res3

Standard library only: it runs with whatever Python runs the play or the checks.
"""

import argparse
import json
import os
import re
import subprocess
import sys

# The code acts on the project's own containers only: another engineer's containers may run on the
# same machine, and stopping or cutting off one of them by a typo must be impossible. A project container is
# named kafkaops-..., or (the Molecule scenarios' nodes, such as kraft-b2) is on one of the project's Docker
# networks, which are named kafkaops or kafkaops-... (docker inspect tells).
NODE_NAME = re.compile(r"^kafkaops-[A-Za-z0-9][A-Za-z0-9_.-]*$")
CONTAINER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
PROJECT_NETWORK = re.compile(r"^kafkaops(-[A-Za-z0-9_.-]+)?$")
# argv elements that cannot be read as options by the command they are handed to.
UNIT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9@._:-]*$")
INTERFACE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,14}$")
TC_RATE = re.compile(r"^[0-9]+(\.[0-9]+)?([kmgt]i?)?(bit|bps)$", re.IGNORECASE)
TC_SIZE = re.compile(r"^[0-9]+(\.[0-9]+)?([kmg]i?)?(b|bit)?$", re.IGNORECASE)
TC_TIME = re.compile(r"^[0-9]+(\.[0-9]+)?(s|sec|ms|msec|us|usec)?$", re.IGNORECASE)

COMMAND_TIMEOUT = 120


class NemesisError(Exception):
    """A fault could not be applied, healed or read; the message names the node and the command."""


def _hint(returncode, stderr):
    """What usually lies behind a failure seen in the project's containers, so the message says what to do."""
    if returncode in (126, 127) or "executable file not found" in stderr:
        return ("the command is missing in the container: rebuild the image (scripts/build-image.sh), whose "
                "package list (images/systemd-java/Dockerfile) holds iptables and iproute2")
    # Docker's own refusals (its socket, say) mention the daemon; those are not the container's capabilities.
    if ("Permission denied" in stderr or "Operation not permitted" in stderr) and "daemon" not in stderr:
        return ("the container lacks a capability: platforms that use a nemesis need capabilities "
                "[SYS_ADMIN, NET_ADMIN] (molecule/shared/PLATFORM.md)")
    return ""


def command_failed(node, argv, returncode, stderr, what=""):
    message = "%s: %s`%s` failed (exit %s): %s" % (
        node, what + ": " if what else "", " ".join(argv), returncode, stderr.strip() or "no error output")
    hint = _hint(returncode, stderr)
    return NemesisError(message + (" (%s)" % hint if hint else ""))


class DockerExec:
    """Runs argv inside a container, as root, with the C locale so outputs parse the same everywhere."""

    def __init__(self, container, docker="docker"):
        self.container = container
        self.docker = docker

    def run(self, argv):
        return _run_local([self.docker, "exec", "--env", "LC_ALL=C", self.container] + list(argv), self.container)


class HostCommands:
    """Runs argv on the machine that runs the containers (docker stop/start/inspect)."""

    def run(self, argv):
        return _run_local(list(argv), "host")


def _run_local(argv, where):
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=COMMAND_TIMEOUT, check=False)
    except FileNotFoundError as error:
        raise NemesisError("%s: `%s` cannot start: %s" % (where, " ".join(argv), error)) from error
    except subprocess.TimeoutExpired as error:
        raise NemesisError("%s: `%s` did not end within %d s" % (where, " ".join(argv), COMMAND_TIMEOUT)) from error
    return done.returncode, done.stdout, done.stderr


def container_networks(name, runner):
    """The Docker networks a container is on (docker inspect through runner, on the host)."""
    returncode, stdout, stderr = runner.run(["docker", "inspect", "--type", "container", "--format",
                                             "{{json .NetworkSettings.Networks}}", name])
    if returncode != 0:
        raise command_failed("host", ["docker", "inspect", name], returncode, stderr)
    try:
        return sorted(json.loads(stdout) or {})
    except ValueError as error:
        raise NemesisError("host: docker inspect %s printed no networks: %r" % (name, stdout[:200])) from error


def check_node(name, host=None):
    """name, when it is one of the project's containers: named kafkaops-..., or, with host (the runner of
    docker commands), a container on one of the project's networks. Raises NemesisError otherwise."""
    if isinstance(name, str) and NODE_NAME.match(name):
        return name
    seen = ""
    if host is not None and isinstance(name, str) and CONTAINER_NAME.match(name):
        try:
            networks = container_networks(name, host)
        except NemesisError as error:
            networks, seen = [], "; %s" % error
        if any(PROJECT_NETWORK.match(network) for network in networks):
            return name
        seen = seen or "; its networks: %s" % (", ".join(networks) or "none")
    raise NemesisError("%r is not a project container: nemeses act only on containers named kafkaops-... or on a "
                       "project network (kafkaops, kafkaops-...)%s" % (name, seen))


def _checked(value, pattern, what):
    if not isinstance(value, str) or not pattern.match(value):
        raise NemesisError("%s %r is not valid" % (what, value))
    return value


# Parsers of command outputs: pure functions, so the unit tests feed them captured samples.

def parse_getent_addresses(text):
    """IPv4 addresses from `getent ahostsv4 NAME`, first seen first (one line per socket type each)."""
    addresses = []
    for line in text.splitlines():
        fields = line.split()
        if fields and fields[0] not in addresses:
            addresses.append(fields[0])
    return addresses


def parse_iptables_rules(text):
    """`iptables -S`: the chains defined, and each rule as (chain, the rest of its tokens)."""
    chains, rules = [], []
    for line in text.splitlines():
        tokens = line.split()
        if len(tokens) >= 2 and tokens[0] == "-N":
            chains.append(tokens[1])
        elif len(tokens) >= 2 and tokens[0] == "-A":
            rules.append((tokens[1], tokens[2:]))
    return chains, rules


def parse_iptables_listing(text):
    """`iptables -L -v -n -x`: {chain: {"policy", "references", "rules": [{column: value, "match": rest}]}}.

    Columns are taken from each chain's header line, not assumed: iptables 1.8.9 (Debian bookworm) prints
    protocol 0 where other versions print "all", and versions differ in the opt column.
    """
    chains, current, columns = {}, None, []
    for line in text.splitlines():
        heading = re.match(r"^Chain (\S+) \((.*)\)\s*$", line)
        if heading:
            policy = re.match(r"policy (\S+)", heading.group(2))
            references = re.match(r"(\d+) references", heading.group(2))
            current = chains[heading.group(1)] = {
                "policy": policy.group(1) if policy else None,
                "references": int(references.group(1)) if references else None,
                "rules": [],
            }
            columns = []
            continue
        fields = line.split()
        if current is None or not fields:
            continue
        if fields[0] == "pkts":
            columns = fields
            continue
        values = line.split(None, len(columns))
        # One more value than columns when the rule has matches of its own (statistic ...): kept as "match".
        rule = dict(zip(columns, values, strict=False))
        rule["match"] = values[len(columns)].strip() if len(values) > len(columns) else ""
        rule["pkts"], rule["bytes"] = int(rule["pkts"]), int(rule["bytes"])
        current["rules"].append(rule)
    return chains


def parse_proc_stat(text):
    """/proc/PID/stat: pid, command and state letter. The command sits in parentheses and may itself hold
    spaces and parentheses, so the state is the first field after the last ')'."""
    opening, closing = text.index("("), text.rindex(")")
    return {"pid": int(text[:opening]), "command": text[opening + 1:closing], "state": text[closing + 1:].split()[0]}


def parse_df(text):
    """`df -B1 --output=source,fstype,size,used,avail,target PATH`: the filesystem holding PATH."""
    lines = [line for line in text.splitlines() if line.strip()]
    source, fstype, size, used, available, target = lines[1].split(None, 5)
    return {"source": source, "filesystem": fstype, "size_bytes": int(size), "used_bytes": int(used),
            "available_bytes": int(available), "mounted_on": target.strip()}


def parse_tc_qdiscs(text):
    """`tc -s qdisc show dev IF`: one dict per qdisc, with its options and counters."""
    qdiscs = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("qdisc "):
            tokens = stripped.split()
            parent = "root" if "root" in tokens[3:4] else " ".join(tokens[3:5])
            rate = re.search(r"\brate (\S+)", stripped)
            qdiscs.append({"kind": tokens[1], "handle": tokens[2], "parent": parent, "options": stripped,
                           "rate": rate.group(1) if rate else None})
            continue
        sent = re.match(r"Sent (\d+) bytes (\d+) pkt \(dropped (\d+), overlimits (\d+) requeues (\d+)\)", stripped)
        if sent and qdiscs:
            qdiscs[-1].update(zip(("sent_bytes", "sent_packets", "dropped", "overlimits", "requeues"),
                                  map(int, sent.groups()), strict=True))
        backlog = re.match(r"backlog (\S+) (\d+)p", stripped)
        if backlog and qdiscs:
            qdiscs[-1].update(backlog=backlog.group(1), backlog_packets=int(backlog.group(2)))
    return qdiscs


def parse_docker_state(text):
    """`docker inspect --type container NAME`: the container's state."""
    state = json.loads(text)[0]["State"]
    return {"status": state["Status"], "running": state["Running"], "paused": state["Paused"],
            "exit_code": state["ExitCode"], "oom_killed": state["OOMKilled"],
            "started_at": state["StartedAt"], "finished_at": state["FinishedAt"]}


class Nemesis:
    """One fault on one node. Subclasses set `name` (the command line's word for them)."""

    name = ""

    def __init__(self, node, runner=None):
        # With a runner of another kind (the tests' fake node) only the name counts: no docker command is run.
        real = runner is None or isinstance(runner, (DockerExec, HostCommands))
        self.host = HostCommands() if real else None
        self.node = check_node(node, self.host)
        self.runner = runner if runner is not None else DockerExec(node)

    def call(self, argv):
        """(exit code, stdout, stderr) of argv on the node, for commands whose failure the caller reads."""
        return self.runner.run(argv)

    def run(self, argv, what=""):
        """stdout of argv on the node; a failure raises, naming the node, the command and its stderr."""
        returncode, stdout, stderr = self.runner.run(argv)
        if returncode != 0:
            raise command_failed(self.node, argv, returncode, stderr, what)
        return stdout

    def prepare(self):
        """What must be in place before the service starts; nothing for most faults."""

    def apply(self):
        raise NotImplementedError

    def heal(self):
        raise NotImplementedError

    def proof(self):
        raise NotImplementedError


class IptablesChain:
    """A chain of our own in the filter table, jumped to from INPUT and OUTPUT.

    Our rules live only in that chain, so healing removes the two jumps and the chain and never touches a
    rule someone else added. Each nemesis has its own chain: healing a partition keeps a slow link.
    """

    def __init__(self, nemesis, chain, jumps):
        self.nemesis, self.chain = nemesis, chain
        # (built-in chain, the match the jump rule carries), e.g. ("INPUT", ["-i", "eth0"]).
        self.jumps = jumps

    def install(self, rules):
        """Makes the chain hold exactly `rules` (lists of iptables arguments), then hooks it in."""
        chains, existing = parse_iptables_rules(self.nemesis.run(["iptables", "-w", "-S"], "listing the rules"))
        if self.chain not in chains:
            self.nemesis.run(["iptables", "-w", "-N", self.chain])
        self.nemesis.run(["iptables", "-w", "-F", self.chain])
        for rule in rules:
            self.nemesis.run(["iptables", "-w", "-A", self.chain] + rule)
        # Hooked last, so the fault starts with all its rules at once.
        for builtin, match in self.jumps:
            if (builtin, match + ["-j", self.chain]) not in existing:
                self.nemesis.run(["iptables", "-w", "-I", builtin, "1"] + match + ["-j", self.chain])

    def remove(self):
        chains, existing = parse_iptables_rules(self.nemesis.run(["iptables", "-w", "-S"], "listing the rules"))
        if self.chain not in chains:
            return
        for builtin, spec in existing:
            if builtin in ("INPUT", "OUTPUT") and spec[-2:] == ["-j", self.chain]:
                self.nemesis.run(["iptables", "-w", "-D", builtin] + spec)
        self.nemesis.run(["iptables", "-w", "-F", self.chain])
        self.nemesis.run(["iptables", "-w", "-X", self.chain])

    def proof(self):
        """The chain's rules with their counters, and which built-in chains jump to it."""
        listing = parse_iptables_listing(self.nemesis.run(["iptables", "-w", "-L", "-v", "-n", "-x"],
                                                          "listing the rules"))
        ours = listing.get(self.chain, {"rules": []})
        hooked = [builtin for builtin in ("INPUT", "OUTPUT")
                  if any(rule.get("target") == self.chain for rule in listing.get(builtin, {"rules": []})["rules"])]
        rules = [{"target": rule.get("target"), "source": rule.get("source"), "destination": rule.get("destination"),
                  "match": rule["match"], "packets": rule["pkts"], "bytes": rule["bytes"]} for rule in ours["rules"]]
        return {"chain": self.chain, "exists": self.chain in listing, "hooked_from": hooked, "rules": rules,
                "dropped_packets": sum(rule["packets"] for rule in rules if rule["target"] == "DROP")}


class Partition(Nemesis):
    """Cuts the node off from its peers: nothing from them gets in, nothing to them gets out. With one_way,
    only what the node sends to them is dropped (their packets still arrive; TCP replies do not).

    Peers are container names, resolved inside the node (getent), as the node's own services resolve them.
    IPv4 only: the project's Docker networks have no IPv6.
    """

    name = "partition"
    chain = "KAFKAOPS-PARTITION"

    def __init__(self, node, peers, one_way=False, runner=None):
        super().__init__(node, runner)
        self.peers = [check_node(peer, self.host) for peer in peers]
        if not self.peers or node in self.peers:
            raise NemesisError("%s: a partition needs peers other than the node itself, got %r" % (node, peers))
        self.one_way = one_way
        self.rules = IptablesChain(self, self.chain, [("INPUT", []), ("OUTPUT", [])])

    def peer_addresses(self):
        addresses = {}
        for peer in self.peers:
            returncode, stdout, stderr = self.call(["getent", "ahostsv4", peer])
            found = parse_getent_addresses(stdout) if returncode == 0 else []
            if not found:
                raise command_failed(self.node, ["getent", "ahostsv4", peer], returncode, stderr,
                                     "cannot resolve peer %s" % peer)
            addresses[peer] = found
        return addresses

    def apply(self):
        rules = []
        for addresses in self.peer_addresses().values():
            for address in addresses:
                if not self.one_way:
                    rules.append(["-s", address, "-j", "DROP"])
                rules.append(["-d", address, "-j", "DROP"])
        self.rules.install(rules)

    def heal(self):
        self.rules.remove()

    def proof(self):
        found = self.rules.proof()
        found.update(node=self.node, one_way=self.one_way,
                     in_place=found["hooked_from"] == ["INPUT", "OUTPUT"]
                     and any(rule["target"] == "DROP" for rule in found["rules"]))
        return found


class Pause(Nemesis):
    """Freezes a systemd unit's main process (SIGSTOP) and thaws it (SIGCONT): alive, holding its sockets
    and sessions, answering nothing, as a long GC pause or a stalled VM.

    Heal before stopping the unit: a stopped process gets SIGTERM only once it runs again, so `systemctl
    stop` would wait for its stop timeout.
    """

    name = "pause"

    def __init__(self, node, unit, runner=None):
        super().__init__(node, runner)
        self.unit = _checked(unit, UNIT_NAME, "unit")

    def main_pid(self):
        stdout = self.run(["systemctl", "show", "--property=MainPID", "--value", self.unit], "reading the main PID")
        return int(stdout.strip() or 0)

    def apply(self):
        pid = self.main_pid()
        if pid == 0:
            raise NemesisError("%s: unit %s has no main process to pause (is it running?)" % (self.node, self.unit))
        self.run(["kill", "-STOP", str(pid)])

    def heal(self):
        pid = self.main_pid()
        if pid:
            # SIGCONT to a process that is not stopped does nothing, so healing twice is harmless.
            self.run(["kill", "-CONT", str(pid)])

    def proof(self):
        pid = self.main_pid()
        found = {"node": self.node, "unit": self.unit, "pid": pid, "command": None, "state": None}
        if pid:
            found.update(parse_proc_stat(self.run(["cat", "/proc/%d/stat" % pid])))
        # T: stopped by a signal; t: stopped by a tracer, which SIGSTOP also shows as under a debugger.
        found["in_place"] = found["state"] in ("T", "t")
        return found


class FullDisk(Nemesis):
    """A small filesystem of its own (tmpfs, size_mb) at `path`, which fill() takes up to leave_bytes.

    prepare() mounts it, and must run before the service first writes there: mounting over files in use
    would hide them, so it refuses a directory that is not empty. For a broker, list the path among the
    instance's log_dirs from the broker's first start (README.md shows how). apply() fills; heal() deletes
    the filler and leaves the filesystem mounted, since the service's data lives there.

    Only that filesystem is ever filled: the container's own disk is the host's disk, shared with
    everything else on the machine. Its data is in memory and goes with the container (NodeStop).
    """

    name = "full-disk"
    source = "kafkaops-nemesis"
    filler_name = "kafkaops-nemesis-filler"
    # A service writing while we fill can take the space we measured; measure again that many times.
    fill_attempts = 5

    def __init__(self, node, path, size_mb, leave_bytes=0, runner=None):
        super().__init__(node, runner)
        if not isinstance(path, str) or not path.startswith("/") or os.path.normpath(path) != path or path == "/":
            raise NemesisError("%s: %r is not an absolute, normalized path below /" % (node, path))
        if int(size_mb) < 1 or int(leave_bytes) < 0:
            raise NemesisError("%s: size_mb must be 1 or more and leave_bytes 0 or more" % node)
        self.path, self.size_mb, self.leave_bytes = path, int(size_mb), int(leave_bytes)
        self.filler = path + "/" + self.filler_name

    def usage(self):
        """df of the path, or None when the path does not exist yet."""
        argv = ["df", "-B1", "--output=source,fstype,size,used,avail,target", self.path]
        returncode, stdout, stderr = self.call(argv)
        if returncode != 0:
            if "No such file or directory" in stderr:
                return None
            raise command_failed(self.node, argv, returncode, stderr)
        return parse_df(stdout)

    def ours(self, usage):
        return bool(usage) and usage["source"] == self.source and usage["filesystem"] == "tmpfs" \
            and usage["mounted_on"] == self.path

    def prepare(self):
        usage = self.usage()
        if self.ours(usage):
            return
        if usage and usage["mounted_on"] == self.path:
            raise NemesisError("%s: %s is already a mount point (%s from %s), not ours"
                               % (self.node, self.path, usage["filesystem"], usage["source"]))
        self.run(["mkdir", "-p", self.path])
        if self.run(["find", self.path, "-mindepth", "1", "-maxdepth", "1", "-print", "-quit"]).strip():
            raise NemesisError("%s: %s is not empty; mounting there would hide its files from the service, so mount "
                               "before the service first writes there" % (self.node, self.path))
        self.run(["mount", "-t", "tmpfs", "-o", "size=%dm,mode=0755" % self.size_mb, self.source, self.path])

    def filler_bytes(self):
        returncode, stdout, _stderr = self.call(["stat", "--format=%s", self.filler])
        return int(stdout.strip()) if returncode == 0 else 0

    def fill(self, leave_bytes=None):
        """Takes the free space down to leave_bytes with one filler file.

        fallocate reserves the bytes in one step, where writing zeros until ENOSPC would leave the service a
        moment with no space at all even when leave_bytes asks for some.
        """
        leave = self.leave_bytes if leave_bytes is None else int(leave_bytes)
        for _attempt in range(self.fill_attempts):
            usage = self.usage()
            if not self.ours(usage):
                raise NemesisError("%s: %s is not the small filesystem FullDisk mounts (%s); run prepare before the "
                                   "service starts" % (self.node, self.path, usage or "no such directory"))
            extra = usage["available_bytes"] - leave
            if extra <= 0:
                return
            argv = ["fallocate", "--offset", str(self.filler_bytes()), "--length", str(extra), self.filler]
            returncode, _stdout, stderr = self.call(argv)
            if returncode != 0 and "No space left on device" not in stderr:
                raise command_failed(self.node, argv, returncode, stderr)
        raise NemesisError("%s: %s still has more than %d bytes free after %d attempts to fill it"
                           % (self.node, self.path, leave, self.fill_attempts))

    def apply(self):
        self.fill()

    def heal(self):
        self.run(["rm", "-f", self.filler])

    def proof(self):
        usage = self.usage()
        found = {"node": self.node, "path": self.path, "mounted": self.ours(usage), "leave_bytes": self.leave_bytes}
        found.update(usage or {})
        found["filler_bytes"] = self.filler_bytes() if usage else 0
        found["in_place"] = found["mounted"] and found["filler_bytes"] > 0 \
            and found["available_bytes"] <= self.leave_bytes
        return found


class SlowLink(Nemesis):
    """A slow, lossy link: a token bucket (tc tbf) limits what the node sends to `rate`, and iptables drops
    a random share (`loss`) of the packets in each direction on that interface. Loopback is untouched.

    The kernel here has no netem, so there is no added delay of its own: delay comes from the queue of
    the rate limit only (up to `latency` per packet before tbf drops it).
    """

    name = "slow-link"
    chain = "KAFKAOPS-SLOWLINK"
    # A fixed handle marks the root qdisc as ours, so heal removes only a qdisc it put there.
    handle = "6b6f:"

    def __init__(self, node, rate="1mbit", loss=0.05, interface="eth0", burst="32kbit", latency="400ms",
                 runner=None):
        super().__init__(node, runner)
        self.rate = _checked(rate, TC_RATE, "rate") if rate else None
        self.loss = float(loss or 0)
        if not 0 <= self.loss < 1:
            raise NemesisError("%s: loss is a share of packets, from 0 up to but not 1: %r" % (node, loss))
        if self.rate is None and self.loss == 0:
            raise NemesisError("%s: a slow link needs a rate, a loss, or both" % node)
        self.interface = _checked(interface, INTERFACE_NAME, "interface")
        self.burst = _checked(burst, TC_SIZE, "burst")
        self.latency = _checked(latency, TC_TIME, "latency")
        self.rules = IptablesChain(self, self.chain, [("INPUT", ["-i", self.interface]),
                                                      ("OUTPUT", ["-o", self.interface])])

    def qdiscs(self):
        return parse_tc_qdiscs(self.run(["tc", "-s", "qdisc", "show", "dev", self.interface], "reading the qdiscs"))

    def root_is_ours(self, qdiscs):
        return any(qdisc["parent"] == "root" and qdisc["handle"] == self.handle for qdisc in qdiscs)

    def apply(self):
        if self.rate:
            # replace: applying twice changes the settings instead of failing on an existing root.
            self.run(["tc", "qdisc", "replace", "dev", self.interface, "root", "handle", self.handle, "tbf",
                      "rate", self.rate, "burst", self.burst, "latency", self.latency])
        if self.loss:
            self.rules.install([["-m", "statistic", "--mode", "random", "--probability", "%g" % self.loss,
                                 "-j", "DROP"]])

    def heal(self):
        if self.root_is_ours(self.qdiscs()):
            self.run(["tc", "qdisc", "del", "dev", self.interface, "root"])
        self.rules.remove()

    def proof(self):
        qdiscs = self.qdiscs()
        root = next((qdisc for qdisc in qdiscs if qdisc["parent"] == "root"), None)
        drops = self.rules.proof()
        limited = self.root_is_ours(qdiscs) and root["kind"] == "tbf"
        dropping = drops["hooked_from"] == ["INPUT", "OUTPUT"] and bool(drops["rules"])
        return {"node": self.node, "interface": self.interface, "root_qdisc": root, "rate_limited": limited,
                "random_drop": drops, "in_place": (limited or not self.rate) and (dropping or not self.loss)}


class NodeStop(Nemesis):
    """The whole container stopped, as a machine that goes down, and started again.

    Runs docker on the host, not in the container. A clean stop (systemd shuts the services down) by
    default; abrupt=True kills it (SIGKILL to everything, as a power cut). What lived only in the
    container's memory or network namespace is gone after it: other nemeses' rules and mounts included.
    Docker may also give the container another address on start.
    """

    name = "node-stop"

    def __init__(self, node, abrupt=False, timeout=30, runner=None):
        super().__init__(node, runner if runner is not None else HostCommands())
        self.abrupt, self.timeout = abrupt, int(timeout)

    def apply(self):
        if self.abrupt:
            # docker kill fails on a container that is not running; stopping one that is stopped is no error.
            if self.state()["running"]:
                self.run(["docker", "kill", self.node])
        else:
            self.run(["docker", "stop", "-t", str(self.timeout), self.node])

    def heal(self):
        self.run(["docker", "start", self.node])

    def state(self):
        return parse_docker_state(self.run(["docker", "inspect", "--type", "container", self.node]))

    def proof(self):
        found = {"node": self.node}
        found.update(self.state())
        found["in_place"] = not found["running"]
        return found


NEMESES = {nemesis.name: nemesis for nemesis in (Partition, Pause, FullDisk, SlowLink, NodeStop)}


def build(fault, arguments, runner=None):
    """The nemesis a command line asks for."""
    node = arguments.node
    if fault == "partition":
        if not arguments.peers:
            raise NemesisError("partition needs --peers")
        return Partition(node, [peer for peer in arguments.peers.split(",") if peer], arguments.one_way, runner)
    if fault == "pause":
        if not arguments.unit:
            raise NemesisError("pause needs --unit")
        return Pause(node, arguments.unit, runner)
    if fault == "full-disk":
        if not arguments.path or arguments.size_mb is None:
            raise NemesisError("full-disk needs --path and --size-mb")
        return FullDisk(node, arguments.path, arguments.size_mb, arguments.leave_bytes, runner)
    if fault == "slow-link":
        return SlowLink(node, arguments.rate, arguments.loss, arguments.interface, arguments.burst,
                        arguments.latency, runner)
    return NodeStop(node, arguments.abrupt, arguments.timeout, runner)


def parser():
    commands = argparse.ArgumentParser(description="Apply, heal or prove a fault on a project container; "
                                                   "prints the proof read after the action as JSON.")
    commands.add_argument("action", choices=["prepare", "apply", "heal", "proof"])
    commands.add_argument("fault", choices=sorted(NEMESES))
    commands.add_argument("--node", required=True, help="the container, e.g. kafkaops-res2")
    commands.add_argument("--peers", help="partition: the containers to cut it from, comma-separated")
    commands.add_argument("--one-way", action="store_true", help="partition: drop only what the node sends them")
    commands.add_argument("--unit", help="pause: the systemd unit, e.g. kafka-broker-2")
    commands.add_argument("--path", help="full-disk: the directory to mount the small filesystem on")
    commands.add_argument("--size-mb", type=int, help="full-disk: its size")
    commands.add_argument("--leave-bytes", type=int, default=0, help="full-disk: bytes to leave free (0)")
    commands.add_argument("--rate", default="1mbit", help="slow-link: tc rate (1mbit); empty for none")
    commands.add_argument("--loss", type=float, default=0.05, help="slow-link: share of packets dropped (0.05)")
    commands.add_argument("--interface", default="eth0", help="slow-link: the interface (eth0)")
    commands.add_argument("--burst", default="32kbit", help="slow-link: tbf burst (32kbit)")
    commands.add_argument("--latency", default="400ms", help="slow-link: tbf latency (400ms)")
    commands.add_argument("--abrupt", action="store_true", help="node-stop: docker kill instead of docker stop")
    commands.add_argument("--timeout", type=int, default=30, help="node-stop: seconds docker stop waits (30)")
    return commands


def main(argv=None, runner=None, out=sys.stdout):
    arguments = parser().parse_args(argv)
    try:
        nemesis = build(arguments.fault, arguments, runner)
        if arguments.action != "proof":
            getattr(nemesis, arguments.action)()
        proof = nemesis.proof()
    except NemesisError as error:
        print("nemesis %s %s: %s" % (arguments.action, arguments.fault, error), file=sys.stderr)
        return 1
    json.dump({"action": arguments.action, "fault": arguments.fault, "node": arguments.node, "proof": proof},
              out, sort_keys=True)
    out.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
