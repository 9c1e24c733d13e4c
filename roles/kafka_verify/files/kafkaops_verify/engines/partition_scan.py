"""The scan engine's worker side: the checks over each Kafka partition's records in one ordered pass, in
Spark's Python workers (mapInArrow) with numpy. Executors import this module from the package Spark
ships to them (session.ship_package), so it must stay importable without the driver's folders.
"""

from kafkaops_verify.ranges import merge_ranges
from kafkaops_verify.records import CORRUPT_REASONS, SEPARATOR

SCAN_SCHEMA = "topic_index int, partition int, kind string, summary string"


class PartitionScan:
    """The checks over the records of one Kafka partition, given in offset order, batch by batch.

    Per identity (run id and key) it keeps the sequences seen (first copies) as sorted half-open
    ranges, the highest of them and the last one by offset. A batch where every identity's
    sequences only climb past everything seen before is handled for all identities at once; an
    identity whose sequences repeat or go back is handled on its own, still with array operations.
    """

    def __init__(self, examples):
        import numpy as np

        self.examples_limit = examples
        self.records = self.corrupt = self.duplicates = self.out_of_order = self.identified = 0
        self.first_offset = self.last_offset = None
        self.ordered = True
        self.identities = {}  # "run|key" -> id
        self.names = []
        self.seen = []  # per id: [[start, end], ...], sorted, merged
        self.highest = np.empty(0, dtype=np.int64)  # per id: highest sequence seen, -1 before any
        self.last = np.empty(0, dtype=np.int64)  # per id: sequence of the last first copy, -1 before any
        self.examples = {"corrupt": [], "duplicates": [], "out_of_order": [], "offset_gaps": []}

    def _room(self, kind):
        return max(self.examples_limit - len(self.examples[kind]), 0)

    def _ids(self, names):
        import numpy as np

        ids = np.empty(len(names), dtype=np.int64)
        for position, name in enumerate(names):
            number = self.identities.get(name)
            if number is None:
                number = self.identities[name] = len(self.names)
                self.names.append(name)
                self.seen.append([])
            ids[position] = number
        grown = len(self.names) - len(self.highest)
        if grown > 0:
            self.highest = np.concatenate([self.highest, np.full(grown, -1, dtype=np.int64)])
            self.last = np.concatenate([self.last, np.full(grown, -1, dtype=np.int64)])
        return ids

    def _identity(self, number):
        run_id, key = self.names[number].split(SEPARATOR, 1)
        return run_id, key

    def add(self, offsets, codes, names, sequences, reasons):
        """One batch, in offset order: numpy arrays of offsets, identity codes into names (-1 for an
        unparseable value), sequences (anything where the code is -1) and reason codes."""
        import numpy as np

        if not self.ordered or len(offsets) == 0:
            return
        previous = self.last_offset
        steps = np.diff(offsets) if previous is None else np.diff(offsets, prepend=previous)
        if (steps <= 0).any():
            self.ordered = False
            return
        if self._room("offset_gaps"):
            # Holes between records; those before the first and after the last are the driver's.
            hole_ends = offsets[1:] if previous is None else offsets
            holes = np.flatnonzero(steps > 1)[: self._room("offset_gaps")]
            self.examples["offset_gaps"].extend(
                [int(hole_ends[hole] - steps[hole] + 1), int(hole_ends[hole])] for hole in holes
            )
        if self.first_offset is None:
            self.first_offset = int(offsets[0])
        self.last_offset = int(offsets[-1])
        self.records += len(offsets)

        ids = self._ids(names)
        corrupt = np.flatnonzero(reasons)
        self.corrupt += len(corrupt)
        for row in corrupt[: self._room("corrupt")]:
            code = codes[row]
            run_id, key = self._identity(ids[code]) if code >= 0 else (None, None)
            sequence = int(sequences[row]) if code >= 0 else None
            reason = CORRUPT_REASONS[reasons[row] - 1]
            self.examples["corrupt"].append([int(offsets[row]), run_id, key, sequence, reason])

        identified = codes >= 0
        if not identified.all():
            codes, sequences, offsets = codes[identified], sequences[identified], offsets[identified]
        if len(codes) == 0:
            return
        # Each identity's records together, still in offset order.
        order = np.argsort(codes, kind="stable")
        numbers = ids[codes[order]]
        sequences = sequences[order]
        offsets = offsets[order]
        size = len(numbers)
        starts = np.flatnonzero(np.diff(numbers, prepend=-1))
        ends = np.append(starts[1:], size)
        group_numbers = numbers[starts]
        # Before each record: the one before it in its identity, or the highest seen for the first.
        before = np.empty(size, dtype=np.int64)
        before[1:] = sequences[:-1]
        before[starts] = self.highest[group_numbers]
        climbing = np.logical_and.reduceat(sequences > before, starts)
        tangled = {"duplicates": [], "out_of_order": []}
        for group in np.flatnonzero(~climbing):
            start, end = starts[group], ends[group]
            self._add_tangled(group_numbers[group], sequences[start:end], offsets[start:end], tangled)
        # Identities were taken one at a time; the examples are the first records by offset.
        for kind, candidates in tangled.items():
            self.examples[kind].extend(sorted(candidates)[: self._room(kind)])
        if not climbing.any():
            return
        # The common case: nothing repeats or goes back, so every record is a first copy in order,
        # and the sequences only extend the ranges seen, one range per run of consecutive numbers.
        climbing_ends = ends[climbing]
        climbing_numbers = group_numbers[climbing]
        self.identified += int((climbing_ends - starts[climbing]).sum())
        self.highest[climbing_numbers] = sequences[climbing_ends - 1]
        self.last[climbing_numbers] = sequences[climbing_ends - 1]
        breaks = sequences != before + 1
        breaks[starts] = True
        run_starts = np.flatnonzero(breaks & np.repeat(climbing, ends - starts))
        # A run ends where the next one starts, or at the end of its identity's records.
        group_of_run = np.searchsorted(starts, run_starts, side="right") - 1
        run_ends = np.minimum(np.append(run_starts[1:], size), ends[group_of_run])
        for first, stop, number in zip(
            sequences[run_starts].tolist(),
            (sequences[run_ends - 1] + 1).tolist(),
            numbers[run_starts].tolist(),
            strict=True,
        ):
            seen = self.seen[number]
            if seen and seen[-1][1] == first:
                seen[-1][1] = stop
            else:
                seen.append([first, stop])

    def _add_tangled(self, number, sequences, offsets, examples):
        """One identity's records of a batch whose sequences repeat or go back (offset order);
        appends to examples {kind: [...]} its first records of each kind."""
        import numpy as np

        seen = self.seen[number]
        if seen:
            seen_starts = np.fromiter((pair[0] for pair in seen), dtype=np.int64, count=len(seen))
            seen_ends = np.fromiter((pair[1] for pair in seen), dtype=np.int64, count=len(seen))
            position = np.searchsorted(seen_starts, sequences, side="right") - 1
            repeated = (position >= 0) & (sequences < seen_ends[np.maximum(position, 0)])
        else:
            repeated = np.zeros(len(sequences), dtype=bool)
        first_rows = np.unique(sequences, return_index=True)[1]
        first_in_batch = np.zeros(len(sequences), dtype=bool)
        first_in_batch[first_rows] = True
        duplicate = repeated | ~first_in_batch
        copies = np.flatnonzero(duplicate)
        run_id, key = self._identity(number)
        self.duplicates += len(copies)
        for row in copies[: self._room("duplicates")]:
            examples["duplicates"].append([int(offsets[row]), run_id, key, int(sequences[row])])
        firsts = np.flatnonzero(~duplicate)
        if len(firsts) == 0:
            return
        first_sequences = sequences[firsts]
        previous = np.empty(len(firsts), dtype=np.int64)
        previous[0] = self.last[number]
        previous[1:] = first_sequences[:-1]
        late = np.flatnonzero(first_sequences < previous)
        self.out_of_order += len(late)
        for index in late[: self._room("out_of_order")]:
            row = firsts[index]
            examples["out_of_order"].append([int(offsets[row]), run_id, key, int(sequences[row]), int(previous[index])])
        self.identified += len(firsts)
        self.last[number] = first_sequences[-1]
        self.highest[number] = max(int(self.highest[number]), int(first_sequences.max()))
        self.seen[number] = merge_ranges(seen + sequence_runs(np.sort(first_sequences)))

    def summaries(self):
        """The partition's summary, then one per identity with the ranges seen, as (kind, dict)."""
        yield "partition", {
            "records": self.records,
            "corrupt": self.corrupt,
            "duplicates": self.duplicates,
            "out_of_order": self.out_of_order,
            "identified": self.identified,
            "first_offset": self.first_offset,
            "last_offset": self.last_offset,
            "ordered": self.ordered,
            "examples": self.examples,
        }
        for number in range(len(self.names)):
            run_id, key = self._identity(number)
            yield "identity", {"run_id": run_id, "key": key, "seen": self.seen[number]}


