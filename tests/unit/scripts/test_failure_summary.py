"""scripts/failure-summary.py finds what failed in a Molecule log, as Molecule frames and colours it."""

import importlib.util
import os

import pytest

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "..", "scripts", "failure-summary.py")
SPEC = importlib.util.spec_from_file_location("failure_summary", SCRIPT)
failure_summary = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(failure_summary)

BAR = "  \x1b[2m\x1b[31m\u2502\x1b[0m "


def _framed(*lines):
    return "\n".join(BAR + "\x1b[31m" + line + "\x1b[0m" for line in lines) + "\n"


def _summary(tmp_path, capsys, text):
    log = tmp_path / "molecule.log"
    log.write_text(text, encoding="utf-8")
    failure_summary.main(str(log))
    return capsys.readouterr().out.splitlines()[1:]


def test_a_failed_task_is_named_and_its_wrapped_message_joined(tmp_path, capsys):
    text = _framed("TASK [Wait for the reassignment to end]", "  *****",
                   'fatal: [localhost]: FAILED! => {"changed": false,', '  "msg": "broker 5 is not',
                   '  a live broker"}', "", "PLAY RECAP")
    assert _summary(tmp_path, capsys, text) == [
        'TASK [Wait for the reassignment to end] fatal: [localhost]: FAILED! => {"changed": false, '
        '"msg": "broker 5 is not a live broker"}']


def test_a_word_molecule_cut_in_a_failed_task_is_joined_without_a_space(tmp_path, capsys):
    path = "/home/operator/.ansible/tmp/molecule.Xy12.migration/inventory/ansible_inventory.yml"
    cut = 76 - 3
    text = _framed("TASK [Run 3]", 'fatal: [localhost]: FAILED! => {"cmd": ["ansible-playbook", "-i",',
                   '  "%s' % path[:cut], '  %s", "-i"], "rc": 2}' % path[cut:])
    assert _summary(tmp_path, capsys, text) == [
        'TASK [Run 3] fatal: [localhost]: FAILED! => {"cmd": ["ansible-playbook", "-i", "%s", "-i"], "rc": 2}' % path]


def test_an_ignored_failure_is_left_out(tmp_path, capsys):
    text = _framed("TASK [Try to execute the plan]", 'fatal: [localhost]: FAILED! => {"msg": "refused"}',
                   "...ignoring", "TASK [Read the replicas after]")
    assert _summary(tmp_path, capsys, text) == ["no failed task or test found in the log; see the lines above"]


@pytest.mark.parametrize("line", [
    "FAILED ../shared/tests/test_cluster.py::test_zookeeper_runs_and_answers_ruok[ansible://kafkaops-res2] - assert",
    "ERROR ../shared/tests/test_resilience.py::test_print_the_figures - FileNotFoundError: verify-report.json",
])
def test_pytest_summary_lines_are_kept(tmp_path, capsys, line):
    text = _framed("collected 21 items", "FAILED - RETRYING: [localhost]: Wait until partitions are moving", line)
    assert _summary(tmp_path, capsys, text) == [line]


def test_long_lines_are_cut(tmp_path, capsys):
    text = _framed("FAILED a.py::test_b - " + "x" * 1000)
    (line,) = _summary(tmp_path, capsys, text)
    assert len(line) == failure_summary.WIDEST_LINE + len(" ...")


@pytest.mark.parametrize("line", [
    "ERROR ../shared/tests/test_cluster.py - NameError: name 'live_cluster' is not defined",
    "ImportError while loading conftest '/tmp/x/conftest.py'.",
    "INTERNALERROR> KeyError: 'inventory'",
    "+++++++++++++++++++++++++++++++++++ Timeout +++++++++++++++++++++++++++++++++++",
    "=================== 1 failed, 20 passed, 2 errors in 95.20s (0:01:35) ===================",
    "============================ no tests ran in 0.52s =============================",
])
def test_a_run_that_stopped_outside_a_test_is_named(tmp_path, capsys, line):
    text = _framed("collected 21 items", line, "ERROR    Verifier tests failed")
    assert _summary(tmp_path, capsys, text) == [line]


def test_a_passing_tally_is_not_a_failure(tmp_path, capsys):
    text = _framed("=================== 21 passed in 95.20s (0:01:35) ===================")
    assert _summary(tmp_path, capsys, text) == ["no failed task or test found in the log; see the lines above"]


def test_a_failed_line_wrapped_by_molecule_is_joined(tmp_path, capsys):
    # As Molecule's console prints it: "FAILED" alone, the test's id cut at 76 columns, the reason after.
    test_id = "tests/integration/test_kafka_acl.py::test_create_exclusive_by_principal_and_resource_then_delete"
    text = _framed("collected 71 items", "FAILED", "  " + test_id[:74], "  " + test_id[74:], "  - assert 3 == 4",
                   "=========== 1 failed, 70 passed, 89 deselected in 206.11s", "  (0:03:26) ===========")
    assert _summary(tmp_path, capsys, text) == [
        "FAILED " + test_id + " - assert 3 == 4",
        "=========== 1 failed, 70 passed, 89 deselected in 206.11s (0:03:26) ==========="]
