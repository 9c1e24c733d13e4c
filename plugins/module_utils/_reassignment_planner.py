# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The partition reassignment planner: pure functions over plain dicts and lists, no I/O.

Given where the replicas of some topics are now and which brokers should hold them, it returns a
plan in Kafka's reassignment JSON format that moves as few replicas as possible, keeps replicas of
a partition on different racks, balances replicas and preferred leaders over the target brokers,
and reports beside its own count of moves a lower bound whose validity does not depend on how the
plan was found (the two are always equal: the plan is a minimum, and the bound shows it).

Terms
-----
* A *move* (``replica_moves``) is a pair (partition, broker) where the broker is in the partition's
  new replica list but not in its current one: one full copy of the partition's log onto a broker
  that does not have it. Dropping a replica (fewer replicas, or leaving a broker) copies nothing and
  is not counted; neither is changing the order of a replica list.
* The *leader* of a partition is its preferred leader, the first broker of its replica list.
* ``N`` is the number of replicas the selected partitions have after the plan (their replication
  factor summed), ``n`` the number of target brokers.

What a plan satisfies
---------------------
1. Every selected partition has the wanted replication factor (the current one, or
   ``replication_factor``) on distinct target brokers; brokers outside the targets end with none of
   the selected topics' replicas (decommissioning).
2. Rack rule, when every target broker has a rack: no two replicas of a partition share a rack if
   there are at least as many racks as replicas; otherwise replicas are spread as evenly over the
   racks as their sizes allow (at most ``c`` per rack, the least ``c`` that can hold them).
3. Replica balance: every target broker holds ``floor(N / n)`` or ``ceil(N / n)`` of the replicas.
   Only the rack rule can make this impossible (racks of unequal size); then the per-broker counts
   are the most even the rack rule allows: no count can be lowered by raising a count that is at
   least two smaller (a "decreasingly minimal" vector, which also has the least possible maximum and
   the largest possible minimum), found by exchanges along augmenting paths.
4. Among all plans satisfying 1-3 (with the counts of 3 free within floor/ceil, fixed in the rack
   fallback), the number of moves is the minimum.
5. Leaders: every partition's list is reordered so that each target broker leads ``floor(P / n)``
   or ``ceil(P / n)`` of the ``P`` selected partitions, changing as few leaders as possible. Where
   the replica sets make that impossible (for example a topic with replication factor 1 kept on one
   broker), the leader counts are the most even possible, in the same sense as in 3, and leader
   changes are as few as possible for those counts.
6. Only partitions whose replica list changes (including pure reorders) are in the plan; the
   rollback plan holds the current lists of exactly those partitions.

