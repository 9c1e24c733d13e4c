"""scripts/molecule-lanes.sh runs scenarios in lanes side by side, and stops starting new ones after a failure.

Run against a stand-in for molecule on PATH (it prints a line, waits as long as the test says and ends
with the status the test gives its scenario), from a copy of the scripts in a temporary folder, so the
logs land there.
"""

import os
import shutil
import subprocess
import sys

SCRIPTS = os.path.join(os.path.dirname(__file__), "..", "..", "..", "scripts")

FAKE_MOLECULE = """#!/bin/bash
# molecule test -s NAME: note the start, wait, end with the status the test asked for.
name=$3
echo "$name $(date +%s.%N) start" >> "$LANES_TRACE"
echo "TASK [Converge $name]"
sleep "$(printf '%s' "$LANES_SECONDS" | tr ',' '\\n' | sed -n "s/^$name=//p")"
status=$(printf '%s' "$LANES_FAIL" | tr ',' '\\n' | sed -n "s/^$name=//p")
if [ -n "$status" ]; then
  echo "fatal: [host]: FAILED! => {\\"msg\\": \\"$name broke\\"}"
fi
echo "$name $(date +%s.%N) end" >> "$LANES_TRACE"
exit "${status:-0}"
"""


def _run(tmp_path, lanes, seconds, fail=""):
    (tmp_path / "scripts").mkdir()
    for name in ("molecule-lanes.sh", "failure-summary.py", "step-usage.py"):
        shutil.copy(os.path.join(SCRIPTS, name), str(tmp_path / "scripts" / name))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "molecule").write_text(FAKE_MOLECULE)
    (bin_dir / "molecule").chmod(0o755)
    # The script runs the summary with "python": the interpreter running these tests.
    (bin_dir / "python").symlink_to(sys.executable)
    trace = tmp_path / "trace"
    environment = dict(os.environ, PATH="%s:%s" % (bin_dir, os.environ["PATH"]), LANES_TRACE=str(trace),
                       LANES_SECONDS=",".join("%s=%s" % item for item in seconds.items()), LANES_FAIL=fail)
    result = subprocess.run(["bash", str(tmp_path / "scripts" / "molecule-lanes.sh")] + lanes, env=environment,
                            capture_output=True, text=True, timeout=60, check=False)
    events = {}
    for line in trace.read_text().splitlines() if trace.exists() else []:
        name, moment, what = line.split()
        events.setdefault(name, {})[what] = float(moment)
    return result, events


def test_lanes_run_side_by_side_and_their_scenarios_one_after_another(tmp_path):
    result, events = _run(tmp_path, ["a1,a2", "b1"], {"a1": 1, "a2": 1, "b1": 2})
    assert result.returncode == 0, result.stdout + result.stderr
    assert sorted(events) == ["a1", "a2", "b1"]
    # b1 ran while a1 and then a2 ran; a2 started only after a1 ended.
    assert events["b1"]["start"] < events["a1"]["end"] and events["a2"]["start"] >= events["a1"]["end"]
    for name in ("a1", "a2", "b1"):
        assert "[%s] TASK [Converge %s]" % (name, name) in result.stdout
        assert "[%s] ended with 0 after" % name in result.stdout
        assert (tmp_path / ".cache" / "logs" / ("molecule-%s.log" % name)).read_text() == "TASK [Converge %s]\n" % name


def test_a_failure_stops_its_lane_and_the_other_lane_starts_nothing_new(tmp_path):
    result, events = _run(tmp_path, ["a1,a2", "b1,b2"], {"a1": 0, "a2": 1, "b1": 2, "b2": 1}, fail="a1=2")
    assert result.returncode == 1
    # a1 failed at once: a2 never started; b1 was running and finished; b2 never started.
    assert sorted(events) == ["a1", "b1"]
    assert "end" in events["b1"]
    assert "[a1] ended with 2 after" in result.stdout and "[b1] ended with 0 after" in result.stdout
    # What failed is printed last, from the scenario's log.
    assert result.stdout.rstrip().splitlines()[-2:] == [
        "=== what failed (from .cache/logs/molecule-a1.log) ===",
        'TASK [Converge a1] fatal: [host]: FAILED! => {"msg": "a1 broke"}']
