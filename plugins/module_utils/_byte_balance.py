# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Replica placement that balances bytes, not replica counts (issue 35): pure functions, no I/O.

The replica-count planner (_reassignment_planner) makes every broker hold the same number of replicas
with the fewest moves. Disks fill with bytes: one large topic moved onto a new broker leaves it far
fuller than the others while the counts are even. Here every partition has a size (its largest
replica, as DescribeLogDirs reports it) and every target broker a weight (its log dirs' total bytes,
or 1 each when unknown); a broker's *fill* is its bytes over its weight.

Terms
-----
* ``S_i``: the size of partition i; ``C_i`` its current replicas, ``R_i`` its replicas after the plan.
* ``bytes_moved``: the sum over partitions of ``S_i * |R_i - C_i|``, every byte copied onto a broker
  that does not hold the partition. Dropping a replica copies nothing.
* ``L_b``: the bytes broker b holds of the selected partitions, plus what else its disks hold when
  that is known (never moved); ``w_b`` its weight; ``f_b = L_b / w_b``.
* ``imbalance``: the largest fill over the mean fill (sum of L over sum of w) of the target brokers;
  1.0 is perfect.

How the placement is found
--------------------------
1. Forced changes: replicas on brokers that are not targets, replicas beyond the wanted replication
   factor and replicas that break the rack rule leave (the excess ones from the fullest brokers);
   missing replicas are placed, the largest partitions first, each on the least full broker that may
   take it (not holding the partition, its rack below the partition's per-rack limit, its replica
   count below the ceiling).
2. Moves: while a broker h (the fullest first) can give one of its replicas to a less full broker l
   so that ``sum over b of L_b^2 / w_b`` falls (for equal weights: the replica is smaller than the two
   loads' difference), it gives the one whose size best fits what h holds above its share and l below
   it: the largest that fits, or else the smallest that still lowers the sum. Where no single replica
   may go (its partition is there already, the rack is full, a count would leave its window), h
   exchanges a replica with a smaller one of l's, by the same rule on the difference of their sizes.
   The sum falls at every step and can take finitely many values, so this ends; its end is no broker
   able to shed bytes to a less full one by a move or an exchange that would help, or every fill within
   half a per cent of the mean (more moves would copy bytes for a gain no disk notices).
3. Counts, before step 2 and again after it (then step 2 once more, never leaving the window): a broker
   below the floor of the count window takes the smallest replicas of the fullest broker (by fill) with
   replicas to spare, a few at a time; one above the ceiling gives its smallest to the least full broker
   with room. Before step 2, so that a new broker takes its count in small replicas first and its bytes
   in large ones after; the other way round, it took its count on top of its bytes and handed large
   replicas back to old brokers, which copied them a second time (1.12 times the bound with new disks
   twice as large, against 1.001 now). The window is ``floor(N / n) - slack`` to ``ceil(N / n) + slack``
   (N replicas, n target brokers), ``slack`` half of ``N / n`` (at least 1) unless given: bytes come
   first, and partitions of very different sizes cannot fill disks evenly with even counts.

The lower bound
---------------
Let ``U`` and ``M`` be the largest and the smallest fill the plan reaches over the target brokers.
Any plan that ends with every target broker's fill between ``M`` and ``U`` (the same balance or
better) copies at least:

* ``sum over target b of max(0, M * w_b - L_b)``: the bytes a broker below ``M`` must gain arrive as
  copies; dropping replicas never adds bytes.
* ``sum over target b of max(0, L_b - U * w_b)`` plus every byte on brokers that are not targets,
  less the bytes that lowering replication factors drop: what must leave full brokers, less what can
  leave by being dropped, arrives somewhere else as copies.
* ``sum over i of S_i * max(0, wanted_i - keep_i)``, ``keep_i`` the most current replicas partition i can
  keep: those on target brokers, at most the partition's per-rack limit in each rack. Every replica
  beyond them is a copy (a raised replication factor, a broker left out, a rack rule broken now).

