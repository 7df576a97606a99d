"""What the benchmark knows of a generated corpus: its skills and their files (bench/corpus.py
writes it beside the repository, the benchmarks read it to choose their requests)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass
class FileInfo:
    path: str
    size: int


@dataclass
class SkillInfo:
    id: str
    version: str | None  # None: an open-dialect skill without one
    required_zdr: bool
    skill_md_size: int
    tags: list[str]
    files: list[FileInfo] = field(default_factory=list)  # the served ones
    path: str = ""  # the skill's folder; "" for skills/<id>
    omitted: list[FileInfo] = field(default_factory=list)  # binary assets, never served

    @property
    def folder(self) -> str:
        return self.path or f"skills/{self.id}"


@dataclass
class Corpus:
    root: str
    skills: int
    seed: int
    sha: str
    build_seconds: float
    generate_seconds: float
    method: str
    total_bytes: int
    file_count: int
    zdr_count: int
    entries: list[SkillInfo]
    dialect: str = "registry"

    def summary(self) -> dict:
        data = {key: value for key, value in asdict(self).items() if key != "entries"}
        sizes = sorted(entry.skill_md_size for entry in self.entries)
        file_sizes = sorted(f.size for entry in self.entries for f in entry.files)
        data["skill_md_bytes_median"] = sizes[len(sizes) // 2] if sizes else 0
        data["file_bytes_median"] = file_sizes[len(file_sizes) // 2] if file_sizes else 0
        return data
