"""rules_fingerprint(): which rules decided a stored verdict.

A publish reuses the verdict of an earlier snapshot on an unchanged skill only when that
snapshot was validated under the very rules this process applies (catalog.reuse), so a
fix that tightens a rule reaches every skill at the next publish.
"""

import functools
import hashlib
import importlib
import sys
from pathlib import Path
from types import ModuleType

import semver
import yaml

from catalog import strict_yaml

# Every module whose code decides a verdict: validation and all it imports from the catalog
# (tests/catalog/test_fingerprint.py fails when one is missing here).
RULE_MODULES: tuple[ModuleType, ...] = tuple(
    importlib.import_module(f"catalog.{name}")
    for name in (
        "config",
        "discovery",
        "fields",
        "frontmatter_json",
        "hashing",
        "open_dialect",
        "paths",
        "registry_dialect",
        "report",
        "rules",
        "scan",
        "skill",
        "skillfile",
        "strict_yaml",
        "trees",
        "typos",
        "validation",
        "version_field",
    )
)


def module_source(module: ModuleType) -> bytes:
    return Path(module.__file__ or "").read_bytes()


@functools.cache
def rules_fingerprint() -> str:
    """A SHA-256 over the source of RULE_MODULES and the versions of the parsers they use
    ("" if a source cannot be read: then nothing is ever reused). Any edit of those modules,
    even a comment, changes it: the next publish then simply validates everything once.
    """
    digest = hashlib.sha256()
    for module in RULE_MODULES:
        try:
            source = module_source(module)
        except OSError:
            return ""
        digest.update(f"{module.__name__}\0{len(source)}\0".encode() + source)
    versions = (
        f"python {sys.version_info.major}.{sys.version_info.minor}; yaml {yaml.__version__} "
        f"{strict_yaml.BASE_LOADER.__name__}; semver {semver.__version__}"
    )
    digest.update(versions.encode())
    return digest.hexdigest()