Each line holds for every such plan on its own, so their largest, ``bytes_moved_lower_bound``, does too,
whatever way the plan was found. The ratio ``bytes_moved / bytes_moved_lower_bound`` says how close to
the least copying this balance allows the plan came.

Restricted placements (the planner's modes)
-------------------------------------------
The planner's modes other than ``full`` allow fewer changes; the same steps run with two rules on who may
gain and who may lose a replica (``_State.may_take``):

* ``receivers`` (mode ``add``): a partition gains a replica only on one of these brokers, or back on a
  broker that held it at the start; so every copy lands on a receiver.
* ``keep_current`` (modes ``remove`` and ``fix_offline``): no replica held at the start on a target leaves
  it; only the replicas that must be placed (off leaving brokers, off failed log dirs: ``barred``, which
  the partition may not gain back either) are placed, and may move again among the brokers that may take
  them.

A partition that breaks the rack rule now may keep doing so in these modes (they may not move the replica
that would mend it); no step makes it worse, a rack gains a replica only below the partition's limit. So
the third line of the bound counts, in these modes, every current replica on a target (not barred) as one
the partition can keep, whatever its rack. With ``keep_current`` every other replica is a copy and no
replica kept is one, so the third line equals ``bytes_moved``: the bound is met exactly.

In mode ``add`` the lines are read the same way, for plans that copy only onto the receivers: the other
brokers only lose bytes, so what the receivers must gain (the first line) and what the others must shed
(the second) both arrive on receivers as copies.

The best balance any plan reaches
---------------------------------
``imbalance_lower_bound`` is an imbalance no placement of the entries on the targets goes below, however
many bytes it copies. The mean fill is the same for every placement (the replication factors are given),
so it bounds the largest fill ``F``; each of these holds for every placement:

* ``F >= base_b / w_b`` for every target b: what else its disks hold never moves.
* ``F >= lambda``, the least fill at which the targets have room for every replica, where a broker takes
  at most one replica of each partition: ``sum over b of min(U, max(0, lambda * w_b - base_b))`` reaches
  ``T`` (``U`` the sum of the sizes, ``T`` the bytes of all replicas). A placement with largest fill ``F``
  puts ``L_b - base_b <= min(U, F * w_b - base_b)`` on each broker and ``T`` in all, so ``F`` cannot be
  below ``lambda``.
* ``F >= `` the ``r``-th smallest of ``(base_b + S_i) / w_b`` for each partition i with ``r`` replicas:
  its replicas lie on ``r`` distinct brokers, each then holding at least ``base_b + S_i``.
* ``F >= min over b of (base_b + X_k) / w_b`` for every ``k >= 1`` with ``k * n + 1`` replicas or more
  (``n`` targets): of the ``k * n + 1`` largest replicas, some broker holds ``k + 1`` (pigeonhole), so it
  holds at least ``X_k``, the sum of the ``k + 1`` smallest of them. This is the term that sees whole
  replicas: 18 replicas of one size on 4 brokers leave one broker with 5 of them, 1.111 times the mean,
  which the terms above (they divide bytes as if they were fluid) put at 1.000.

Their largest over the mean fill (and at least 1) is the bound. It ignores racks and the count window, so a
plan may not reach it even in principle; ``imbalance_after`` over it says how far from the best the plan is.
"""

from __future__ import absolute_import, division, print_function

import bisect
import fractions
import math

# The rack rule is the replica-count planner's; that module imports this one only when it plans by bytes.
from ansible_collections.kafkaops.cluster.plugins.module_utils._reassignment_planner import _per_rack_limit

# How far past the first fitting size the move search looks on one broker before it tries the next
# receiver: what a replica cannot go to (its partition is there, or its rack is full) is skipped.
_SCAN = 64
# How many of a receiver's smallest replicas an exchange tries.
_SWAP_SCAN = 16
# How many replicas the count repair hands over before it looks again for the fullest giver.
_COUNT_CHUNK = 32
# Balanced enough: every target broker's fill within this fraction of the mean fill. Past it, moves would
# copy bytes for a gain no disk notices.
_TOLERANCE = 0.005


class _State(object):
    """Replica sets as target positions, with each broker's bytes, count and replicas by size."""

    def __init__(self, sizes, weights, racks, limits, receivers=None, keep_current=False, barred=None):
        self.sizes = sizes
        self.weights = weights
        self.racks = racks
        self.limits = limits
        # The planner's restricted modes (module docstring): positions that may gain a replica a partition
        # did not hold at the start (None: every one), and whether replicas held at the start stay.
        self.receivers = receivers
        self.keep_current = keep_current
        # Per entry, positions whose replica is lost (a failed log dir) and may not come back; or None.
        self.barred = barred
        # Positions each partition holds at the start; set by _forced.
        self.started = [()] * len(sizes)
        self.sets = [[] for _size in sizes]
        self.loads = [0] * len(weights)
        self.counts = [0] * len(weights)
        self.held = [[] for _weight in weights]

    def fill(self, position):
        return self.loads[position] / self.weights[position]

    def add(self, index, position, sort=True):
        """A replica of entry index on position; without sort, the caller sorts the held lists after."""
        self.sets[index].append(position)
        self.loads[position] += self.sizes[index]
        self.counts[position] += 1
        if sort:
            bisect.insort(self.held[position], (self.sizes[index], index))
        else:
            self.held[position].append((self.sizes[index], index))

    def remove(self, index, position):
        self.sets[index].remove(position)
        self.loads[position] -= self.sizes[index]
        self.counts[position] -= 1
        held = self.held[position]
        del held[bisect.bisect_left(held, (self.sizes[index], index))]

    def may_take(self, index, position, leaving=None):
        """Whether the partition may gain a replica on position (losing the one on leaving, if given)."""
        members = self.sets[index]
        if position in members:
            return False
        if self.keep_current and leaving is not None and leaving in self.started[index]:
            return False
        if self.receivers is not None and position not in self.receivers and position not in self.started[index]:
            return False
        if self.barred is not None and position in self.barred[index]:
            return False
        if self.racks is None:
            return True
        rack = self.racks[position]
        same = sum(1 for member in members if member != leaving and self.racks[member] == rack)
        return same < self.limits[index]


def _forced(state, entries, position_of, ceilings):
    """Step 1: replicas off non-targets, beyond the replication factor or the rack limit; missing ones placed.
    A replica on a barred position (a failed log dir) counts as missing."""
    barred = state.barred
    missing = []
    restricted = state.receivers is not None or state.keep_current
    for index, entry in enumerate(entries):
        for broker in entry[2]:
            position = position_of.get(broker)
            if position is not None and not (barred and position in barred[index]):
                state.add(index, position, sort=False)
        if restricted:
            state.started[index] = frozenset(state.sets[index])
    for held in state.held:
        held.sort()
    for index, entry in enumerate(entries):
        wanted = entry[3]
        # Over the rack limit: the replicas of the rack's fullest brokers leave first (a restricted mode may
        # not move them: they stay, and nothing makes the rack fuller).
        if state.racks is not None and not restricted:
            while True:
                per_rack = {}
                for member in state.sets[index]:
                    per_rack.setdefault(state.racks[member], []).append(member)
                crowded = [members for members in per_rack.values() if len(members) > state.limits[index]]
                if not crowded:
                    break
                state.remove(index, max(crowded[0], key=lambda member: (state.fill(member), member)))
        while len(state.sets[index]) > wanted:
            state.remove(index, max(state.sets[index], key=lambda member: (state.fill(member), member)))
        if len(state.sets[index]) < wanted:
            missing.append(index)
    missing.sort(key=lambda index: (-state.sizes[index], index))
    for index in missing:
        while len(state.sets[index]) < entries[index][3]:
            allowed = [position for position in range(len(state.weights)) if state.may_take(index, position)]
            open_positions = [position for position in allowed if state.counts[position] < ceilings[position]]
            state.add(index, min(open_positions or allowed, key=lambda position: (state.fill(position), position)))


def _pair_targets(state, giver, receiver, total, weight_sum):
    """(desired, improving) for a transfer of bytes from giver to receiver: sizes below ``improving``
    lower sum(L^2 / w); ``desired`` is what the giver holds above its share and the receiver lacks
    below its own (or, with neither, what evens out the pair)."""
    inverse = 1.0 / state.weights[giver] + 1.0 / state.weights[receiver]
    improving = 2.0 * (state.fill(giver) - state.fill(receiver)) / inverse
    share_giver = total * state.weights[giver] / weight_sum
    share_receiver = total * state.weights[receiver] / weight_sum
    desired = min(state.loads[giver] - share_giver, share_receiver - state.loads[receiver])
    if desired <= 0:
        desired = improving / 2.0
    return desired, improving


def _fitting(held, desired, improving, allowed, above=0):
    """The largest held (size, index) of size at most desired that allowed() accepts, else the smallest
    above it below improving; only sizes above ``above`` (0: a partition of no bytes moves none)."""
    start = bisect.bisect_right(held, (desired, float("inf")))
    for position in range(start - 1, max(start - 1 - _SCAN, -1), -1):
        size, index = held[position]
        if size <= above:
            break
        if allowed(index):
            return size, index
    for position in range(start, min(start + _SCAN, len(held))):
        size, index = held[position]
        if size >= improving:
            break
        if size > above and allowed(index):
            return size, index
    return None


def _receivers(state, giver):
    fill_giver = state.fill(giver)
    return sorted((position for position in range(len(state.weights))
                   if position != giver and state.fill(position) < fill_giver),
                  key=lambda position: (state.fill(position), position))


def _best_move(state, giver, total, weight_sum, floors, ceilings):
    """(index, receiver) of a move from the fullest broker that lowers sum(L^2 / w), or None."""
    held = state.held[giver]
    if not held or state.counts[giver] - 1 < floors[giver]:
        return None
    for receiver in _receivers(state, giver):
        if state.counts[receiver] >= ceilings[receiver]:
            continue
        desired, improving = _pair_targets(state, giver, receiver, total, weight_sum)
        found = _fitting(held, desired, improving,
                         lambda index, receiver=receiver: state.may_take(index, receiver, giver))
        if found is not None:
            return found[1], receiver
    return None


def _best_swap(state, giver, total, weight_sum):
    """(index on giver, index on receiver, receiver) of an exchange that lowers sum(L^2 / w), or None.
    Counts do not change: this is how bytes even out once counts sit at the window's edges."""
    held = state.held[giver]
    for receiver in _receivers(state, giver):
        desired, improving = _pair_targets(state, giver, receiver, total, weight_sum)
        for small, other in state.held[receiver][:_SWAP_SCAN]:
            if small + desired <= 0 or not state.may_take(other, giver, receiver):
                continue

            def allowed(index, other=other, receiver=receiver):
                return index != other and state.may_take(index, receiver, giver)

            found = _fitting(held, small + desired, small + improving, allowed, above=small)
            if found is not None:
                return found[1], other, receiver
    return None


def _moves(state, total, weight_sum, floors, ceilings, budget):
    """Step 2 (moves, then exchanges where no move helps), fullest giver first; returns how many it made
    (at most budget)."""
    made = 0
    mean = total / float(weight_sum)
    while made < budget:
        givers = sorted(range(len(state.weights)), key=lambda position: (-state.fill(position), position))
        fills = [state.fill(position) for position in givers]
        if not fills or (fills[0] <= mean * (1 + _TOLERANCE) and fills[-1] >= mean * (1 - _TOLERANCE)):
            return made
        for giver in givers:
            move = _best_move(state, giver, total, weight_sum, floors, ceilings)
            if move is not None:
                index, receiver = move
                state.remove(index, giver)
                state.add(index, receiver)
                break
            swap = _best_swap(state, giver, total, weight_sum)
            if swap is not None:
                index, other, receiver = swap
                state.remove(index, giver)
                state.remove(other, receiver)
                state.add(index, receiver)
                state.add(other, giver)
                break
        else:
            return made
        made += 1
    return made


def _hand_over(state, giver, receiver, count):
    """Move up to count of the giver's smallest replicas that the receiver may take; returns how many."""
    chosen = []
    for _size, index in state.held[giver]:
        if len(chosen) == count:
            break
        if state.may_take(index, receiver, giver):
            chosen.append(index)
    for index in chosen:
        state.remove(index, giver)
        state.add(index, receiver)
    return len(chosen)


def _even_counts(state, floors, ceilings):
    """Step 3's count repair. A broker below its floor takes the smallest replicas of the fullest broker (by
    fill) with replicas to spare, a few at a time, so the bytes that go with them come from the brokers with
    the most to shed and no giver is drained below the mean on its own. A broker above its ceiling gives its
    smallest to the least full broker with room, the same way."""
    positions = range(len(state.weights))

    def repair(needy, short, spare, order, hand_over):
        """While needy is short, hand_over(partner, count) with the first partner by order that has some to
        spare and takes part of it; stops when none does."""
        while short(needy) > 0:
            for partner in sorted((position for position in positions if position != needy and spare(position) > 0),
                                  key=order):
                if hand_over(partner, min(short(needy), spare(partner), _COUNT_CHUNK)):
                    break
            else:
                return

    for receiver in sorted(positions, key=lambda position: (state.counts[position] - floors[position], position)):
        repair(receiver, lambda position: floors[position] - state.counts[position],
               lambda position: state.counts[position] - floors[position],
               lambda position: (-state.fill(position), position),
               lambda giver, count, receiver=receiver: _hand_over(state, giver, receiver, count))
    for giver in positions:
        repair(giver, lambda position: state.counts[position] - ceilings[position],
               lambda position: ceilings[position] - state.counts[position],
               lambda position: (state.fill(position), position),
               lambda receiver, count, giver=giver: _hand_over(state, giver, receiver, count))


def _imbalance(loads, weights):
    total = sum(loads)
    if not total:
        return 1.0
    mean = total / sum(weights)
    return max(loads[position] / weights[position] for position in range(len(loads))) / mean


def _pigeonhole_fill(entries, sizes, weights, base):
    """The largest X_k bound of the module docstring: some broker holds k + 1 of the k * n + 1 largest replicas."""
    brokers = len(weights)
    # Partitions by size, largest first, with prefix sums of their replica counts and bytes, so that the bytes of
    # the j largest replicas are found by a bisection instead of listing every replica.
    ordered = sorted(((sizes[index], entry[3]) for index, entry in enumerate(entries) if entry[3] > 0), reverse=True)
    counts, totals = [0], [0]
    for size, replicas in ordered:
        counts.append(counts[-1] + replicas)
        totals.append(totals[-1] + size * replicas)

    def largest_bytes(count):
        """The bytes of the `count` largest replicas."""
        whole = bisect.bisect_right(counts, count) - 1
        return totals[whole] + (ordered[whole][0] * (count - counts[whole]) if whole < len(ordered) else 0)

    # The fill a broker holding X reaches grows with X, so the largest X_k gives the largest bound.
    held = max([largest_bytes(k * brokers + 1) - largest_bytes(k * brokers - k)
                for k in range(1, (counts[-1] - 1) // brokers + 1)] or [0])
    return min(fractions.Fraction(base[position] + held, weights[position]) for position in range(brokers))


def _imbalance_lower_bound(entries, sizes, weights, base):
    """The least imbalance any placement can reach (the module docstring argues it), or None without targets."""
    if not weights:
        return None
    replica_bytes = sum(sizes[index] * entry[3] for index, entry in enumerate(entries))
    total = sum(base) + replica_bytes
    if not total:
        return 1.0
    mean = fractions.Fraction(total, sum(weights))
    largest = max(fractions.Fraction(base[position], weights[position]) for position in range(len(weights)))
    # The largest partition of each replication factor: its copies lie on that many distinct brokers.
    biggest = {}
    for index, entry in enumerate(entries):
        biggest[entry[3]] = max(biggest.get(entry[3], 0), sizes[index])
    for count, size in biggest.items():
        if 0 < count <= len(weights):
            fills = sorted(fractions.Fraction(base[position] + size, weights[position])
                           for position in range(len(weights)))
            largest = max(largest, fills[count - 1])
    largest = max(largest, _pigeonhole_fill(entries, sizes, weights, base))
    # The room the targets have at fill x, each taking at most one replica per partition, is piecewise linear
    # in x: walk its break points until it holds every replica, then solve within the last piece.
    cap = sum(sizes)
    points = sorted(set(fractions.Fraction(base[position] + extra, weights[position])
                        for position in range(len(weights)) for extra in (0, cap)))

    def room(fill):
        return sum(min(cap, max(0, fill * weights[position] - base[position])) for position in range(len(weights)))

    if room(points[-1]) >= replica_bytes:
        low = points[0]
        for point in points:
            if room(point) >= replica_bytes:
                # Between low and point the room grows linearly, by the weights of the brokers still filling.
                slope = sum(weights[position] for position in range(len(weights))
                            if base[position] <= low * weights[position] < base[position] + cap)
                fill = low + (replica_bytes - room(low)) / slope if slope else point
                largest = max(largest, min(fill, point))
                break
            low = point
    return float(max(fractions.Fraction(1), largest / mean))


def balance_bytes(entries, sizes, targets, layout=None, weights=None, count_slack=None, base=None, receivers=None,
                  keep_current=False, barred=None, rack_limits=None):
    """Replica sets for ``entries`` on ``targets`` that even out the fill of the target brokers.

    entries: ``(topic, partition, current replicas, wanted replication factor)`` per partition, as the
        replica-count planner builds them.
    sizes: bytes per entry (an int of at least 0 each).
    targets: the target broker ids, sorted.
    layout: the target positions per rack (the replica-count planner's rack layout), or None.
    weights: ``{broker: capacity in bytes}`` for every target, or None for equal weights.
    count_slack: how many replicas past floor/ceil of its share a broker may hold (its share: N times its
        weight over all weights); default half its share, at least 1.
    base: ``{broker: bytes}`` a target holds besides the entries (other topics, other files), counted
        in its fill, never moved; default none.
    receivers, keep_current: the restrictions of the planner's modes (module docstring): the broker ids
        that may gain replicas a partition does not hold now (None: every target), and whether every
        replica on a target now stays.
    barred: per entry, broker ids whose replica of it is lost (a failed log dir): placed again elsewhere,
        never back there; or None.
    rack_limits: per entry, the most replicas it may have in one rack (with ``layout``); default the rack rule's.

    Returns a dict: ``final_sets`` (a sorted tuple of broker ids per entry), ``bytes_moved``,
    ``bytes_moved_lower_bound`` (see the module docstring), ``bytes_before`` and ``bytes_after``
    (``{broker: bytes}`` over the targets and every broker holding a replica now), ``imbalance_before``
    and ``imbalance_after`` (over the targets), ``imbalance_lower_bound`` (no placement goes below it; the
    module docstring), ``replicas_after`` (``{broker: count}``), ``count_window``
    (``{broker: [floor, ceiling]}``), ``moves`` (moves and exchanges made).
    """
    position_of = dict((broker, position) for position, broker in enumerate(targets))
    weight_list = [int((weights or {}).get(broker) or 1) for broker in targets]
    racks = None
    wanted = [entry[3] for entry in entries]
    limits = list(wanted)
    if layout is not None:
        racks = [0] * len(targets)
        for rack, members in enumerate(layout):
            for position in members:
                racks[position] = rack
        limits = list(rack_limits or [_per_rack_limit(replication_factor, layout) for replication_factor in wanted])
    receiver_positions = None if receivers is None else frozenset(position_of[broker] for broker in receivers)
    barred_positions = None
    if barred is not None:
        barred_positions = [frozenset(position_of[broker] for broker in lost if broker in position_of)
                            for lost in barred]
    restricted = receivers is not None or keep_current
    state = _State(list(sizes), weight_list, racks, limits, receiver_positions, keep_current, barred_positions)
    base_list = [int((base or {}).get(broker) or 0) for broker in targets]
    state.loads = list(base_list)

    # Each broker's replica count window: its share of the replicas by weight, give or take the slack.
    replicas = sum(wanted)
    weight_sum = sum(weight_list)
    floors, ceilings = [], []
    for weight in weight_list:
        share = replicas * weight / weight_sum
        slack = count_slack if count_slack is not None else max(1, int(math.ceil(share / 2)))
        floors.append(max(0, int(math.floor(share)) - slack))
        ceilings.append(int(math.ceil(share)) + slack)

    bytes_before = {}
    for index, entry in enumerate(entries):
        for broker in entry[2]:
            bytes_before[broker] = bytes_before.get(broker, 0) + sizes[index]
    for broker in targets:
        bytes_before.setdefault(broker, 0)
    dropped = sum(sizes[index] * max(0, len(entry[2]) - entry[3]) for index, entry in enumerate(entries))
    # Copies no plan avoids: a partition keeps at most its replicas on target brokers, within the rack
    # limit per rack; every replica beyond what it keeps is a copy.
    forced = 0
    for index, entry in enumerate(entries):
        kept = [position_of[broker] for broker in entry[2]
                if broker in position_of and not (barred_positions and position_of[broker] in barred_positions[index])]
        # A restricted mode keeps a replica that breaks the rack rule (module docstring).
        if racks is not None and not restricted:
            per_rack = {}
            for position in kept:
                per_rack[racks[position]] = per_rack.get(racks[position], 0) + 1
            keepable = sum(min(count, limits[index]) for count in per_rack.values())
        else:
            keepable = len(kept)
        forced += sizes[index] * max(0, entry[3] - keepable)

    _forced(state, entries, position_of, ceilings)
    total = sum(state.loads)
    budget = 20 * replicas + 100
    # Counts first: the brokers short of replicas (new ones) take small replicas from the fullest, and the
    # bytes then even out with large ones. The other way round, a new broker evened out by bytes would take
    # its missing count in small replicas on top and hand large ones back: copied twice.
    _even_counts(state, floors, ceilings)
    moves = _moves(state, total, weight_sum, floors, ceilings, budget)
    _even_counts(state, floors, ceilings)
    moves += _moves(state, total, weight_sum, floors, ceilings, budget)

    final_sets = [tuple(sorted(targets[position] for position in members)) for members in state.sets]
    bytes_moved = 0
    for index, entry in enumerate(entries):
        current = set(entry[2])
        bytes_moved += sizes[index] * sum(1 for broker in final_sets[index] if broker not in current)

    # The bound in exact arithmetic: a float a rounding error above the truth would claim too much.
    bound = 0
    if targets:
        fills = [fractions.Fraction(state.loads[position], weight_list[position]) for position in range(len(targets))]
        largest, smallest = max(fills), min(fills)
        target_set = set(targets)
        leaving = sum(load for broker, load in bytes_before.items() if broker not in target_set)
        must_leave = sum(max(0, bytes_before[broker] + base_list[position] - largest * weight_list[position])
                         for position, broker in enumerate(targets))
        must_arrive = sum(max(0, smallest * weight_list[position] - bytes_before[broker] - base_list[position])
                          for position, broker in enumerate(targets))
        bound = int(math.ceil(max(must_leave + leaving - dropped, must_arrive, forced, 0)))
    low_high = [[floors[position], ceilings[position]] for position in range(len(targets))]

    bytes_after = dict((broker, 0) for broker in bytes_before)
    for position, broker in enumerate(targets):
        bytes_after[broker] = state.loads[position] - base_list[position]
    return {
        "final_sets": final_sets,
        "bytes_moved": bytes_moved,
        "bytes_moved_lower_bound": bound,
        "bytes_before": bytes_before,
        "bytes_after": bytes_after,
        "imbalance_before": _imbalance([bytes_before[broker] + base_list[position]
                                        for position, broker in enumerate(targets)], weight_list),
        "imbalance_after": _imbalance(state.loads, weight_list),
        "imbalance_lower_bound": _imbalance_lower_bound(entries, sizes, weight_list, base_list),
        "replicas_after": dict((broker, state.counts[position]) for position, broker in enumerate(targets)),
        "count_window": dict((broker, low_high[position]) for position, broker in enumerate(targets)),
        "moves": moves,
    }