Minimum moves and the lower bound
---------------------------------
The obvious *counting bound* is: replicas on brokers that must be emptied, plus each target
broker's replicas above what it may keep (the larger allowances, ``ceil(N / n)``, given to the
brokers holding the most), and at least each partition's missing replicas when the replication
factor rises. It is reported as ``counting_bound``, but it cannot always be reached. Example:
targets 1, 2 and 3; partitions a=[1, 2], b=[1, 2], c=[3, 4]; broker 4 leaves. Every broker must end
with 2 replicas. The counting bound is 1 (c's replica on broker 4), but c needs a second broker
other than 3, and 1 and 2 are both full, so one of a or b must also give up a replica to broker 3:
two moves are the minimum. Here no broker has a larger allowance to hand out (6 replicas, 3
brokers), so no clever choice of allowances can help; the planner therefore does not start from the
counting argument at all, it solves the exact problem. (Random clusters in the unit tests hit such
cases in about 3 % of plans.)

The exact problem is a transportation problem. Partitions with the same wanted replication factor
and the same set of current replicas on target brokers are interchangeable, so they form one
*group* of ``k`` partitions, and the network is::

    source -> group         capacity k * replication factor
    group  -> (group, rack) capacity k * per-rack limit            (only with the rack rule)
    ...    -> broker        capacity k; cost 0 if the group holds the broker now, else 1
    broker -> sink          capacity floor(N / n)
    broker -> pool -> sink  capacity 1 per broker, ceil(N / n) - floor(N / n) summed over brokers

A flow of ``N`` units is exactly a count of "how many partitions of each group end on each
broker", and its cost is the number of moves. Every such integral flow comes from a real plan:
within a group, write the brokers one after another, each repeated as often as its flow (brokers of
one rack next to each other), and deal them out column by column to ``k`` rows, one row per
partition; a broker used at most ``k`` times (a rack at most ``k`` times the per-rack limit) never
lands twice (more than the limit) in one row. So the cheapest flow is the cheapest plan.

The flow is found by the primal-dual method (shortest paths on reduced costs, then a maximum flow
on the zero reduced-cost edges, repeated). Its node potentials ``p`` are a dual solution, and by
linear programming weak duality every flow of ``N`` units, hence every plan meeting the same
constraints, costs at least::

    N * (p[sink] - p[source]) + sum over edges e = (u, v) of capacity(e) * min(0, cost(e) + p[u] - p[v])

That number, computed from the potentials and the network alone, is ``lower_bound``. Complementary
slackness makes it equal to the cost of the flow found, so ``replica_moves == lower_bound`` holds in
every case, racks or not, and the counting bound is only a weaker bound (``counting_bound <=
lower_bound``). With racks the bound is the minimum under the rack rule and the balance rule, not
the (smaller or equal) minimum without racks; with the rack fallback of rule 3 it is the minimum for
the per-broker counts chosen there.

Leaders are chosen the same way: groups of partitions with the same final replica set and the same
current leader, edges to the brokers of the set (cost 0 to the current leader), broker capacities
floor/ceil of ``P / n``. Reordering is not a move, but the plan stays as short as it can be.

Modes
-----
``mode`` narrows what a plan may change; everything above describes ``full``, the default. The other
modes keep every partition's replication factor. With the rack rule, a partition never ends with more
replicas in a rack than the rule allows or than it has there now: a mode that may not move the replica
that breaks the rule leaves it, and makes no rack fuller than that.

* ``add`` (brokers were added): a partition may keep any of its replicas and gain replicas only on the
  *new* brokers (``new_brokers``, by default the targets holding none of the selected partitions); no
  replica moves between the others. The network is the one above with edges only to a group's current
  brokers (cost 0) and to the new ones (cost 1), per-rack capacity the rule's limit or what the group
  holds in the rack now, whichever is larger; counts are floor/ceil where the restriction allows it (old
  brokers can only lose, so one holding less than the floor now rules it out), else the most even it
  allows (as in rule 3, and as there with the fewest moves for the counts chosen; another vector as
  even may need fewer). *Bound*: the dual bound of that network. Every move of an add plan lands on a
  new broker, so the moves are the replicas the new brokers receive; the network's flows are exactly the
  add plans, so by weak duality no add plan with floor/ceil counts (in the fallback, with the same
  counts) has the new brokers receive fewer, and ``replica_moves == lower_bound``.
* ``remove`` (brokers leave): every replica on a target stays; the replicas on the brokers left out of
  the targets (``leaving_brokers``) go to targets that hold none of the partition. *Bound*: the number of
  replicas on leaving brokers. Each of them must be copied somewhere (the replication factor is kept)
  and nothing else may move, so every remove plan makes exactly that many moves: the bound is met, and
  the only choice, where they go, is made by a flow (_place_displaced) for the most even counts.
* ``fix_offline``: the replicas on brokers that are not live, or on a live broker's failed log dir
  (``offline_replicas``), are placed on live targets holding none of the partition (not back on the
  failed dir's broker); every other replica stays, and leaders change only where the leader's replica
  is offline. *Bound*: the number of offline replicas placed, met for the reason given for remove.
  Partitions with no replica left to copy from are left as they are and named in the summary; their
  places in live brokers' lists count in the replica balance (not in the bytes balance: they hold none).
* ``demote``: no replica moves; each replica list is reordered so that no broker of ``demote_brokers``
  is the preferred leader where another replica can be, with the leader counts over the other brokers as
  in rule 5 (the leader network of the full mode, each partition's edges only to its brokers that are not
  demoted). *Bound*: 0 moves, trivially met. A partition whose every replica is demoted keeps its leader
  and is counted and named in the summary (``demote_impossible``): refusing the whole plan for it would
  keep every other partition led by the broker the operator wants to take out.

With ``balance="bytes"`` the modes restrict the bytes balance the same way (_byte_balance, "Restricted
placements"); its ``bytes_moved_lower_bound`` is then a bound among the plans of the mode, and for
remove and fix_offline it is met exactly (the bytes of the replicas placed). demote copies no bytes.

Log dirs
--------
A plan says which brokers hold each partition. On a broker with several log dirs (JBOD) the module then
names, in Kafka's ``log_dirs`` beside ``replicas``, the dir each copy onto that broker goes to
(_log_dir_planner, "Dirs for the replicas a reassignment copies in": the open dir least full after taking it,
within ``max_disk_fill``, the largest copies first; by replicas too, the dirs then allowed up to their size).
That choice moves no replica between brokers, so every figure and bound above is unchanged by it, and entries
that name no dir are left as this module returns them.

Determinism and speed
---------------------
Every collection is sorted before it is walked, or walked in an order built from sorted ones; no
set or dict order of the input, no randomness: the same input gives the same plan, whatever order
the input mappings were built in.

The work per partition is a few C-level set and list operations. The networks have one node per
group, one group per distinct pair (replication factor, current replicas on targets): at most 220
for replication factor 3 on 12 brokers. Edges that cost a move are first laid only from groups that
may have to give up or gain a replica to brokers below their ceiling; after solving, every omitted
edge's reduced cost is checked from the potentials (brokers sorted by potential, so without
visiting each omitted edge) and any negative one is added and the network solved again. With none
left the potentials are dual feasible for the complete network, so the flow is optimal for it and
``lower_bound`` above stays valid. If the pruned network cannot carry all replicas (as in the
example above), every edge is laid at once. 100,000 partitions on 12 -> 15 brokers take about 0.6 s
of CPU (``bench/plan``). The networks grow with groups x brokers, so many brokers and scattered
replica sets cost more (100,000 partitions on random sets of 3 among 40 brokers, grown to 50: about
2 s of CPU): slower, never less exact.

Scattered replica sets on many brokers make nearly every partition a group of its own (a million
partitions on random sets of 3 among 200 brokers: 700,000 groups, and as many leader groups).
Beyond ``_MANY_GROUPS`` groups the networks are pruned further, by the same argument:

* Groups that could keep every replica where it is (and every leader) start outside the network:
  their units are taken off the brokers' floors instead. A broker above its floor keeps in the
  network groups holding twice its excess, and for leaders a broker short of leaders keeps groups
  whose replica sets hold it, those that do both first (_left_out_groups). After solving, a group
  left out is dual feasible as it stands unless a broker it could move a unit to has a potential
  more than 1 above one of its kept brokers (_joining); any that is not joins the network, which is
  solved again. With none left, potentials extend to the groups left out so that every edge of the
  complete network is dual feasible: the flow is optimal and the bound (with their share added, see
  _transport) valid. If the network cannot carry all units without them, they all join.
* A group gets edges to a window of ``_FEW_RECEIVERS`` of the brokers below their ceiling, turning
  with the group, instead of to all of them; the reduced-cost check above adds the others it needs.
* Before the primal-dual method starts, each group sends what it can to its kept brokers up to their
  floor (cost 0 only, so the zero potentials stay dual feasible).
* Groups enter the network in the order of their first partition instead of sorted.

So a million partitions on 200 -> 220 brokers take about 20 s of CPU and 1.2 GB, both the same
minimum and bound as the complete networks would give (the unit tests run every case both ways),
though where several plans are minimal, not necessarily the same one.
"""

from __future__ import absolute_import, division, print_function


import collections
import heapq
import itertools
import json
import math

from ansible_collections.kafkaops.cluster.plugins.module_utils._input_errors import InputError

_UNREACHED = 1 << 62
_INT_ONLY = set([int])
# Networks of more groups than this leave out at first the groups that can keep every replica, and
# give each group edges to a few of the brokers that receive replicas; both are completed from the
# dual (_transport), so plans stay minimal. Smaller networks hold every group, as they always did.
_MANY_GROUPS = 20000
_FEW_RECEIVERS = 4
# How many times its excess a broker keeps in the network at first (_left_out_groups).
_SLACK = 2


class PlanError(InputError):
    """An input the planner cannot use; ``field`` names the offending input."""


# --------------------------------------------------------------------------------------------
# Input handling


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _broker_id(value, field, where):
    if not _is_int(value) or value < 0:
        raise PlanError(field, "%s: broker id %r is not a non-negative integer" % (where, value))
    return value


def _normalise_assignment(assignment):
    """Validate ``{topic: {partition: [replicas]}}`` and return a copy with tuples of replicas."""
    if not isinstance(assignment, dict):
        raise PlanError("assignment", "expected a mapping of topic to partitions, got %s" % type(assignment).__name__)
    normalised = {}
    for topic, partitions in assignment.items():
        if not isinstance(topic, str) or not topic:
            raise PlanError("assignment", "topic name %r is not a non-empty string" % (topic,))
        if not isinstance(partitions, dict):
            raise PlanError("assignment", "topic %s: expected a mapping of partition to replicas" % topic)
        checked = {}
        for partition, replicas in partitions.items():
            _check_partition(topic, partition)
            checked[partition] = _checked_replicas(topic, partition, replicas)
        normalised[topic] = checked
    return normalised


def _check_partition(topic, partition):
    if not _is_int(partition) or partition < 0:
        raise PlanError("assignment", "topic %s: partition %r is not a non-negative integer" % (topic, partition))


def _checked_replicas(topic, partition, replicas):
    """``replicas`` as a tuple, once it is a non-empty list of distinct broker ids (else PlanError)."""
    if not isinstance(replicas, (list, tuple)) or not replicas:
        message = "%s-%d: replicas must be a non-empty list of broker ids" % (topic, partition)
        raise PlanError("assignment", message)
    # The common case checked at C speed; anything odd gets the exact per-id message.
    if set(map(type, replicas)) != _INT_ONLY or min(replicas) < 0:
        for broker in replicas:
            _broker_id(broker, "assignment", "%s-%d" % (topic, partition))
    if len(set(replicas)) != len(replicas):
        message = "%s-%d: a broker appears twice in replicas %s" % (topic, partition, list(replicas))
        raise PlanError("assignment", message)
    return tuple(replicas)


def _normalise_brokers(brokers):
    """``{broker_id: rack or None}`` (a list of ids means no racks) -> dict."""
    if isinstance(brokers, (list, tuple)):
        brokers = dict((broker, None) for broker in brokers)
    if not isinstance(brokers, dict) or not brokers:
        raise PlanError("brokers", "expected a non-empty mapping of live broker id to rack (or None)")
    normalised = {}
    for broker, rack in brokers.items():
        _broker_id(broker, "brokers", "live brokers")
        if rack is not None and (not isinstance(rack, str) or not rack):
            raise PlanError("brokers", "broker %d: rack %r is not a non-empty string or None" % (broker, rack))
        normalised[broker] = rack
    return normalised


def parse_broker_list(broker_list, brokers=None, field="broker_list"):
    """Target brokers as ints, in the given order.

    ``broker_list`` is a list of ints or a comma-separated string such as ``"1001,1002,1003"`` (the
    form Kafka's reassignment tool takes). With ``brokers`` (live broker ids, or a mapping whose
    keys are), every listed broker must be live. Raises PlanError(field, ...): the modes' lists of
    brokers (new_brokers, demote_brokers) are read here too.
    """
    if isinstance(broker_list, str):
        items = [item.strip() for item in broker_list.split(",")]
        parsed = []
        for item in items:
            if not item.isdigit():
                raise PlanError(field, "%r is not a broker id (expected e.g. \"1001,1002,1003\")" % item)
            parsed.append(int(item))
    elif isinstance(broker_list, (list, tuple)):
        parsed = list(broker_list)
        for broker in parsed:
            _broker_id(broker, field, field)
    else:
        raise PlanError(field, "expected a list of broker ids or a comma-separated string")
    if not parsed:
        raise PlanError(field, "no broker listed")
    seen = set()
    for broker in parsed:
        if broker in seen:
            raise PlanError(field, "broker %d is listed twice" % broker)
        seen.add(broker)
    if brokers is not None:
        missing = sorted(broker for broker in parsed if broker not in brokers)
        if missing:
            raise PlanError(field, "not a live broker: %s" % ", ".join(str(broker) for broker in missing))
    return parsed


def _select_topics(topics, assignment):
    if topics is None:
        return sorted(assignment)
    if isinstance(topics, str):
        topics = [item.strip() for item in topics.split(",") if item.strip()]
    if not isinstance(topics, (list, tuple)):
        raise PlanError("topics", "expected a list of topic names")
    if not topics:
        raise PlanError("topics", "no topic named (leave it unset to move every topic)")
    for topic in topics:
        if not isinstance(topic, str):
            raise PlanError("topics", "topic name %r is not a string" % (topic,))
    unknown = sorted(set(topic for topic in topics if topic not in assignment))
    if unknown:
        raise PlanError("topics", "unknown topic: %s" % ", ".join(unknown))
    return sorted(set(topics))


def assignment_from_kafka_json(document):
    """Kafka's reassignment JSON (text or parsed) -> ``{topic: {partition: [replicas]}}``."""
    if isinstance(document, (str, bytes)):
        try:
            document = json.loads(document)
        except ValueError as error:
            raise PlanError("assignment", "not valid JSON: %s" % error) from error
    if not isinstance(document, dict) or not isinstance(document.get("partitions"), list):
        raise PlanError("assignment", "expected {\"version\": 1, \"partitions\": [...]}")
    if document.get("version", 1) != 1:
        raise PlanError("assignment", "unsupported version %r (only 1 is known)" % (document.get("version"),))
    # One pass, checking each entry as _normalise_assignment would: this may be a million entries.
    assignment = {}
    topic = partitions = None
    for entry in document["partitions"]:
        try:
            if not isinstance(entry, dict):
                raise KeyError("topic")
            named, partition, replicas = entry["topic"], entry["partition"], entry["replicas"]
        except KeyError:
            raise PlanError("assignment", "every partition entry needs topic, partition and replicas: %r"
                            % (entry,)) from None
        if not isinstance(named, str) or not _is_int(partition):
            raise PlanError("assignment", "bad topic or partition in %r" % (entry,))
        if named != topic:
            topic = named
            if not topic:
                raise PlanError("assignment", "topic name %r is not a non-empty string" % (topic,))
            partitions = assignment.get(topic)
            if partitions is None:
                partitions = assignment[topic] = {}
        if partition in partitions:
            raise PlanError("assignment", "%s-%d is listed twice" % (topic, partition))
        _check_partition(topic, partition)
        _checked_replicas(topic, partition, replicas)
        partitions[partition] = list(replicas)
    return assignment


def assignment_to_kafka_json(assignment):
    """``{topic: {partition: [replicas]}}`` -> Kafka's reassignment JSON (a dict, sorted)."""
    normalised = _normalise_assignment(assignment)
    return {
        "version": 1,
        "partitions": [
            {"topic": topic, "partition": partition, "replicas": list(normalised[topic][partition])}
            for topic in sorted(normalised)
            for partition in sorted(normalised[topic])
        ],
    }


# --------------------------------------------------------------------------------------------
# Minimum-cost flow


class _FlowNetwork:
    """Min-cost flow by the primal-dual method; edge e and e ^ 1 are a forward/residual pair."""

    def __init__(self):
        self.adjacency = []
        self.head = []
        self.capacity = []
        self.cost = []
        self.potential = []
        # Units already sent from source to sink (by _build_transport's preflow).
        self.sent = 0

    def add_node(self):
        self.adjacency.append([])
        self.potential.append(0)
        return len(self.adjacency) - 1

    def add_edge(self, tail, head, capacity, cost=0):
        index = len(self.head)
        self.head.extend((head, tail))
        self.capacity.extend((capacity, 0))
        self.cost.extend((cost, -cost))
        self.adjacency[tail].append(index)
        self.adjacency[head].append(index + 1)
        return index

    def flow(self, edge):
        return self.capacity[edge ^ 1]

    def send(self, source, sink, amount):
        """Send up to ``amount`` units at least cost; return how many were sent.

        Costs must be non-negative. The potentials stay dual feasible throughout: every residual
        edge has a non-negative reduced cost, every edge carrying flow a non-positive one.
        """
        sent = 0
        potential = self.potential
        while sent < amount:
            distance = self._distances(source)
            cut = distance[sink]
            if cut >= _UNREACHED:
                break
            for node, reached in enumerate(distance):
                potential[node] += reached if reached < cut else cut
            pushed = self._augment_on_tight_edges(source, sink, amount - sent)
            if not pushed:
                break
            sent += pushed
        return sent

    def _distances(self, source):
        head, capacity, cost, potential = self.head, self.capacity, self.cost, self.potential
        distance = [_UNREACHED] * len(self.adjacency)
        distance[source] = 0
        heap = [(0, source)]
        while heap:
            reached, node = heapq.heappop(heap)
            if reached > distance[node]:
                continue
            base = reached + potential[node]
            for edge in self.adjacency[node]:
                if capacity[edge]:
                    other = head[edge]
                    candidate = base + cost[edge] - potential[other]
                    if candidate < distance[other]:
                        distance[other] = candidate
                        heapq.heappush(heap, (candidate, other))
        return distance

    def _augment_on_tight_edges(self, source, sink, limit):
        """Dinic's maximum flow restricted to edges of zero reduced cost."""
        head, capacity, cost, potential, adjacency = self.head, self.capacity, self.cost, self.potential, self.adjacency
        node_count = len(adjacency)
        pushed = 0
        while pushed < limit:
            level = [-1] * node_count
            level[source] = 0
            queue = collections.deque([source])
            while queue:
                node = queue.popleft()
                next_level = level[node] + 1
                node_potential = potential[node]
                for edge in adjacency[node]:
                    if capacity[edge]:
                        other = head[edge]
                        if level[other] < 0 and cost[edge] + node_potential == potential[other]:
                            level[other] = next_level
                            queue.append(other)
            if level[sink] < 0:
                break
            pointer = [0] * node_count
            path = []
            node = source
            while True:
                if node == sink:
                    amount = limit - pushed
                    for edge in path:
                        if capacity[edge] < amount:
                            amount = capacity[edge]
                    for edge in path:
                        capacity[edge] -= amount
                        capacity[edge ^ 1] += amount
                    pushed += amount
                    if pushed >= limit:
                        break
                    path = []
                    node = source
                    continue
                edges = adjacency[node]
                position = pointer[node]
                advanced = False
                while position < len(edges):
                    edge = edges[position]
                    if capacity[edge]:
                        other = head[edge]
                        if level[other] == level[node] + 1 and cost[edge] + potential[node] == potential[other]:
                            advanced = True
                            break
                    position += 1
                pointer[node] = position
                if advanced:
                    path.append(edge)
                    node = head[edge]
                    continue
                if node == source:
                    break
                level[node] = -1
                edge = path.pop()
                node = head[edge ^ 1]
                pointer[node] += 1
        return pushed

    def dual_bound(self, source, sink, amount):
        """A lower bound on the cost of any flow of ``amount`` units, from the potentials alone."""
        head, capacity, cost, potential = self.head, self.capacity, self.cost, self.potential
        bound = amount * (potential[sink] - potential[source])
        for edge in range(0, len(head), 2):
            reduced = cost[edge] + potential[head[edge + 1]] - potential[head[edge]]
            if reduced < 0:
                bound += (capacity[edge] + capacity[edge + 1]) * reduced
        return bound

    def even_out(self, broker_nodes, sink_edges, excluded):
        """Make the flows on ``sink_edges`` decreasingly minimal by exchanges along residual paths.

        A unit can move from broker u to broker v when a residual path leads from u to v; while
        some v reachable from u carries at least two units less than u, move half the difference
        (or the path's bottleneck). When no such pair is left the vector is decreasingly minimal.
        """
        head, capacity, adjacency = self.head, self.capacity, self.adjacency
        position_of = dict((node, position) for position, node in enumerate(broker_nodes))
        loads = [self.flow(edge) for edge in sink_edges]
        improved = True
        while improved:
            improved = False
            for start in sorted(range(len(broker_nodes)), key=lambda position: (-loads[position], position)):
                origin = broker_nodes[start]
                via = {origin: None}
                queue = collections.deque([origin])
                best = None
                while queue:
                    node = queue.popleft()
                    for edge in adjacency[node]:
                        if capacity[edge]:
                            other = head[edge]
                            if other in via or other in excluded:
                                continue
                            via[other] = edge
                            queue.append(other)
                            position = position_of.get(other)
                            if position is not None and (best is None or loads[position] < loads[best]):
                                best = position
                if best is None or loads[best] > loads[start] - 2:
                    continue
                path = []
                node = broker_nodes[best]
                while via[node] is not None:
                    path.append(via[node])
                    node = head[via[node] ^ 1]
                amount = min([(loads[start] - loads[best]) // 2] + [capacity[edge] for edge in path])
                for edge in path + [sink_edges[best]]:
                    capacity[edge] -= amount
                    capacity[edge ^ 1] += amount
                capacity[sink_edges[start]] += amount
                capacity[sink_edges[start] ^ 1] -= amount
                loads[start] -= amount
                loads[best] += amount
                improved = True
                break
        return loads


def _transport(broker_count, groups, total, left_out=None, build=None):
    """Send ``total`` units from groups to brokers at least cost, as evenly as possible.

    ``groups`` is a list of (supply, width, bundles). A bundle is (capacity, brokers, kept, extra):
    the group may send up to ``width`` units to each of ``brokers`` (broker positions, ascending), at most
    ``capacity`` to all of them together, at cost 0 to brokers in ``kept`` and 1 to the others.
    Only ``kept`` and the brokers in the set ``extra`` get an edge at first; an omitted edge is added
    (to ``extra``) when the dual potentials show it could lower the cost (negative reduced cost), so
    the result is optimal for the complete network.

    Groups can also be left out whole: ``left_out`` is {group index: (width, kept positions, other
    positions)} of groups that send ``width`` units to each kept broker and nothing else (their
    entry in ``groups`` is None; see _joining for the other positions), and ``build(index)`` gives
    such a group when it has to join the network: when the dual shows it could lower the cost
    (_joining), or when the network cannot carry every unit.

    Returns the flows per group as lists of (broker, units) (None for a group left out to the end:
    it kept every unit where it is), the dual lower bound, and whether the even split (floor/ceil of
    total / broker_count) was possible.
    """
    # Many groups (left_out given, if empty): send along edges of cost 0 first (_build_transport).
    preflow = left_out is not None
    left_out = dict(left_out or {})
    loads = [0] * broker_count
    for width, kept, _others in left_out.values():
        for broker in kept:
            loads[broker] += width
    while True:
        network, arcs, sink_edges, source, sink, tails = _build_transport(broker_count, groups, total, None,
                                                                          loads if preflow else None)
        amount = total - sum(loads)
        if network.sent + network.send(source, sink, amount - network.sent) < amount:
            if left_out:
                _join_all(groups, left_out, build)
                loads = [0] * broker_count
                continue
            if _include_everything(groups):
                continue
            break
        grew = _include_violated(network, groups, tails)
        joined = _joining(network.potential, broker_count, loads, left_out, build)
        for index in joined:
            width, kept, _others = left_out.pop(index)
            for broker in kept:
                loads[broker] -= width
            groups[index] = build(index)
        if not grew and not joined:
            flows = [None if group_arcs is None else [(broker, network.flow(edge)) for broker, edge in group_arcs]
                     for group_arcs in arcs]
            # A group left out adds supply * p[source] - width * (sum of p[kept]) to the bound (its node's
            # potential can be chosen, see _joining); with the sink edges' share of the units the
            # network does not carry, that is loads[b] * min(0, p[sink] - p[b]) per broker.
            potential = network.potential
            bound = network.dual_bound(source, sink, amount)
            bound += sum(load * min(0, potential[sink] - potential[2 + broker]) for broker, load in enumerate(loads))
            return flows, bound, True

    # The rack rule rules out the even split: even out the counts as far as it allows, then fix them.
    unlimited = [total] * broker_count
    network, arcs, sink_edges, source, sink, tails = _build_transport(broker_count, groups, total, unlimited)
    if network.send(source, sink, total) < total:
        raise PlanError("broker_list", "no placement satisfies the rack rule (internal error, please report)")
    loads = network.even_out(list(range(2, 2 + broker_count)), sink_edges, set([source, sink]))
    loads = _cheapest_even_loads(broker_count, groups, total, loads)
    network, arcs, sink_edges, source, sink, tails = _build_transport(broker_count, groups, total, loads)
    if network.send(source, sink, total) < total:
        raise PlanError("broker_list", "evened-out counts are not reachable (internal error, please report)")
    flows = [[(broker, network.flow(edge)) for broker, edge in group_arcs] for group_arcs in arcs]
    return flows, network.dual_bound(source, sink, total), False


def _cheapest_even_loads(broker_count, groups, total, loads):
    """Of the decreasingly minimal loads next to ``loads``, those the fewest moves reach.

    even_out finds how even the counts can get, but where several brokers could hold the one unit more,
    which of them do is an accident of the paths it took (mode add: a new broker at the ceiling where an
    old one could have kept a replica costs a move). Square sums rank the load vectors of a transport
    network as decreasing minimality does, and its decreasingly minimal vectors differ from one another
    by at most one unit per broker; so a broker's units up to one below its load are free, and the next
    two cost W(2k - 1) for the k-th unit, W above any count of moves. The least-cost flow then minimises
    the square sum first and the moves second, over loads within one of ``loads`` (``loads`` among them).
    """
    weight = total + 1
    network, unused_arcs, sink_edges, source, sink, unused_tails = _build_transport(
        broker_count, groups, total, [max(load - 1, 0) for load in loads])
    extra_edges = []
    for position, load in enumerate(loads):
        node = 2 + position
        extra_edges.append([network.add_edge(node, sink, 1, weight * (2 * unit - 1))
                            for unit in range(max(load - 1, 0) + 1, load + 2)])
    if network.send(source, sink, total) < total:
        return loads
    return [network.flow(sink_edges[position]) + sum(network.flow(edge) for edge in extra_edges[position])
            for position in range(broker_count)]


def _join_all(groups, left_out, build):
    """Bring every group left out into the network (the network without them could not carry all)."""
    for index in sorted(left_out):
        groups[index] = build(index)
    left_out.clear()


def _left_out_groups(candidates, held, floor, offered=None):
    """{group index: (width, kept positions, other positions)}: the groups to leave out at first.

    ``candidates`` are (group index, width, kept positions, other positions) of the groups that
    could keep every unit where it is, in order (other positions: where the group could move units,
    None when racks decide, see _joining); ``held`` the units on each broker now, of every group.

    A broker above ``floor`` keeps in the network groups holding _SLACK times its excess (or all it
    has), so the flow can choose which units leave it. With ``offered`` (the units the groups in the
    network anyway could bring to each broker), a group also stays in while one of its other
    positions is offered less than _SLACK times what that broker lacks; groups that do both, moving units
    straight from a broker above the floor to one below it, are taken first. The others are left
    out; no broker is left with more than ``floor`` units outside the network.
    """
    in_network = list(held)
    for _index, width, kept, _others in candidates:
        for broker in kept:
            in_network[broker] -= width
    # At least the excess itself: the sink edges of the network get what is left of the floor.
    wanted = [min(units, max(1, _SLACK) * max(0, units - floor)) for units in held]
    lacking = [_SLACK * max(0, floor + 1 - units) for units in held]

    # Loops written out: this runs once per group, up to a million times.
    later = []
    for candidate in candidates:
        index, width, kept, others = candidate
        needed = False
        for broker in kept:
            if in_network[broker] < wanted[broker]:
                needed = True
                break
        if needed and offered is not None:
            needed = False
            for broker in others:
                if offered[broker] < lacking[broker]:
                    needed = True
                    break
        if needed:
            for broker in kept:
                in_network[broker] += width
            if offered is not None:
                for broker in others:
                    offered[broker] += width
        else:
            later.append(candidate)
    left_out = {}
    for index, width, kept, others in later:
        needed = False
        for broker in kept:
            if in_network[broker] < wanted[broker]:
                needed = True
                break
        if not needed and offered is not None and others:
            for broker in others:
                if offered[broker] < lacking[broker]:
                    needed = True
                    break
        if not needed:
            left_out[index] = (width, kept, others)
            continue
        for broker in kept:
            in_network[broker] += width
        if offered is not None and others:
            for broker in others:
                offered[broker] += width
    return left_out


def _joining(potential, broker_count, loads, left_out, build):
    """The groups left out of the network that must join it: those not dual feasible as they are.

    A group left out keeps all its units: its node (and the node of each bundle that has one) carries
    flow on the edges to its kept brokers only. There is a potential for it that makes every edge of
    the group's complete network dual feasible when no broker it could move a unit to is more than 1
    above its kept brokers: checked for all groups at once from the brokers' potentials (the common
    case), else group by group: from the positions it could move units to, or, for groups whose
    bundles have nodes of their own (racks; ``others`` None), bundle by bundle on the built group.
    """
    brokers = potential[2:2 + broker_count]
    holding = [brokers[broker] for broker in range(broker_count) if loads[broker]]
    if not holding or max(brokers) - 1 <= min(holding):
        return []
    by_potential = {}
    joining = []
    for index in sorted(left_out):
        width, kept, others = left_out[index]
        if others is not None:
            # Without nodes of its own the group's node needs p[source] <= p <= min p[kept] and
            # p >= p[other] - 1; p[source] is the least potential of all.
            order = others
            if len(others) > 4:
                order = by_potential.get(id(others))
                if order is None:
                    order = by_potential[id(others)] = sorted(others, key=lambda broker: -brokers[broker])
            reach = max([brokers[broker] for broker in order[:len(kept) + 1] if broker not in kept] or [0]) - 1
            if reach > min(brokers[broker] for broker in kept):
                joining.append(index)
            continue
        supply, width, bundles = build(index)
        low, high = potential[0], _UNREACHED
        fits = True
        for capacity, members, kept_set, _extra in bundles:
            held = [brokers[broker] for broker in members if broker in kept_set]
            # An edge to a broker not kept costs 1: dual feasible when 1 + p[tail] - p[broker] >= 0.
            reach = max([brokers[broker] for broker in members if broker not in kept_set] or [-_UNREACHED]) - 1
            if capacity < supply and held and width * len(held) == capacity:
                # A full bundle's node may sit above the group's node, up to its lowest kept broker.
                fits = fits and min(held) >= reach
                high = min(high, *held)
                continue
            if held:
                high = min(high, *held)
            low = max(low, reach)
        if not fits or low > high:
            joining.append(index)
    return joining


def _include_everything(groups):
    """Give every group an edge to every broker it may use; False if all had them already."""
    grew = False
    for group in groups:
        for _capacity, brokers, kept, extra in group[2]:
            for broker in brokers:
                if broker not in kept and broker not in extra:
                    extra.add(broker)
                    grew = True
    return grew


def _include_violated(network, groups, tails):
    """Add the omitted edges whose reduced cost is negative; return whether there were any."""
    potential = network.potential
    by_potential = {}
    grew = False
    for group_index, group in enumerate(groups):
        if group is None:
            continue
        for bundle_index, (_capacity, brokers, kept, extra) in enumerate(group[2]):
            tail = tails[group_index][bundle_index]
            order = by_potential.get(id(brokers))
            if order is None:
                # Broker positions map to nodes 2, 3, ... (after source and sink).
                order = sorted(brokers, key=lambda broker: (-potential[2 + broker], broker))
                by_potential[id(brokers)] = order
            # An omitted edge costs 1; it is violated when 1 + p[tail] - p[broker] < 0.
            ceiling = potential[tail] + 1
            for broker in order:
                if potential[2 + broker] <= ceiling:
                    break
                if broker not in kept and broker not in extra:
                    extra.add(broker)
                    grew = True
    return grew


def _build_transport(broker_count, groups, total, broker_capacities, loads=None):
    """The network of _transport: with ``broker_capacities`` None, floor/ceil through a pool, less
    ``loads``, the units each broker gets from groups left out (None in ``groups``).

    With ``loads`` (the way for many groups), every group first sends what it can to its kept
    brokers up to their floor, one pass in order: flow on edges of cost 0 only, so the zero
    potentials stay dual feasible and the primal-dual method carries on from it (network.sent) at a
    fraction of the cost of finding those units one augmenting path each.
    """
    network = _FlowNetwork()
    source, sink = network.add_node(), network.add_node()
    broker_nodes = [network.add_node() for broker in range(broker_count)]
    sink_edges = []
    room = None
    if broker_capacities is None:
        floor, extra = divmod(total, broker_count)
        pool = network.add_node()
        if loads is not None:
            room = [floor - load for load in loads]
        for position, node in enumerate(broker_nodes):
            sink_edges.append(network.add_edge(node, sink, floor - (loads[position] if loads else 0)))
            if extra:
                network.add_edge(node, pool, 1)
        if extra:
            network.add_edge(pool, sink, extra)
    else:
        for position, node in enumerate(broker_nodes):
            sink_edges.append(network.add_edge(node, sink, broker_capacities[position]))
    arcs, tails = [], []
    for group in groups:
        if group is None:
            arcs.append(None)
            tails.append(None)
            continue
        supply, width, bundles = group
        group_node = network.add_node()
        source_edge = network.add_edge(source, group_node, supply)
        group_arcs, group_tails = [], []
        unsent = supply
        for capacity, brokers, kept, extra in bundles:
            tail = group_node
            tail_edge = None
            if capacity < supply:
                tail = network.add_node()
                tail_edge = network.add_edge(group_node, tail, capacity)
            bundle_unsent = min(capacity, unsent)
            group_tails.append(tail)
            # Brokers are in ascending order; the few kept ones, sorted, come in the same order.
            for broker in sorted(kept):
                if broker in brokers:
                    edge = network.add_edge(tail, broker_nodes[broker], width, 0)
                    group_arcs.append((broker, edge))
                    if room is not None:
                        amount = min(width, bundle_unsent, room[broker])
                        if amount > 0:
                            for path_edge in (source_edge, tail_edge, edge, sink_edges[broker]):
                                if path_edge is not None:
                                    network.capacity[path_edge] -= amount
                                    network.capacity[path_edge ^ 1] += amount
                            room[broker] -= amount
                            bundle_unsent -= amount
                            unsent -= amount
                            network.sent += amount
            for broker in sorted(extra):
                group_arcs.append((broker, network.add_edge(tail, broker_nodes[broker], width, 1)))
        arcs.append(group_arcs)
        tails.append(group_tails)
    return network, arcs, sink_edges, source, sink, tails


# --------------------------------------------------------------------------------------------
# Planning


def _rack_layout(targets, brokers, rack_aware):
    """Target broker positions per rack (sorted by rack name), or None without the rack rule."""
    if not rack_aware:
        return None
    racks = [brokers[broker] for broker in targets]
    if all(rack is None for rack in racks):
        return None
    missing = [broker for broker in targets if brokers[broker] is None]
    if missing:
        raise PlanError(
            "brokers",
            "brokers %s have no rack while other target brokers have one; give every target broker a rack "
            "or plan without rack awareness" % ", ".join(str(broker) for broker in missing),
        )
    layout = {}
    for position, rack in enumerate(racks):
        layout.setdefault(rack, []).append(position)
    return [layout[rack] for rack in sorted(layout)]


def _per_rack_limit(replication_factor, layout):
    """The least c such that at most c replicas per rack (and per rack size) can hold them all."""
    limit = 1
    while sum(min(limit, len(members)) for members in layout) < replication_factor:
        limit += 1
    return limit


def _group_order(grouped):
    """The keys of ``grouped`` in the order groups enter the network: sorted, or, for many groups, in
    the order of their first entry (entries are sorted by topic and partition, so that order too
    is the same whatever order the input was built in; sorting a million keys costs seconds)."""
    if len(grouped) > _MANY_GROUPS:
        return list(grouped)
    return sorted(grouped)


def _place_replicas(entries, targets, layout, new_positions=None):
    """Final replica sets (sorted tuples of broker ids) for every entry, the dual lower bound,
    whether the counts are even (floor/ceil), and the counting bound.

    new_positions (mode add): the only target positions a partition may gain a replica on; it keeps
    any of its current ones, and keeps within a rack at most as many as the rack rule allows or it
    holds there now. None: any target (mode full)."""
    broker_count = len(targets)
    target_set = frozenset(targets)
    grouped = {}
    for index, entry in enumerate(entries):
        replicas = entry[2]
        if target_set.issuperset(replicas):
            key = (entry[3], tuple(sorted(replicas)))
        else:
            key = (entry[3], tuple(sorted(target_set.intersection(replicas))))
        members = grouped.get(key)
        if members is None:
            grouped[key] = [index]
        else:
            members.append(index)
    total = sum(entry[3] for entry in entries)
    if not total:
        return [], 0, True, 0
    position_of = dict((broker, position) for position, broker in enumerate(targets))
    keys = _group_order(grouped)

    held = [0] * broker_count
    missing = 0
    for replication_factor, kept in keys:
        size = len(grouped[(replication_factor, kept)])
        for broker in kept:
            held[position_of[broker]] += size
        missing += size * max(0, replication_factor - len(kept))
    floor, remainder = divmod(total, broker_count)
    ceiling = floor + (1 if remainder else 0)

    # Edges that cost a move start out only where a move is plausible: from groups that lack
    # replicas, sit on a broker above its floor or break the rack rule, to brokers below their
    # ceiling. _transport adds any other edge the dual shows to be useful.
    receivers = set(position for position in range(broker_count) if held[position] < ceiling
                    and (new_positions is None or position in new_positions))
    racks = [tuple(range(broker_count))] if layout is None else [tuple(rack) for rack in layout]
    rack_receivers = [[broker for broker in rack if broker in receivers] for rack in racks]
    # Where a group could move units to, for _joining: every broker, or (mode add) the new ones.
    anywhere = racks[0] if new_positions is None else tuple(sorted(new_positions))
    many = len(keys) > _MANY_GROUPS

    def build(key_index):
        replication_factor, kept = keys[key_index]
        size = len(grouped[(replication_factor, kept)])
        kept_set = set(position_of[broker] for broker in kept)
        if layout is None:
            # The one "rack" is every broker and its limit 1 (spelled out: intersecting with every
            # broker costs more than the rest of the group).
            limit, crowded = 1, len(kept_set) > 1
        else:
            limit = _per_rack_limit(replication_factor, layout)
            crowded = any(len(kept_set.intersection(rack)) > min(limit, len(rack)) for rack in racks)
        movable = len(kept) < replication_factor or crowded or any(held[broker] > floor for broker in kept_set)
        bundles = []
        for rack_index, rack in enumerate(racks):
            capacity = size * replication_factor if layout is None else size * min(limit, len(rack))
            if new_positions is not None:
                # Mode add: a rack crowded now may stay so (the replica that would mend it may not move
                # between old brokers), never more; only kept and new brokers are open.
                rack = tuple(broker for broker in rack if broker in kept_set or broker in new_positions)
                if layout is not None:
                    capacity = max(capacity, size * len(kept_set.intersection(rack)))
            extra = set()
            if movable:
                chosen = [broker for broker in rack_receivers[rack_index] if broker not in kept_set]
                if many and len(chosen) > _FEW_RECEIVERS:
                    # A window turning with the group spreads the groups over the receivers.
                    start = key_index % len(chosen)
                    chosen = (chosen + chosen)[start:start + _FEW_RECEIVERS]
                extra = set(chosen)
            bundles.append((capacity, rack, kept_set, extra))
        return (size * replication_factor, size, bundles)

    left_out = None
    if many:
        rack_of = dict((broker, rack_index) for rack_index, rack in enumerate(racks) for broker in rack)
        candidates = []
        for key_index, (replication_factor, kept) in enumerate(keys):
            if len(kept) != replication_factor:
                continue
            positions = tuple(position_of[broker] for broker in kept)
            if layout is not None:
                limit = _per_rack_limit(replication_factor, layout)
                per_rack = collections.Counter(rack_of[position] for position in positions)
                if any(count > min(limit, len(racks[rack_index])) for rack_index, count in per_rack.items()):
                    continue
            # Without racks a group could move replicas to any target broker (one tuple shared by all).
            candidates.append((key_index, len(grouped[(replication_factor, kept)]), positions,
                               anywhere if layout is None else None))
        left_out = _left_out_groups(candidates, held, floor)
    groups = [None if left_out and key_index in left_out else build(key_index) for key_index in range(len(keys))]
    flows, bound, even = _transport(broker_count, groups, total, left_out, build)

    final_counts = [0] * broker_count
    final_sets = [None] * len(entries)
    for key_index, key in enumerate(keys):
        members = grouped[key]
        size = len(members)
        if flows[key_index] is None:
            # Left out of the network to the end: every partition keeps its replicas.
            for broker in key[1]:
                final_counts[position_of[broker]] += size
            for index in members:
                final_sets[index] = key[1]
            continue
        # Deal the brokers out column by column: row i takes cells i, i + size, i + 2 * size...
        cells = []
        for position, units in flows[key_index]:
            cells.extend([targets[position]] * units)
            final_counts[position] += units
        for row, index in enumerate(members):
            final_sets[index] = tuple(sorted(cells[row::size]))

    if even:
        keepable = sum(min(count, floor) for count in held)
        keepable += min(remainder, sum(1 for count in held if count > floor))
    else:
        keepable = sum(min(count, final_counts[position]) for position, count in enumerate(held))
    counting_bound = max(total - keepable, missing)
    return final_sets, bound, even, counting_bound


def _displaced_rack_limit(need, staying, open_brokers, limit):
    """The least per-rack limit (at least the rack rule's ``limit``) at which the open brokers of each
    rack, below the limit less the replicas staying there, hold ``need`` more replicas."""
    while sum(min(max(0, limit - stay), room) for stay, room in zip(staying, open_brokers, strict=True)) < need:
        limit += 1
    return limit


def _place_displaced(entries, staying, barred, targets, layout):
    """Final replica sets when the replicas in ``staying`` stay and only the others are placed (modes
    remove and fix_offline); with the dual lower bound, whether the counts are even, and the counting bound.

    staying: per entry, the sorted tuple of its brokers that keep their replica. barred: per entry, the
    sorted tuple of target brokers that hold it now but lose the replica (a failed log dir): not a place
    for it. The other replicas of each entry go to target brokers that hold none of it, within its rack
    limit (_displaced_rack_limit: the rack rule's, unless staying replicas crowd a rack or brokers are
    barred). Every one of them is a move and nothing else is, so the moves are their number; the flow
    only chooses where, as evenly as the staying replicas allow (the network of _place_replicas, with
    one node for a group's staying replicas, edges only to them, and one for its displaced ones).
    """
    broker_count = len(targets)
    position_of = dict((broker, position) for position, broker in enumerate(targets))
    racks = [tuple(range(broker_count))] if layout is None else [tuple(rack) for rack in layout]
    grouped = {}
    for index, entry in enumerate(entries):
        grouped.setdefault((entry[3], staying[index], barred[index]), []).append(index)
    keys = _group_order(grouped)
    groups, parts = [], []
    displaced = 0
    for replication_factor, stay, lost in keys:
        size = len(grouped[(replication_factor, stay, lost)])
        stay_positions = set(position_of[broker] for broker in stay)
        stay_part = place_part = None
        if stay:
            stay_part = len(groups)
            ordered = tuple(sorted(stay_positions))
            groups.append((size * len(stay), size, [(size * len(stay), ordered, stay_positions, set())]))
        need = replication_factor - len(stay)
        if need > 0:
            displaced += size * need
            closed = stay_positions.union(position_of[broker] for broker in lost)
            open_by_rack = [tuple(broker for broker in rack if broker not in closed) for rack in racks]
            if layout is None:
                room = [need]
            else:
                stays_by_rack = [len(stay_positions.intersection(rack)) for rack in racks]
                limit = _displaced_rack_limit(need, stays_by_rack, [len(rack) for rack in open_by_rack],
                                              _per_rack_limit(replication_factor, layout))
                room = [min(max(0, limit - stays), len(rack))
                        for stays, rack in zip(stays_by_rack, open_by_rack, strict=True)]
            # Per rack a bundle: its brokers used at most once per partition (width size), the rack at
            # most its room, so dealing out as in _place_replicas keeps both rules.
            bundles = [(size * rack_room, rack, set(), set(rack))
                       for rack, rack_room in zip(open_by_rack, room, strict=True) if rack and rack_room]
            place_part = len(groups)
            groups.append((size * need, size, bundles))
        parts.append((stay_part, place_part))
    total = sum(entry[3] for entry in entries)
    if not total:
        return [], 0, True, 0
    flows, bound, even = _transport(broker_count, groups, total)

    final_sets = [None] * len(entries)
    for key, (_stay_part, place_part) in zip(keys, parts, strict=True):
        members = grouped[key]
        cells = []
        if place_part is not None:
            for position, units in flows[place_part]:
                cells.extend([targets[position]] * units)
        size = len(members)
        for row, index in enumerate(members):
            final_sets[index] = tuple(sorted(key[1] + tuple(cells[row::size])))
    return final_sets, bound, even, displaced


def _choose_leaders(entries, final_sets, targets):
    """A leader (broker id) per entry: balanced, changing as few current leaders as possible.

    final_sets: per entry the brokers that may lead it: its final replica set, or in the modes demote and
    fix_offline part of it (not a demoted broker; the current leader alone where it stays)."""
    grouped = {}
    for index, entry in enumerate(entries):
        final = final_sets[index]
        leader = entry[2][0]
        key = (final, leader if leader in final else -1)
        members = grouped.get(key)
        if members is None:
            grouped[key] = [index]
        else:
            members.append(index)
    leaders = [None] * len(entries)
    if not entries:
        return leaders, True
    position_of = dict((broker, position) for position, broker in enumerate(targets))
    keys = _group_order(grouped)

    def build(key_index):
        final, leader = keys[key_index]
        size = len(grouped[(final, leader)])
        positions = tuple(position_of[broker] for broker in final)
        others = set(position_of[broker] for broker in final if broker != leader)
        kept = set([position_of[leader]]) if leader >= 0 else set()
        return (size, size, [(size, positions, kept, others)])

    left_out = None
    if len(keys) > _MANY_GROUPS:
        # A partition can only be led by a broker of its replica set: brokers short of leaders need
        # groups in the network whose sets hold them.
        held = [0] * len(targets)
        offered = [0] * len(targets)
        candidates = []
        for key_index, (final, leader) in enumerate(keys):
            size = len(grouped[(final, leader)])
            others = tuple([position_of[broker] for broker in final if broker != leader])
            if leader >= 0:
                held[position_of[leader]] += size
                candidates.append((key_index, size, (position_of[leader],), others))
            else:
                for position in others:
                    offered[position] += size
        left_out = _left_out_groups(candidates, held, len(entries) // len(targets), offered)
    groups = [None if left_out and key_index in left_out else build(key_index) for key_index in range(len(keys))]
    flows, unused_bound, even = _transport(len(targets), groups, len(entries), left_out, build)
    for key_index, (final, leader) in enumerate(keys):
        if flows[key_index] is None:
            for index in grouped[(final, leader)]:
                leaders[index] = leader
            continue
        # The current leader's share first, so exactly those partitions keep their leader.
        shares = sorted((targets[position], units) for position, units in flows[key_index])
        shares.sort(key=lambda share: share[0] != leader)
        members = iter(grouped[(final, leader)])
        for broker, units in shares:
            for _unit in range(units):
                leaders[next(members)] = broker
    return leaders, even


def _spread(counts):
    return max(counts) - min(counts) if counts else 0


def _check_sizes(entries, sizes):
    """The size of every entry's partition, from ``{topic: {partition: bytes}}``."""
    if not isinstance(sizes, dict):
        raise PlanError("partition_sizes", "a mapping of topic to {partition: bytes}, got %r" % (sizes,))
    found, missing = [], []
    for topic, partition, _replicas, _wanted in entries:
        by_partition = sizes.get(topic)
        size = None
        if isinstance(by_partition, dict):
            size = by_partition.get(partition, by_partition.get(str(partition)))
        if size is None:
            missing.append("%s-%d" % (topic, partition))
            found.append(0)
        elif not _is_int(size) or size < 0:
            raise PlanError("partition_sizes", "%s-%d: a size in bytes (an integer of at least 0), got %r"
                            % (topic, partition, size))
        else:
            found.append(size)
    if missing:
        raise PlanError("partition_sizes", "no size for %d partitions: %s%s" % (
            len(missing), ", ".join(missing[:10]), ", ..." if len(missing) > 10 else ""))
    return found


def _check_capacities(capacities, targets):
    """{broker: (total bytes, bytes used by data outside the plan or None)} for every target, or None."""
    if capacities is None:
        return None
    if not isinstance(capacities, dict):
        raise PlanError("broker_capacities", "a mapping of broker id to its disks' total bytes, got %r"
                        % (capacities,))
    checked = {}
    for key, value in capacities.items():
        broker = _broker_id(key, "broker_capacities", "a key")
        used = None
        if isinstance(value, dict):
            total, used = value.get("total_bytes"), value.get("used_bytes")
        else:
            total = value
        if not _is_int(total) or total < 1:
            raise PlanError("broker_capacities", "broker %d: total bytes must be an integer of at least 1, got %r"
                            % (broker, total))
        if used is not None and (not _is_int(used) or used < 0):
            raise PlanError("broker_capacities", "broker %d: used_bytes must be an integer of at least 0, got %r"
                            % (broker, used))
        checked[broker] = (total, used)
    missing = [broker for broker in targets if broker not in checked]
    if missing:
        raise PlanError("broker_capacities", "no capacity for target brokers %s; give every target broker one, "
                        "or none" % ", ".join(str(broker) for broker in missing))
    return checked


def check_max_disk_fill(max_disk_fill):
    """The fraction of a disk no broker may pass (0.85 when None), or PlanError naming max_disk_fill."""
    if max_disk_fill is None:
        return 0.85
    if isinstance(max_disk_fill, bool) or not isinstance(max_disk_fill, (int, float)) or not 0 < max_disk_fill <= 1:
        raise PlanError("max_disk_fill", "a fraction of a disk, above 0 and at most 1, got %r" % (max_disk_fill,))
    return max_disk_fill


def _bytes_placement(entries, sizes, targets, layout, capacities, max_disk_fill, **restriction):
    """Final sets and byte figures of the bytes balance (_byte_balance), within max_disk_fill of every disk;
    ``restriction`` holds a mode's rules for balance_bytes (receivers, keep_current, barred, rack_limits)."""
    partition_sizes = _check_sizes(entries, sizes)
    disks = _check_capacities(capacities, targets)
    fill_limit = check_max_disk_fill(max_disk_fill)
    selected_before = {}
    for index, entry in enumerate(entries):
        for broker in entry[2]:
            selected_before[broker] = selected_before.get(broker, 0) + partition_sizes[index]
    weights = base = None
    if disks is not None:
        weights = dict((broker, disks[broker][0]) for broker in targets)
        # What else fills a disk (other topics, other files) stays: the balance and the limit count it.
        base = dict((broker, max(0, (disks[broker][1] or selected_before.get(broker, 0))
                                 - selected_before.get(broker, 0))) for broker in targets)
        wanted = sum(partition_sizes[index] * entry[3] for index, entry in enumerate(entries))
        room = sum(int(fill_limit * disks[broker][0]) - base[broker] for broker in targets)
        if wanted > room:
            raise PlanError("max_disk_fill", "the selected partitions need %d bytes (their replicas), the target "
                                             "brokers have room for %d below %.0f %% of their disks"
                            % (wanted, room, 100 * fill_limit))
    # Imported here: _byte_balance takes the rack rule from this module.
    from ansible_collections.kafkaops.cluster.plugins.module_utils._byte_balance import balance_bytes

    placed = balance_bytes(entries, partition_sizes, targets, layout=layout, weights=weights, base=base,
                           **restriction)
    if disks is not None:
        over = [(broker, placed["bytes_after"][broker] + base[broker], disks[broker][0]) for broker in targets
                if placed["bytes_after"][broker] + base[broker] > fill_limit * disks[broker][0]]
        if over:
            raise PlanError("max_disk_fill", "no plan found within %.0f %% of every disk: %s" % (
                100 * fill_limit, "; ".join("broker %d would hold %d of %d bytes" % row for row in over)))
    placed["fill_limit"] = fill_limit if disks is not None else None
    placed["capacities"] = disks
    placed["base"] = base
    return placed


# --------------------------------------------------------------------------------------------
# Modes (the module docstring, "Modes")

MODES = ("full", "add", "remove", "demote", "fix_offline")
# How many partitions a summary names where it lists them (it always gives their number).
_NAMED = 100


def check_mode_options(mode, broker_list=None, replication_factor=None, new_brokers=None, demote_brokers=None,
                       offline_replicas=None):
    """Refuse options that do not go with ``mode``, naming the option; needs no cluster (the module calls it
    before connecting, the planner again)."""
    if mode not in MODES:
        raise PlanError("mode", "one of %s, got %r" % (", ".join(MODES), mode))
    if broker_list is None and mode in ("full", "add", "remove"):
        raise PlanError("broker_list", "needed with mode=%s: the brokers that hold the topics after the plan" % mode)
    if broker_list is not None and mode == "demote":
        raise PlanError("broker_list", "does not go with mode=demote, which keeps every replica where it is and "
                                       "only changes which one leads; name the brokers in demote_brokers")
    if replication_factor is not None and mode != "full":
        raise PlanError("replication_factor", "goes with mode=full only: mode=%s keeps every partition's "
                                              "replication factor" % mode)
    if new_brokers is not None:
        if mode != "add":
            raise PlanError("new_brokers", "goes with mode=add only, not mode=%s" % mode)
        sorted(parse_broker_list(new_brokers, field="new_brokers"))
    if mode == "demote" and not demote_brokers:
        raise PlanError("demote_brokers", "needed with mode=demote: the brokers that should lead no partition")
    if demote_brokers is not None:
        if mode != "demote":
            raise PlanError("demote_brokers", "goes with mode=demote only, not mode=%s" % mode)
        parse_broker_list(demote_brokers, field="demote_brokers")
    if offline_replicas is not None and mode != "fix_offline":
        raise PlanError("offline_replicas", "goes with mode=fix_offline only, not mode=%s" % mode)


def _named(labels):
    return ", ".join(labels[:10]) + (", ..." if len(labels) > 10 else "")


def _holders(entries):
    return set(itertools.chain.from_iterable(entry[2] for entry in entries))


def _new_brokers(entries, targets, new_brokers):
    """Mode add: the brokers that may receive replicas, checked against the holders and broker_list."""
    holders = _holders(entries)
    outside = sorted(holders - set(targets))
    if outside:
        raise PlanError("broker_list", "mode=add moves replicas only onto new brokers, but brokers %s hold replicas "
                                       "of the selected topics and are not in broker_list; list them too, or use "
                                       "mode=remove to empty them" % ", ".join(str(broker) for broker in outside))
    if new_brokers is None:
        new = [broker for broker in targets if broker not in holders]
        if not new:
            raise PlanError("broker_list", "mode=add: broker_list adds no new broker (every broker listed holds "
                                           "replicas of the selected topics now); name the brokers to fill in "
                                           "new_brokers, or use mode=full")
        return new
    new = sorted(parse_broker_list(new_brokers, field="new_brokers"))
    unlisted = [broker for broker in new if broker not in set(targets)]
    if unlisted:
        raise PlanError("new_brokers", "brokers %s are not in broker_list" % ", ".join(str(b) for b in unlisted))
    return new


def _leaving_brokers(entries, targets):
    """Mode remove: the brokers that hold replicas of the selected topics and are not targets. None is not an
    error: a run again after the moves (decommission.yml's, say) finds the leaving brokers empty, and its plan is
    empty too."""
    return sorted(_holders(entries) - set(targets))


def _offline_sets(offline_replicas, current, selected):
    """``{(topic, partition): set of brokers}`` from ``{topic: {partition: [broker ids]}}``: the replicas on
    failed log dirs of live brokers. Every named replica must exist."""
    if offline_replicas is None:
        return {}
    if not isinstance(offline_replicas, dict):
        raise PlanError("offline_replicas", "a mapping of topic to {partition: [broker ids]}, got %r"
                        % (offline_replicas,))
    offline = {}
    for topic, partitions in offline_replicas.items():
        if not isinstance(partitions, dict):
            raise PlanError("offline_replicas", "topic %s: a mapping of partition to broker ids" % (topic,))
        for partition, brokers in partitions.items():
            replicas = current.get(topic, {}).get(partition)
            if replicas is None:
                raise PlanError("offline_replicas", "%s-%s is not a partition of the assignment" % (topic, partition))
            if not isinstance(brokers, (list, tuple)):
                raise PlanError("offline_replicas", "%s-%d: a list of broker ids" % (topic, partition))
            for broker in brokers:
                if broker not in replicas:
                    raise PlanError("offline_replicas", "%s-%d: broker %r holds no replica of it (replicas %s)"
                                    % (topic, partition, broker, list(replicas)))
            if topic in selected and brokers:
                offline[(topic, partition)] = set(brokers)
    return offline


def _offline_rules(entries, live, targets, offline, broker_list_given):
    """Mode fix_offline: per entry the brokers whose replica stays and the target brokers it is lost on,
    the entries to place, and the labels of those with no replica left to copy from."""
    target_set = set(targets)
    staying, barred, placing, lost_all, outside = [], [], [], [], set()
    replicas_down = 0
    for index, (topic, partition, replicas, _wanted) in enumerate(entries):
        failed = offline.get((topic, partition), ())
        stay = tuple(sorted(broker for broker in replicas if broker in live and broker not in failed))
        down = len(replicas) - len(stay)
        staying.append(stay)
        barred.append(tuple(sorted(broker for broker in failed if broker in target_set)))
        outside.update(broker for broker in stay if broker not in target_set)
        if not stay:
            # Nothing to copy from: a new replica could never catch up. Left as it is, and named.
            lost_all.append("%s-%d" % (topic, partition))
            continue
        placing.append(index)
        replicas_down += down
        free = len(target_set) - len(stay) - len(barred[-1])
        if down > free:
            raise PlanError("broker_list", "%s-%d: %d offline replicas to place but only %d of the %s hold none of its "
                                           "replicas" % (topic, partition, down, free, "brokers in broker_list"
                                                         if broker_list_given else "live brokers"))
    if outside:
        names = ", ".join(str(broker) for broker in sorted(outside))
        raise PlanError("broker_list", "mode=fix_offline moves only offline replicas, but live brokers %s hold "
                                       "replicas of the selected topics and are not in broker_list (leave broker_list "
                                       "unset to place on any live broker)" % names)
    return staying, barred, placing, lost_all, replicas_down


def _demote_rules(entries, live, demote_brokers):
    """Mode demote: per entry the brokers that may lead it (not demoted; empty where every replica is)."""
    demoted = set(demote_brokers)
    unknown = sorted(demoted - set(live) - _holders(entries))
    if unknown:
        raise PlanError("demote_brokers", "unknown broker ids %s: neither live brokers nor holding replicas of the "
                                          "selected topics" % ", ".join(str(broker) for broker in unknown))
    if not set(live) - demoted:
        raise PlanError("demote_brokers", "names every live broker; at least one must be left to lead")
    return [tuple(sorted(broker for broker in entry[2] if broker not in demoted)) for entry in entries]


def _subset(items, indices):
    return [items[index] for index in indices]


def _spread_back(values, indices, length, default):
    """A list of ``length`` items: ``values`` at ``indices``, ``default(i)`` elsewhere."""
    result = [default(index) for index in range(length)]
    for value, index in zip(values, indices, strict=True):
        result[index] = value
    return result


def _demote(entries, live, demote_brokers):
    """Mode demote: (final sets, leaders, whether leaders are even, summary figures); no replica moves."""
    eligible = _demote_rules(entries, live, demote_brokers)
    choosing = [index for index, brokers in enumerate(eligible) if brokers]
    impossible = ["%s-%d" % entries[index][:2] for index, brokers in enumerate(eligible) if not brokers]
    leader_brokers = sorted(set(itertools.chain.from_iterable(eligible)))
    chosen, even = _choose_leaders(_subset(entries, choosing), _subset(eligible, choosing), leader_brokers)
    leaders = _spread_back(chosen, choosing, len(entries), lambda index: entries[index][2][0])
    final_sets = [tuple(sorted(entry[2])) for entry in entries]
    return final_sets, leaders, even, dict(demote_brokers=sorted(demote_brokers), demote_impossible=len(impossible),
                                           demote_impossible_partitions=impossible[:_NAMED],
                                           leading_brokers=leader_brokers)


def _placement(mode, entries, live, targets, layout, broker_list_given, new_brokers, offline, balance, sizes,
               capacities, max_disk_fill):
    """Final replica sets of the modes that place replicas (full, add, remove, fix_offline), the brokers that
    may lead each entry, the bytes figures (None by replicas), the lower bound on replica moves (None by
    bytes), whether the counts are even, the counting bound and the mode's summary figures."""
    position_of = dict((broker, position) for position, broker in enumerate(targets))
    target_set = set(targets)
    placing = list(range(len(entries)))
    restriction, mode_summary = {}, {}
    staying = barred = None
    if mode == "add":
        new = _new_brokers(entries, targets, new_brokers)
        mode_summary["new_brokers"] = new
        restriction = dict(receivers=new)
    elif mode == "remove":
        mode_summary["leaving_brokers"] = _leaving_brokers(entries, targets)
        staying = [tuple(sorted(broker for broker in entry[2] if broker in target_set)) for entry in entries]
        barred = [()] * len(entries)
    elif mode == "fix_offline":
        staying, barred, placing, lost_all, replicas_down = _offline_rules(entries, live, targets, offline,
                                                                           broker_list_given)
        mode_summary.update(offline_replicas=replicas_down, offline_unrecoverable=len(lost_all),
                            offline_unrecoverable_partitions=lost_all[:_NAMED])
    if staying is not None:
        restriction = dict(keep_current=True, barred=_subset(barred, placing))
        if layout is not None:
            restriction["rack_limits"] = [_staying_rack_limit(entries[index][3], staying[index], barred[index],
                                                              position_of, layout) for index in placing]
    placed = None
    chosen_entries = _subset(entries, placing)
    if balance == "bytes":
        placed = _bytes_placement(chosen_entries, sizes, targets, layout, capacities, max_disk_fill, **restriction)
        chosen, bound, counting_bound = placed["final_sets"], None, None
        counts = collections.Counter(itertools.chain.from_iterable(chosen))
        even = _spread([counts[broker] for broker in targets]) <= 1
    elif staying is not None:
        # Partitions fix_offline leaves alone (nothing to copy from) stay in the replica lists of live brokers:
        # in the network as replicas that stay, so that the counts balance with them.
        network_entries, network_staying = list(entries), list(staying)
        for index in sorted(set(range(len(entries))) - set(placing)):
            listed = tuple(sorted(broker for broker in entries[index][2] if broker in target_set))
            network_entries[index] = entries[index][:3] + (len(listed),)
            network_staying[index] = listed
        chosen, bound, even, counting_bound = _place_displaced(network_entries, network_staying, barred, targets,
                                                               layout)
        chosen = _subset(chosen, placing)
    else:
        new_positions = None
        if mode == "add":
            new_positions = frozenset(position_of[broker] for broker in restriction["receivers"])
        chosen, bound, even, counting_bound = _place_replicas(chosen_entries, targets, layout, new_positions)
    final_sets = _spread_back(chosen, placing, len(entries), lambda index: tuple(sorted(entries[index][2])))
    eligible = _spread_back(chosen, placing, len(entries), lambda index: ())
    if mode == "fix_offline":
        # Only partitions whose leader is lost get a new one: fixing offline replicas changes nothing else.
        for index in placing:
            leader = entries[index][2][0]
            if leader in staying[index]:
                eligible[index] = (leader,)
    return final_sets, eligible, placed, bound, even, counting_bound, mode_summary


def _staying_rack_limit(replication_factor, stay, lost, position_of, layout):
    """The rack limit of a partition whose replicas on ``stay`` stay and on ``lost`` are lost
    (_displaced_rack_limit), for the bytes balance."""
    stay_positions = set(position_of[broker] for broker in stay)
    closed = stay_positions.union(position_of[broker] for broker in lost)
    return _displaced_rack_limit(replication_factor - len(stay),
                                 [len(stay_positions.intersection(rack)) for rack in layout],
                                 [sum(1 for broker in rack if broker not in closed) for rack in layout],
                                 _per_rack_limit(replication_factor, layout))


def _round_down(value, digits):
    """value rounded down to digits decimals (a bound rounded up could claim more than it proves), or None."""
    if value is None:
        return None
    scale = 10 ** digits
    return math.floor(value * scale) / scale


def plan_reassignment(assignment, brokers, broker_list, topics=None, replication_factor=None, rack_aware=True,
                      balance="replicas", sizes=None, capacities=None, max_disk_fill=None, mode="full",
                      new_brokers=None, demote_brokers=None, offline_replicas=None):
    """Plan a reassignment of ``topics`` onto ``broker_list``, in one of the modes (module docstring).

    assignment: ``{topic: {partition: [replica broker ids, leader first]}}`` (see
        assignment_from_kafka_json for Kafka's JSON format).
    brokers: live brokers, ``{broker_id: rack or None}`` or a list of ids.
    broker_list: target brokers, list of ints or ``"1001,1002,1003"``.
    topics: names (list or comma-separated string) of the topics to move; default all.
    replication_factor: new replication factor for every selected partition; default unchanged.
    rack_aware: apply the rack rule when the target brokers have racks.
    balance: ``"replicas"`` (the replica counts, with the fewest moves: this module's docstring) or
        ``"bytes"`` (the fill of the disks, copying as few bytes as the balance allows: _byte_balance).
    sizes: ``{topic: {partition: bytes}}`` (a partition's largest replica), needed for ``"bytes"``.
    capacities: ``{broker: total bytes}`` or ``{broker: {"total_bytes": ..., "used_bytes": ...}}`` for
        every target broker (``"bytes"`` only): the brokers are then filled in proportion to their
        disks, counting what else the disks hold (used bytes beyond the selected partitions), and no
        broker may end above ``max_disk_fill`` (a fraction, default 0.85) of its disks.
    mode: ``"full"`` (default), ``"add"``, ``"remove"``, ``"demote"`` or ``"fix_offline"``. broker_list may be
        None with ``"fix_offline"`` (every live broker) and must be with ``"demote"``; replication_factor goes
        with ``"full"`` only.
    new_brokers (``"add"``): the brokers that may receive replicas; default those of broker_list holding none of
        the selected partitions.
    demote_brokers (``"demote"``): the brokers that should lead no partition.
    offline_replicas (``"fix_offline"``): ``{topic: {partition: [broker ids]}}``, replicas on failed log dirs of
        live brokers (replicas on brokers that are not live are offline anyway).

    Returns a dict (the module docstring defines the terms):

    plan: ``{"version": 1, "partitions": [{"topic", "partition", "replicas"}, ...]}``, sorted by
        topic and partition, only the partitions whose replica list changes.
    rollback_plan: the same partitions with their current replica lists.
    summary: ``balance``, ``topics``, ``partitions`` (selected), ``replicas`` (N), ``partitions_changed``,
        ``replica_moves``, ``lower_bound`` and ``counting_bound`` (``"replicas"`` only, else None),
        ``leaders_changed``, ``rack_aware``, ``replicas_even`` and ``leaders_even`` (False only where racks
        or replica sets forbid the floor/ceil split), ``replica_spread_before/after`` and
        ``leader_spread_before/after`` (max - min over the target brokers, counting the selected topics
        only), and ``brokers``: one row per live or current broker, ``{"broker", "rack", "live",
        "target", "replicas_before", "replicas_after", "leaders_before", "leaders_after"}``, sorted by
        broker id. With ``"bytes"`` also ``bytes_moved``, ``bytes_moved_lower_bound``,
        ``imbalance_before`` and ``imbalance_after`` (largest fill over mean fill of the targets),
        ``imbalance_lower_bound`` (no placement reaches a lower imbalance; _byte_balance argues it),
        ``max_disk_fill`` and per broker ``bytes_before``, ``bytes_after`` (the selected partitions'),
        ``capacity_bytes`` and ``other_bytes`` (None without capacities). Always ``mode``; with ``"add"``
        ``new_brokers``, with ``"remove"`` ``leaving_brokers``, with ``"demote"`` ``demote_brokers`` and
        ``demote_impossible`` (how many partitions have only demoted replicas, so keep their leader) with
        ``demote_impossible_partitions`` (the first 100 of them), with ``"fix_offline"`` ``offline_replicas``
        (how many were placed again) and ``offline_unrecoverable`` (partitions with no replica left to copy
        from, left as they are) with ``offline_unrecoverable_partitions`` (the first 100).

    Raises PlanError(field, message) for bad input; ``field`` is the argument's name.
    """
    check_mode_options(mode, broker_list, replication_factor, new_brokers, demote_brokers, offline_replicas)
    current = _normalise_assignment(assignment)
    live = _normalise_brokers(brokers)
    selected = _select_topics(topics, current)
    if broker_list is not None:
        targets = sorted(parse_broker_list(broker_list, live))
    elif mode == "demote":
        # The brokers that may lead: every holder of the selected partitions that is not demoted (_demote).
        targets = None
    else:
        targets = sorted(live)
    if replication_factor is not None and (not _is_int(replication_factor) or replication_factor < 1):
        raise PlanError("replication_factor", "must be an integer of at least 1, got %r" % (replication_factor,))
    if balance not in ("replicas", "bytes"):
        raise PlanError("balance", "replicas or bytes, got %r" % (balance,))
    if balance == "replicas" and (sizes is not None or capacities is not None or max_disk_fill is not None):
        raise PlanError("balance", "partition sizes, broker capacities and max_disk_fill go with balance=bytes")

    entries = []
    for topic in selected:
        partitions = current[topic]
        for partition in sorted(partitions):
            replicas = partitions[partition]
            entries.append((topic, partition, replicas, replication_factor or len(replicas)))
        wanted = replication_factor or max([len(replicas) for replicas in partitions.values()] or [0])
        if mode != "demote" and wanted > len(targets):
            raise PlanError(
                "broker_list",
                "topic %s needs %d replicas per partition (replication factor %d) but %s only %d brokers"
                % (topic, wanted, wanted, "broker_list names" if broker_list is not None else "there are",
                   len(targets)),
            )

    if mode == "demote":
        final_sets, leaders, leaders_even, mode_summary = _demote(entries, live, demote_brokers)
        targets = mode_summary.pop("leading_brokers")
        layout, placed, bound, counting_bound = None, None, 0, 0
        counts = collections.Counter(itertools.chain.from_iterable(final_sets))
        even = _spread([counts[broker] for broker in targets]) <= 1
    else:
        layout = _rack_layout(targets, live, rack_aware)
        final_sets, eligible, placed, bound, even, counting_bound, mode_summary = _placement(
            mode, entries, live, targets, layout, broker_list is not None, new_brokers,
            _offline_sets(offline_replicas, current, set(selected)), balance, sizes, capacities, max_disk_fill)
        # Entries without brokers to choose from (fix_offline: nothing left to copy) keep their leader.
        choosing = [index for index, brokers in enumerate(eligible) if brokers]
        chosen, leaders_even = _choose_leaders(_subset(entries, choosing), _subset(eligible, choosing), targets)
        leaders = _spread_back(chosen, choosing, len(entries), lambda index: entries[index][2][0])

    plan, rollback = [], []
    moves = leaders_changed = 0
    for index, (topic, partition, replicas, _wanted) in enumerate(entries):
        final = final_sets[index]
        leader = leaders[index]
        final_set = set(final)
        # Leader first, then the kept replicas in their current order, then the new ones.
        rest = [broker for broker in replicas if broker in final_set and broker != leader]
        kept = len(rest) + (1 if leader in replicas else 0)
        if kept < len(final):
            moves += len(final) - kept
            held = set(replicas)
            rest.extend(broker for broker in final if broker not in held and broker != leader)
        if leader != replicas[0]:
            leaders_changed += 1
        elif kept == len(final) == len(replicas) and tuple(rest) == replicas[1:]:
            continue
        new_list = [leader] + rest
        plan.append({"topic": topic, "partition": partition, "replicas": new_list})
        rollback.append({"topic": topic, "partition": partition, "replicas": list(replicas)})

    replicas_before = collections.Counter(itertools.chain.from_iterable(entry[2] for entry in entries))
    replicas_after = collections.Counter(itertools.chain.from_iterable(final_sets))
    leaders_before = collections.Counter(entry[2][0] for entry in entries)
    leaders_after = collections.Counter(leaders)
    target_set = set(targets)
    broker_rows = []
    for broker in sorted(set(live) | set(replicas_before)):
        row = {
            "broker": broker,
            "rack": live.get(broker),
            "live": broker in live,
            "target": broker in target_set,
            "replicas_before": replicas_before[broker],
            "replicas_after": replicas_after[broker],
            "leaders_before": leaders_before[broker],
            "leaders_after": leaders_after[broker],
        }
        if placed is not None:
            disk = (placed["capacities"] or {}).get(broker)
            row.update(bytes_before=placed["bytes_before"].get(broker, 0),
                       bytes_after=placed["bytes_after"].get(broker, 0), capacity_bytes=disk[0] if disk else None,
                       other_bytes=placed["base"].get(broker) if placed["base"] else None)
        broker_rows.append(row)
    summary = {
        "mode": mode,
        "balance": balance,
        "topics": len(selected),
        "partitions": len(entries),
        "replicas": sum(entry[3] for entry in entries),
        "partitions_changed": len(plan),
        "replica_moves": moves,
        "lower_bound": bound,
        "counting_bound": counting_bound,
        "leaders_changed": leaders_changed,
        "rack_aware": layout is not None,
        "replicas_even": even,
        "leaders_even": leaders_even,
        "replica_spread_before": _spread([replicas_before[broker] for broker in targets]),
        "replica_spread_after": _spread([replicas_after[broker] for broker in targets]),
        "leader_spread_before": _spread([leaders_before[broker] for broker in targets]),
        "leader_spread_after": _spread([leaders_after[broker] for broker in targets]),
        "brokers": broker_rows,
    }
    summary.update(mode_summary)
    if balance == "bytes" and placed is None:
        # demote copies nothing.
        summary.update(bytes_moved=0, bytes_moved_lower_bound=0)
    if placed is not None:
        summary.update(bytes_moved=placed["bytes_moved"], bytes_moved_lower_bound=placed["bytes_moved_lower_bound"],
                       imbalance_before=round(placed["imbalance_before"], 4),
                       imbalance_after=round(placed["imbalance_after"], 4),
                       imbalance_lower_bound=_round_down(placed["imbalance_lower_bound"], 4),
                       max_disk_fill=placed["fill_limit"])
    return {
        "plan": {"version": 1, "partitions": plan},
        "rollback_plan": {"version": 1, "partitions": rollback},
        "summary": summary,
    }