def sequence_runs(sorted_sequences):
    """[[start, end], ...] of the runs of consecutive numbers in a sorted array of distinct integers."""
    import numpy as np

    if len(sorted_sequences) == 0:
        return []
    cuts = np.flatnonzero(np.diff(sorted_sequences) != 1) + 1
    starts = sorted_sequences[np.concatenate([[0], cuts])]
    ends = sorted_sequences[np.concatenate([cuts - 1, [len(sorted_sequences) - 1]])] + 1
    return [[int(start), int(end)] for start, end in zip(starts, ends, strict=True)]


def scan_batches(batches, examples):
    """mapInArrow body: feeds each Kafka partition's records (SCAN_COLUMNS) to a PartitionScan, then
    yields the summaries (SCAN_SCHEMA) of every partition this Spark partition held."""
    import json

    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    scans = {}
    for batch in batches:
        if batch.num_rows == 0:
            continue
        sources = (batch.column("topic_index").to_numpy().astype(np.int64) << 32) | batch.column("partition").to_numpy()
        if (sources == sources[0]).all():
            pieces = [(int(sources[0]), batch)]
        else:
            pieces = [(int(source), batch.filter(pa.array(sources == source))) for source in np.unique(sources)]
        for source, piece in pieces:
            if source not in scans:
                scans[source] = PartitionScan(examples)
            identities = pc.dictionary_encode(piece.column("identity"))
            scans[source].add(
                piece.column("offset").to_numpy(),
                identities.indices.fill_null(-1).to_numpy(),
                identities.dictionary.to_pylist(),
                piece.column("sequence").fill_null(-1).to_numpy(),
                piece.column("reason_code").to_numpy(),
            )
    rows = [
        {"topic_index": source >> 32, "partition": source & 0xFFFFFFFF, "kind": kind, "summary": json.dumps(summary)}
        for source, scan in scans.items()
        for kind, summary in scan.summaries()
    ]
    schema = pa.schema(
        [("topic_index", pa.int32()), ("partition", pa.int32()), ("kind", pa.string()), ("summary", pa.string())]
    )
    yield pa.RecordBatch.from_pylist(rows, schema=schema)
