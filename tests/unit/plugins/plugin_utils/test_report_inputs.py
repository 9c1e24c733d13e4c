"""report.yml's inputs, checked and typed once (plugin_utils/_report_inputs.py)."""

import pytest
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._report_inputs import listed_paths, report_inputs
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._role_inputs import InputTypeError


def absolute(path):
    """A stand-in for os.path.realpath: relative paths land in /work."""
    return path if path.startswith("/") else "/work/" + path


@pytest.mark.parametrize("given, expected", [
    ("a.json,b.json", ["a.json", "b.json"]),
    ("a.json,,b.json,", ["a.json", "b.json"]),
    ("", []),
    (["a.json", "b,c.json"], ["a.json", "b,c.json"]),
    ([], []),
    (None, []),
])
def test_verify_reports_are_a_list_or_comma_separated(given, expected):
    assert listed_paths(given) == expected


@pytest.mark.parametrize("plan, reports, files", [
    ("", [], []),
    ("plan.json", "v.json", [{"variable": "plan_file", "path": "/work/plan.json"},
                             {"variable": "verify_reports", "path": "/work/v.json"}]),
    # The same file given twice is named by each variable that gives it.
    ("/p/plan.json", ["/p/plan.json"], [{"variable": "plan_file", "path": "/p/plan.json"},
                                        {"variable": "verify_reports", "path": "/p/plan.json"}]),
])
def test_each_file_to_read_is_named_by_its_variable(plan, reports, files):
    inputs = report_inputs("page.html", plan, reports, True, absolute)
    assert inputs["files"] == files
    assert inputs["plan_path"] == ("" if not plan else absolute(plan))
    assert inputs["verify_paths"] == [absolute(path) for path in listed_paths(reports)]
    assert inputs["report_path"] == "/work/page.html"


@pytest.mark.parametrize("given, expected", [(True, True), ("false", False), ("no", False), ("yes", True), (0, False),
                                             ("True", True)])
def test_consumer_groups_is_a_bool(given, expected):
    assert report_inputs("r.html", "", [], given, absolute)["consumer_groups"] is expected


def test_consumer_groups_that_is_no_bool_is_refused_by_name():
    with pytest.raises(InputTypeError, match="^consumer_groups: 'maybe' is not a bool"):
        report_inputs("r.html", "", [], "maybe", absolute)
