"""bench/corpus.py: the benchmark's corpus in each dialect, deterministic, shaped as documented."""

import re
from pathlib import Path

import pytest

from bench import corpus as corpus_mod
from catalog.trees import WorkingTree
from catalog.validation import validate_tree

SKILLS = 60


def build(tmp_path: Path, dialect: str, name: str = "repo") -> corpus_mod.Corpus:
    return corpus_mod.build(tmp_path / f"{dialect}-{name}", SKILLS, seed=3, dialect=dialect)


def skill_mds(corpus: corpus_mod.Corpus) -> dict[str, str]:
    root = Path(corpus.root)
    return {entry.id: (root / entry.folder / "SKILL.md").read_text() for entry in corpus.entries}


@pytest.mark.parametrize("dialect", ["registry", "open", "mixed"])
def test_the_same_seed_builds_the_same_commit(tmp_path: Path, dialect: str) -> None:
    assert build(tmp_path, dialect, "a").sha == build(tmp_path, dialect, "b").sha


def test_the_dialects_differ(tmp_path: Path) -> None:
    assert len({build(tmp_path, dialect).sha for dialect in ("registry", "open", "mixed")}) == 3


def test_the_registry_corpus_is_valid(tmp_path: Path) -> None:
    corpus = build(tmp_path, "registry")
    report = validate_tree(WorkingTree(corpus.root))
    # Its skills are named by titles, as registry-dialect repositories are: each is warned that
    # the skills extension will not list it, and nothing else is said.
    assert {(problem.code, problem.severity) for problem in report.problems} == {
        ("not_native_name", "warning")
    }
    assert len(report.problems) == len(report.skills) == SKILLS


def test_the_open_corpus_is_shaped_like_a_public_repository(tmp_path: Path) -> None:
    corpus = build(tmp_path, "open")
    root = Path(corpus.root)
    texts = skill_mds(corpus)
    assert not (root / "registry.config.json").exists()
    assert (root / "skills" / "README.md").is_file()  # outside every skill
    assert not any("schema_version" in text or "\nfiles:" in text for text in texts.values())
    for entry in corpus.entries:
        assert entry.folder.rsplit("/", 1)[1] == entry.id
        assert f'name: "{entry.id}"' in texts[entry.id]
    depths = {entry.folder.count("/") for entry in corpus.entries}
    assert depths == {1, 2, 3}  # skills/<id>, skills/<category>/<id>, skills/<a>/<b>/<id>
    versions = [entry.version for entry in corpus.entries]
    assert None in versions and any(versions)
    assert any("metadata:" in text and '"version"' in text for text in texts.values())


def test_the_open_corpus_carries_binary_assets_and_records_them_as_omitted(tmp_path: Path) -> None:
    corpus = build(tmp_path, "open")
    root = Path(corpus.root)
    omitted = [(entry, f) for entry in corpus.entries for f in entry.omitted]
    assert omitted
    for entry, info in omitted:
        data = (root / entry.folder / info.path).read_bytes()
        assert len(data) == info.size and b"\0" in data
    served = [(entry, f) for entry in corpus.entries for f in entry.files]
    assert all(b"\0" not in (root / entry.folder / f.path).read_bytes() for entry, f in served)


def test_the_mixed_corpus_holds_both_dialects_with_unique_ids(tmp_path: Path) -> None:
    corpus = build(tmp_path, "mixed")
    texts = skill_mds(corpus)
    registry = [sid for sid, text in texts.items() if "schema_version: 1" in text]
    assert len(registry) == SKILLS // 2
    assert len({entry.id for entry in corpus.entries}) == SKILLS


@pytest.mark.parametrize("dialect", ["registry", "open"])
def test_a_change_edits_one_skill_and_bumps_its_version_when_it_has_one(tmp_path: Path, dialect: str) -> None:
    corpus = build(tmp_path, dialect)
    versioned = next(entry for entry in corpus.entries if entry.version)
    change = corpus_mod.change_one(Path(corpus.root), versioned.id)
    assert (change["old_version"], change["version"]) == (
        versioned.version,
        corpus_mod.bump_patch(versioned.version),
    )
    text = (Path(corpus.root) / versioned.folder / "SKILL.md").read_text()
    assert re.search(rf'"?version"?: "{re.escape(change["version"])}"', text)
    assert change["sha"] != corpus.sha


def test_a_change_of_a_skill_without_a_version_edits_it_only(tmp_path: Path) -> None:
    corpus = build(tmp_path, "open")
    bare = next(entry for entry in corpus.entries if entry.version is None)
    before = (Path(corpus.root) / bare.folder / "SKILL.md").read_text()
    first = corpus_mod.change_one(Path(corpus.root), bare.id)
    second = corpus_mod.change_one(Path(corpus.root), bare.id)
    after = (Path(corpus.root) / bare.folder / "SKILL.md").read_text()
    assert first["version"] is None and after.startswith(before.rstrip("\n"))
    assert first["sha"] != second["sha"] and after.count("## Changes in an update") == 2
