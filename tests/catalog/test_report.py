"""catalog.report: check_skills' text and JSON output of a validation report."""

import json

from catalog.config import config_from_dict
from catalog.report import Problem, ValidationReport, report_json, report_text
from tests.support.repos import DEFAULT_CONFIG

CONFIG = config_from_dict(DEFAULT_CONFIG)
BAD_KEY = Problem("skills/a/SKILL.md", "unknown_key", "unknown key 'x'")


def test_a_clean_report_prints_one_summary_line_on_stdout() -> None:
    assert report_text(ValidationReport(CONFIG)) == (["OK: 0 skills valid."], [])


def test_problems_go_to_stdout_one_line_each_and_their_count_to_stderr() -> None:
    report = ValidationReport(CONFIG, problems=[BAD_KEY, BAD_KEY])
    assert report_text(report) == (["skills/a/SKILL.md: unknown key 'x'"] * 2, ["2 problems found."])
    assert report_text(ValidationReport(CONFIG, problems=[BAD_KEY]))[1] == ["1 problem found."]


def test_a_line_break_in_a_file_name_never_splits_a_problem_line() -> None:
    problem = Problem("skills/a/references/x\ny\r.md", "unlisted_file", "is not listed")
    out, _ = report_text(ValidationReport(CONFIG, problems=[problem]))
    assert out == ["skills/a/references/x\\ny\\r.md: is not listed"]


def test_the_json_report_carries_every_problem_with_its_code() -> None:
    document = json.loads(report_json(ValidationReport(CONFIG, problems=[BAD_KEY])))
    assert document == {
        "ok": False,
        "skills": 0,
        "problems": [{"path": "skills/a/SKILL.md", "code": "unknown_key", "message": "unknown key 'x'"}],
    }


def test_the_json_report_keeps_non_ascii_text_as_is() -> None:
    problem = Problem("skills/a/references/é.md", "unlisted_file", "is not listed")
    assert "é.md" in report_json(ValidationReport(CONFIG, problems=[problem]))
