"""The byte-balancing placement: valid plans, even fills, and a lower bound on the bytes copied that holds."""

import itertools
import random

import pytest

from ansible_collections.kafkaops.cluster.plugins.module_utils._byte_balance import balance_bytes
from ansible_collections.kafkaops.cluster.plugins.module_utils._reassignment_planner import _rack_layout

MIB = 1 << 20


def _entries(assignment):
    return [(topic, partition, tuple(replicas), len(replicas))
            for topic, partitions in sorted(assignment.items()) for partition, replicas in sorted(partitions.items())]


def _check_valid(entries, result, targets, racks=None):
    for index, entry in enumerate(entries):
        final = result["final_sets"][index]
        assert len(final) == entry[3] == len(set(final)), (entry, final)
        assert set(final) <= set(targets)
        if racks:
            used = [racks[broker] for broker in final]
            distinct = len(set(racks[broker] for broker in targets))
            assert len(set(used)) == min(len(used), distinct), (entry, final)
    assert result["bytes_moved_lower_bound"] <= result["bytes_moved"]


def test_the_demo_scale_out_ends_with_even_fills_copying_near_the_bound():
    # As in make demo: one large topic of 6 partitions and three small ones, replication factor 3 on
    # brokers 1-3; broker 4 joins. Counting replicas, every move took a large partition (50 % fuller).
    assignment = {"big": {p: [1 + (p + k) % 3 for k in range(3)] for p in range(6)}}
    for name in ("a", "b", "c"):
        assignment[name] = {p: [1 + (p + k) % 3 for k in range(3)] for p in range(6)}
    entries = _entries(assignment)
    sizes = [(2 * MIB if entry[0] == "big" else MIB // 8) for entry in entries]
    result = balance_bytes(entries, sizes, [1, 2, 3, 4])
    _check_valid(entries, result, [1, 2, 3, 4])
    assert result["imbalance_before"] > 1.3
    assert result["imbalance_after"] <= 1.05, result
    assert result["bytes_moved"] <= 1.10 * result["bytes_moved_lower_bound"], result
    windows = result["count_window"]
    assert all(windows[broker][0] <= count <= windows[broker][1] for broker, count in result["replicas_after"].items())


def test_a_broker_that_leaves_hands_over_every_byte_and_the_bound_says_so():
    assignment = {"t": {p: [1 + p % 4, 1 + (p + 1) % 4] for p in range(8)}}
    entries = _entries(assignment)
    sizes = [(p + 1) * MIB for p in range(8)]
    result = balance_bytes(entries, sizes, [1, 2, 3])
    _check_valid(entries, result, [1, 2, 3])
    assert result["bytes_after"][4] == 0
    assert result["bytes_moved_lower_bound"] >= result["bytes_before"][4]


def test_disks_of_different_sizes_fill_to_the_same_fraction():
    assignment = {"t": {p: [1 + p % 3, 1 + (p + 1) % 3] for p in range(60)}}
    entries = _entries(assignment)
    rng = random.Random(7)
    sizes = [rng.randint(1, 50) * MIB for _entry in entries]
    weights = {1: 1000 * MIB, 2: 1000 * MIB, 3: 2000 * MIB}
    result = balance_bytes(entries, sizes, [1, 2, 3], weights=weights)
    _check_valid(entries, result, [1, 2, 3])
    fills = [result["bytes_after"][broker] / weights[broker] for broker in (1, 2, 3)]
    assert max(fills) / min(fills) < 1.1, fills


@pytest.mark.parametrize("new_weight", [1, 2])
def test_a_grown_cluster_copies_only_onto_the_new_brokers_and_near_the_bound(new_weight):
    # Many small partitions and a few large ones on 12 brokers; 3 join (disks as large, or twice as large). The
    # new brokers need replica counts as well as bytes: taking the count in small replicas after evening out
    # the bytes with large ones made them hand large ones back to old brokers, copied twice (1.12 x the bound).
    rng = random.Random(7)
    old, grown = list(range(1, 13)), list(range(1, 16))
    assignment = dict(("t%03d" % topic, dict((partition, rng.sample(old, 3)) for partition in range(20)))
                      for topic in range(150))
    entries = _entries(assignment)
    sizes = [(rng.randint(1 << 30, 10 << 30) if entry[0] < "t005" else rng.randint(1, 64) * MIB) for entry in entries]
    weights = dict((broker, new_weight if broker > 12 else 1) for broker in grown)
    result = balance_bytes(entries, sizes, grown, weights=weights)
    _check_valid(entries, result, grown)
    gained = dict((broker, 0) for broker in grown)
    for index, entry in enumerate(entries):
        for broker in set(result["final_sets"][index]) - set(entry[2]):
            gained[broker] += sizes[index]
    # Old brokers that must shed bytes gain next to nothing (small replicas in exchanges); with the count
    # repair after the bytes, they gained 2 % (equal disks) and 4 % (new disks twice as large) of the copy.
    mean = sum(sizes) * 3 / float(sum(weights.values()))
    shedding = [broker for broker in old if result["bytes_before"][broker] > mean]
    assert sum(gained[broker] for broker in shedding) <= 0.005 * result["bytes_moved"]
    assert result["bytes_moved"] <= 1.01 * result["bytes_moved_lower_bound"]
    assert result["imbalance_after"] <= 1.05
    window = result["count_window"]
    assert all(window[broker][0] <= count <= window[broker][1] for broker, count in result["replicas_after"].items())


@pytest.mark.parametrize("seed", range(30))
def test_random_clusters_give_valid_plans_with_a_bound_below_the_copy(seed):
    rng = random.Random(seed)
    brokers = list(range(1, rng.randint(3, 7) + 1))
    grown = brokers + list(range(len(brokers) + 1, len(brokers) + 1 + rng.randint(0, 2)))
    targets = grown if rng.random() < 0.7 else brokers[1:]
    factor = rng.randint(1, min(3, len(targets)))
    assignment = {}
    for topic in range(rng.randint(1, 5)):
        assignment["t%d" % topic] = {p: rng.sample(brokers, factor) for p in range(rng.randint(1, 12))}
    entries = _entries(assignment)
    # Zipf-like sizes: a few large partitions, many small.
    sizes = [int(MIB * 100 / (1 + rng.paretovariate(1.2))) for _entry in entries]
    racks = None
    layout = None
    if rng.random() < 0.4:
        racks = dict((broker, "r%d" % (broker % 3)) for broker in targets)
        layout = _rack_layout(targets, racks, True)
    result = balance_bytes(entries, sizes, targets, layout=layout)
    _check_valid(entries, result, targets, racks)
    assert result["imbalance_after"] <= result["imbalance_before"] + 1e-9 or \
        any(broker not in targets for entry in entries for broker in entry[2])


def _all_plans(entries, targets):
    choices = [list(itertools.combinations(targets, entry[3])) for entry in entries]
    return itertools.product(*choices)


def _plans_of_the_same_balance(entries, sizes, targets, result, allowed=None):
    """(plan, bytes copied) of every plan (that allowed() accepts) whose loads all lie within the
    smallest and largest load the result reached."""
    after = [result["bytes_after"][broker] for broker in targets]
    largest, smallest = max(after), min(after)
    for plan in _all_plans(entries, targets):
        if allowed is not None and not allowed(plan):
            continue
        loads = dict((broker, 0) for broker in targets)
        copied = 0
        for index, final in enumerate(plan):
            for broker in final:
                loads[broker] += sizes[index]
                if broker not in entries[index][2]:
                    copied += sizes[index]
        if smallest <= min(loads.values()) and max(loads.values()) <= largest:
            yield plan, copied


@pytest.mark.parametrize("seed", range(25))
def test_brute_force_no_plan_of_the_same_balance_copies_less_than_the_bound(seed):
    """Every plan whose fills all lie within the reached [smallest, largest] copies at least the bound;
    and the plan found is within twice the least copying of those plans."""
    rng = random.Random(1000 + seed)
    brokers = [1, 2, 3]
    targets = [1, 2, 3, 4] if seed % 2 == 0 else [1, 2, 3]
    assignment = {"t": {p: rng.sample(brokers, 2) for p in range(rng.randint(3, 5))}}
    entries = _entries(assignment)
    sizes = [rng.randint(1, 20) for _entry in entries]
    result = balance_bytes(entries, sizes, targets, count_slack=10)
    _check_valid(entries, result, targets)
    cheapest = None
    for plan, copied in _plans_of_the_same_balance(entries, sizes, targets, result):
        assert copied >= result["bytes_moved_lower_bound"], (plan, copied, result)
        cheapest = copied if cheapest is None else min(cheapest, copied)
    assert cheapest is not None and result["bytes_moved"] <= 2 * max(cheapest, 1), (cheapest, result)


@pytest.mark.parametrize("seed", range(15))
def test_brute_force_with_racks_every_rack_valid_plan_of_the_same_balance_copies_at_least_the_bound(seed):
    """Two racks of two brokers, replication factor 2: no two replicas in a rack. Current sets drawn at
    random, some inside one rack (they must copy), so the bound's per-partition term matters."""
    rng = random.Random(2000 + seed)
    targets = [1, 2, 3, 4]
    racks = {1: "a", 2: "a", 3: "b", 4: "b"}
    assignment = {"t": {p: rng.sample(targets, 2) for p in range(rng.randint(3, 5))}}
    entries = _entries(assignment)
    sizes = [rng.randint(1, 20) for _entry in entries]
    result = balance_bytes(entries, sizes, targets, layout=_rack_layout(targets, racks, True), count_slack=10)
    _check_valid(entries, result, targets, racks)

    def rack_valid(plan):
        return all(racks[final[0]] != racks[final[1]] for final in plan)

    for plan, copied in _plans_of_the_same_balance(entries, sizes, targets, result, rack_valid):
        assert copied >= result["bytes_moved_lower_bound"], (plan, copied, result)


# ---- the best balance any placement reaches ----------------------------------------------------------------


def test_one_large_partition_bounds_the_balance_and_the_plan_reaches_it():
    # Three brokers, one replica each: 100 MiB on one broker whatever the plan; the mean is 34 MiB.
    entries = _entries({"t": {0: [1], 1: [2], 2: [3]}})
    result = balance_bytes(entries, [100 * MIB, MIB, MIB], [1, 2, 3])
    assert result["imbalance_lower_bound"] == pytest.approx(100 / 34.0)
    assert result["imbalance_after"] == pytest.approx(result["imbalance_lower_bound"])


def test_even_partitions_can_be_perfectly_even():
    entries = _entries({"t": dict((partition, [1, 2]) for partition in range(6))})
    result = balance_bytes(entries, [10 * MIB] * 6, [1, 2, 3])
    assert result["imbalance_lower_bound"] == 1.0 == result["imbalance_after"]


def test_whole_replicas_bound_the_balance_and_the_demo_plan_reaches_it():
    # make demo's orders topic: 6 partitions of one size, 3 replicas each, spread from 3 brokers onto 4. One
    # broker must hold 5 of the 18 replicas: 5 / 4.5 = 1.111 of the mean, which no plan goes below.
    entries = _entries({"orders": {p: [1 + (p + k) % 3 for k in range(3)] for p in range(6)}})
    result = balance_bytes(entries, [2 * MIB] * 6, [1, 2, 3, 4])
    assert result["imbalance_lower_bound"] == pytest.approx(10 / 9.0)
    assert result["imbalance_after"] == pytest.approx(result["imbalance_lower_bound"])


def test_what_else_a_disk_holds_bounds_the_balance():
    entries = _entries({"t": {0: [1], 1: [2]}})
    # Broker 1's disk holds 90 bytes of something else: its fill is at least 90 of 100 whatever moves.
    result = balance_bytes(entries, [5, 5], [1, 2], weights={1: 100, 2: 100}, base={1: 90, 2: 0})
    assert result["imbalance_lower_bound"] == pytest.approx(90 / 50.0)


@pytest.mark.parametrize("seed", range(25))
def test_brute_force_no_placement_goes_below_the_imbalance_bound(seed):
    """Over every placement (any number of copies), the best imbalance is at least the bound, and the plan
    found is no better than the best (it is one of the placements)."""
    rng = random.Random(3000 + seed)
    targets = [1, 2, 3, 4] if seed % 2 else [1, 2, 3]
    factor = rng.randint(1, 2)
    assignment = {"t": {p: rng.sample([1, 2, 3], factor) for p in range(rng.randint(2, 5))}}
    entries = _entries(assignment)
    sizes = [rng.choice([1, 2, 3, 50]) * rng.randint(1, 9) for _entry in entries]
    weights = dict((broker, rng.choice([100, 200, 300])) for broker in targets) if seed % 3 == 0 else None
    base = dict((broker, rng.randint(0, 150)) for broker in targets) if seed % 3 == 0 else None
    result = balance_bytes(entries, sizes, targets, weights=weights, base=base, count_slack=10)
    weight = dict((broker, (weights or {}).get(broker, 1)) for broker in targets)
    held = dict((broker, (base or {}).get(broker, 0)) for broker in targets)
    mean = (sum(held.values()) + sum(sizes[index] * entry[3] for index, entry in enumerate(entries))) / float(
        sum(weight.values()))
    best = None
    for plan in _all_plans(entries, targets):
        loads = dict(held)
        for index, final in enumerate(plan):
            for broker in final:
                loads[broker] += sizes[index]
        imbalance = max(loads[broker] / float(weight[broker]) for broker in targets) / mean
        best = imbalance if best is None else min(best, imbalance)
    assert result["imbalance_lower_bound"] <= best + 1e-9 <= result["imbalance_after"] + 2e-9, (best, result)
