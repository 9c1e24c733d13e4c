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

Determinism and speed
---------------------
Every collection is sorted before it is walked; no set or dict order, no randomness: the same input
gives the same plan, whatever order the input mappings were built in.

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
2.5 s of CPU): slower, never less exact.
"""

from __future__ import absolute_import, division, print_function


import collections
import heapq
import itertools
import json

_UNREACHED = 1 << 62
_INT_ONLY = set([int])


class PlanError(Exception):
    """An input the planner cannot use; ``field`` names the offending input."""

    def __init__(self, field, message):
        super(PlanError, self).__init__("%s: %s" % (field, message))
        self.field = field
        self.message = message


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
            if not _is_int(partition) or partition < 0:
                message = "topic %s: partition %r is not a non-negative integer" % (topic, partition)
                raise PlanError("assignment", message)
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
            checked[partition] = tuple(replicas)
        normalised[topic] = checked
    return normalised


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


def parse_broker_list(broker_list, brokers=None):
    """Target brokers as ints, in the given order.

    ``broker_list`` is a list of ints or a comma-separated string such as ``"1001,1002,1003"`` (the
    form Kafka's reassignment tool takes). With ``brokers`` (live broker ids, or a mapping whose
    keys are), every listed broker must be live. Raises PlanError("broker_list", ...).
    """
    if isinstance(broker_list, str):
        items = [item.strip() for item in broker_list.split(",")]
        parsed = []
        for item in items:
            if not item.isdigit():
                raise PlanError("broker_list", "%r is not a broker id (expected e.g. \"1001,1002,1003\")" % item)
            parsed.append(int(item))
    elif isinstance(broker_list, (list, tuple)):
        parsed = list(broker_list)
        for broker in parsed:
            _broker_id(broker, "broker_list", "broker_list")
    else:
        raise PlanError("broker_list", "expected a list of broker ids or a comma-separated string")
    if not parsed:
        raise PlanError("broker_list", "no broker listed")
    seen = set()
    for broker in parsed:
        if broker in seen:
            raise PlanError("broker_list", "broker %d is listed twice" % broker)
        seen.add(broker)
    if brokers is not None:
        missing = sorted(broker for broker in parsed if broker not in brokers)
        if missing:
            raise PlanError("broker_list", "not a live broker: %s" % ", ".join(str(broker) for broker in missing))
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
    assignment = {}
    for entry in document["partitions"]:
        if not isinstance(entry, dict) or not all(key in entry for key in ("topic", "partition", "replicas")):
            raise PlanError("assignment", "every partition entry needs topic, partition and replicas: %r" % (entry,))
        topic, partition = entry["topic"], entry["partition"]
        if not isinstance(topic, str) or not _is_int(partition):
            raise PlanError("assignment", "bad topic or partition in %r" % (entry,))
        partitions = assignment.setdefault(topic, {})
        if partition in partitions:
            raise PlanError("assignment", "%s-%d is listed twice" % (topic, partition))
        replicas = entry["replicas"]
        partitions[partition] = list(replicas) if isinstance(replicas, (list, tuple)) else replicas
    _normalise_assignment(assignment)
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


def _transport(broker_count, groups, total):
    """Send ``total`` units from groups to brokers at least cost, as evenly as possible.

    ``groups`` is a list of (supply, width, bundles). A bundle is (capacity, brokers, kept, extra):
    the group may send up to ``width`` units to each of ``brokers`` (broker positions), at most
    ``capacity`` to all of them together, at cost 0 to brokers in ``kept`` and 1 to the others.
    Only ``kept`` and the brokers in the set ``extra`` get an edge at first; an omitted edge is added
    (to ``extra``) when the dual potentials show it could lower the cost (negative reduced cost), so
    the result is optimal for the complete network. Returns the flows per group as lists of
    (broker, units), the dual lower bound, and whether the even split (floor/ceil of total /
    broker_count) was possible.
    """
    while True:
        network, arcs, sink_edges, source, sink, tails = _build_transport(broker_count, groups, total, None)
        if network.send(source, sink, total) < total:
            if _include_everything(groups):
                continue
            break
        if not _include_violated(network, groups, tails):
            flows = [[(broker, network.flow(edge)) for broker, edge in group_arcs] for group_arcs in arcs]
            return flows, network.dual_bound(source, sink, total), True

    # The rack rule rules out the even split: even out the counts as far as it allows, then fix them.
    unlimited = [total] * broker_count
    network, arcs, sink_edges, source, sink, tails = _build_transport(broker_count, groups, total, unlimited)
    if network.send(source, sink, total) < total:
        raise PlanError("broker_list", "no placement satisfies the rack rule (internal error, please report)")
    loads = network.even_out(list(range(2, 2 + broker_count)), sink_edges, set([source, sink]))
    network, arcs, sink_edges, source, sink, tails = _build_transport(broker_count, groups, total, loads)
    if network.send(source, sink, total) < total:
        raise PlanError("broker_list", "evened-out counts are not reachable (internal error, please report)")
    flows = [[(broker, network.flow(edge)) for broker, edge in group_arcs] for group_arcs in arcs]
    return flows, network.dual_bound(source, sink, total), False


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


def _build_transport(broker_count, groups, total, broker_capacities):
    """The network of _transport: with ``broker_capacities`` None, floor/ceil through a pool."""
    network = _FlowNetwork()
    source, sink = network.add_node(), network.add_node()
    broker_nodes = [network.add_node() for broker in range(broker_count)]
    sink_edges = []
    if broker_capacities is None:
        floor, extra = divmod(total, broker_count)
        pool = network.add_node()
        for node in broker_nodes:
            sink_edges.append(network.add_edge(node, sink, floor))
            if extra:
                network.add_edge(node, pool, 1)
        if extra:
            network.add_edge(pool, sink, extra)
    else:
        for position, node in enumerate(broker_nodes):
            sink_edges.append(network.add_edge(node, sink, broker_capacities[position]))
    arcs, tails = [], []
    for supply, width, bundles in groups:
        group_node = network.add_node()
        network.add_edge(source, group_node, supply)
        group_arcs, group_tails = [], []
        for capacity, brokers, kept, extra in bundles:
            tail = group_node
            if capacity < supply:
                tail = network.add_node()
                network.add_edge(group_node, tail, capacity)
            group_tails.append(tail)
            for broker in brokers:
                if broker in kept:
                    group_arcs.append((broker, network.add_edge(tail, broker_nodes[broker], width, 0)))
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


def _place_replicas(entries, targets, layout):
    """Final replica sets (sorted tuples of broker ids) for every entry, the dual lower bound,
    whether the counts are even (floor/ceil), and the counting bound."""
    broker_count = len(targets)
    target_set = frozenset(targets)
    grouped = {}
    for index, entry in enumerate(entries):
        key = (entry[3], tuple(sorted(target_set.intersection(entry[2]))))
        members = grouped.get(key)
        if members is None:
            grouped[key] = [index]
        else:
            members.append(index)
    total = sum(entry[3] for entry in entries)
    if not total:
        return [], 0, True, 0
    position_of = dict((broker, position) for position, broker in enumerate(targets))
    keys = sorted(grouped)

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
    receivers = set(position for position in range(broker_count) if held[position] < ceiling)
    racks = [tuple(range(broker_count))] if layout is None else [tuple(rack) for rack in layout]
    groups = []
    for replication_factor, kept in keys:
        size = len(grouped[(replication_factor, kept)])
        kept_set = set(position_of[broker] for broker in kept)
        limit = 1 if layout is None else _per_rack_limit(replication_factor, layout)
        crowded = any(len(kept_set.intersection(rack)) > min(limit, len(rack)) for rack in racks)
        movable = len(kept) < replication_factor or crowded or any(held[broker] > floor for broker in kept_set)
        bundles = []
        for rack in racks:
            capacity = size * replication_factor if layout is None else size * min(limit, len(rack))
            extra = set()
            if movable:
                extra = set(broker for broker in rack if broker in receivers and broker not in kept_set)
            bundles.append((capacity, rack, kept_set, extra))
        groups.append((size * replication_factor, size, bundles))
    flows, bound, even = _transport(broker_count, groups, total)

    final_counts = [0] * broker_count
    final_sets = [None] * len(entries)
    for key_index, key in enumerate(keys):
        members = grouped[key]
        size = len(members)
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


def _choose_leaders(entries, final_sets, targets):
    """A leader (broker id) per entry: balanced, changing as few current leaders as possible."""
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
    keys = sorted(grouped)
    groups = []
    for final, leader in keys:
        size = len(grouped[(final, leader)])
        positions = tuple(position_of[broker] for broker in final)
        others = set(position_of[broker] for broker in final if broker != leader)
        kept = set([position_of[leader]]) if leader >= 0 else set()
        groups.append((size, size, [(size, positions, kept, others)]))
    flows, unused_bound, even = _transport(len(targets), groups, len(entries))
    for key_index, (final, leader) in enumerate(keys):
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


def plan_reassignment(assignment, brokers, broker_list, topics=None, replication_factor=None, rack_aware=True):
    """Plan a reassignment of ``topics`` onto ``broker_list``.

    assignment: ``{topic: {partition: [replica broker ids, leader first]}}`` (see
        assignment_from_kafka_json for Kafka's JSON format).
    brokers: live brokers, ``{broker_id: rack or None}`` or a list of ids.
    broker_list: target brokers, list of ints or ``"1001,1002,1003"``.
    topics: names (list or comma-separated string) of the topics to move; default all.
    replication_factor: new replication factor for every selected partition; default unchanged.
    rack_aware: apply the rack rule when the target brokers have racks.

    Returns a dict (the module docstring defines the terms):

    plan: ``{"version": 1, "partitions": [{"topic", "partition", "replicas"}, ...]}``, sorted by
        topic and partition, only the partitions whose replica list changes.
    rollback_plan: the same partitions with their current replica lists.
    summary: ``topics``, ``partitions`` (selected), ``replicas`` (N), ``partitions_changed``,
        ``replica_moves``, ``lower_bound``, ``counting_bound``, ``leaders_changed``, ``rack_aware``,
        ``replicas_even`` and ``leaders_even`` (False only where racks or replica sets forbid the
        floor/ceil split), ``replica_spread_before/after`` and ``leader_spread_before/after`` (max -
        min over the target brokers, counting the selected topics only), and ``brokers``: one row
        per live or current broker, ``{"broker", "rack", "live", "target", "replicas_before",
        "replicas_after", "leaders_before", "leaders_after"}``, sorted by broker id.

    Raises PlanError(field, message) for bad input; ``field`` is the argument's name.
    """
    current = _normalise_assignment(assignment)
    live = _normalise_brokers(brokers)
    selected = _select_topics(topics, current)
    targets = sorted(parse_broker_list(broker_list, live))
    if replication_factor is not None and (not _is_int(replication_factor) or replication_factor < 1):
        raise PlanError("replication_factor", "must be an integer of at least 1, got %r" % (replication_factor,))

    entries = []
    for topic in selected:
        partitions = current[topic]
        for partition in sorted(partitions):
            replicas = partitions[partition]
            entries.append((topic, partition, replicas, replication_factor or len(replicas)))
        wanted = replication_factor or max([len(replicas) for replicas in partitions.values()] or [0])
        if wanted > len(targets):
            raise PlanError(
                "broker_list",
                "topic %s needs %d replicas per partition (replication factor %d) but broker_list names only %d "
                "brokers" % (topic, wanted, wanted, len(targets)),
            )

    layout = _rack_layout(targets, live, rack_aware)
    final_sets, bound, even, counting_bound = _place_replicas(entries, targets, layout)
    leaders, leaders_even = _choose_leaders(entries, final_sets, targets)

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
        broker_rows.append(
            {
                "broker": broker,
                "rack": live.get(broker),
                "live": broker in live,
                "target": broker in target_set,
                "replicas_before": replicas_before[broker],
                "replicas_after": replicas_after[broker],
                "leaders_before": leaders_before[broker],
                "leaders_after": leaders_after[broker],
            }
        )
    summary = {
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
    return {
        "plan": {"version": 1, "partitions": plan},
        "rollback_plan": {"version": 1, "partitions": rollback},
        "summary": summary,
    }
