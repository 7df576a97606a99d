"""Real skills repositories (git work trees) in temporary directories, and registry configs.

SkillRepo(root, config=None)          git init, registry.config.json, an empty skills/
DEFAULT_CONFIG                        the project's own registry.config.json
config_with_sections(**sections)      DEFAULT_CONFIG with whole sections merged in:
                                      config_with_sections(pagination={"max_limit": 2})
config_with_limits(**limits)          DEFAULT_CONFIG with some `limits` replaced:
                                      config_with_limits(max_file_bytes=100)
"""

import copy
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from tests.support.project import PROJECT_DIR
from tests.support.skillmd import skill_md

DEFAULT_CONFIG: dict[str, Any] = json.loads((PROJECT_DIR / "registry.config.json").read_text())


def config_with_sections(**sections: Any) -> dict[str, Any]:
    """A mapping given for a section is merged into it; any other value replaces the key."""
    config = copy.deepcopy(DEFAULT_CONFIG)
    for key, value in sections.items():
        if isinstance(value, dict):
            config[key].update(value)
        else:
            config[key] = value
    return config


def config_with_limits(**limits: int) -> dict[str, Any]:
    return config_with_sections(limits=limits)


class SkillRepo:
    """A git repository with a registry.config.json and a skills/ directory."""

    def __init__(self, root: Path, config: dict[str, Any] | None = None) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")
        self.git("config", "user.email", "tests@example.invalid")
        self.git("config", "user.name", "Tests")
        self.git("config", "commit.gpgsign", "false")
        self.write_config(config or DEFAULT_CONFIG)
        (root / "skills").mkdir(exist_ok=True)

    def git(self, *args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(self.root), *args], check=True, capture_output=True, text=True
        ).stdout.strip()

    def write_config(self, config: dict[str, Any]) -> None:
        self.write("registry.config.json", json.dumps(config, indent=2) + "\n")

    def write(self, path: str, content: str | bytes) -> Path:
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")
        return target

    def remove(self, path: str) -> None:
        target = self.root / path
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target)
        else:
            target.unlink()

    def add_skill(
        self,
        skill_id: str,
        body: str = "Do the thing, step by step.\n",
        files: dict[str, str | bytes] | None = None,
        **fields: Any,
    ) -> None:
        """Write skills/<id>/SKILL.md and its supporting files; `files` are listed unless
        the caller passes its own `files=` list through `fields` (use key "files_list")."""
        files = files or {}
        listed = fields.pop("files_list", sorted(files) or None)
        self.write(f"skills/{skill_id}/SKILL.md", skill_md(skill_id, body, files=listed, **fields))
        for path, content in files.items():
            self.write(f"skills/{skill_id}/{path}", content)

    def commit(self, message: str = "update skills") -> str:
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.git("rev-parse", "HEAD")
