"""scripts/jinja-logic.py counts the lines of Jinja logic in roles/ and playbooks/ and holds them under a ceiling."""

import importlib.util
import os

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "..", "scripts", "jinja-logic.py")
SPEC = importlib.util.spec_from_file_location("jinja_logic", SCRIPT)
jinja_logic = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(jinja_logic)


def test_filters_tests_ifs_and_fors_count_and_plain_references_do_not():
    text = "\n".join([
        "a: \"{{ kafka_broker_port }}\"",                      # 0: a reference only
        "b: \"{{ items | length }}\"",                          # 1: a filter
        "c: \"{{ 'x' if flag else 'y' }}\"",                    # 2: an if
        "d: \"{{ path is file }}\"",                            # 3: a test
        "e: \"{{ path is not defined }}\"",                     # 4: a negated test
        "f: \"{% for item in items %}{{ item }}{% endfor %}\"",  # 5: a for
        "g: \"{{ left or right }}\"",                           # 6: no logic the count looks for
        "when: items | length > 0",                            # 7: Ansible's own condition, no braces
        "h: \"{{ isolated_value }}\"",                          # 8: 'is' inside a name is not a test
    ])
    assert sorted(jinja_logic.logic_lines(text)) == [1, 2, 3, 4, 5]


def test_an_expression_over_several_lines_counts_each_line_with_logic():
    text = "x: >-\n  {{ first\n     | map(attribute='name')\n     | list\n     + second }}\ny: 1\n"
    assert sorted(jinja_logic.logic_lines(text)) == [2, 3]


def test_the_ceiling_fails_the_run_above_it_and_names_the_largest_files(tmp_path, capsys):
    tasks = tmp_path / "roles" / "one" / "tasks"
    tasks.mkdir(parents=True)
    (tasks / "main.yml").write_text("a: \"{{ x | int }}\"\nb: \"{{ y | bool }}\"\n")
    (tmp_path / "playbooks").mkdir()
    (tmp_path / "playbooks" / "site.yml").write_text("c: \"{{ z if z else 1 }}\"\n")
    (tmp_path / "README.md").write_text("{{ not | counted }}\n")
    assert jinja_logic.main(["--max", "3", str(tmp_path)]) == 0
    assert jinja_logic.main(["--max", "2", "--top", "1", str(tmp_path)]) == 1
    printed = capsys.readouterr().out
    assert "3 lines (ceiling 2)" in printed and "roles/one/tasks/main.yml" in printed
    assert "Above the ceiling by 1" in printed
