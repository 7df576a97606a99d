"""The open Agent Skills dialect of SKILL.md: a frontmatter without `schema_version`
(docs/reference.md#skill-format).

A team's existing skills publish unchanged, so what the standard allows is accepted and
what it does not know is served as written with a warning. Only what could make the
registry serve a skill wrongly is an error, and above all anything that looks like a
misspelt known key (catalog.typos): a misspelling must never publish a ZDR skill to
everyone.
"""

from typing import Any

from catalog.fields import (
    MAX_ID_CHARS,
    MAX_LIST_ITEMS,
    MAX_METADATA_ENTRIES,
    MAX_METADATA_VALUE_CHARS,
    parse_version,
    type_name,
)
from catalog.strict_yaml import shown
from catalog.typos import near_known_key
from catalog.version_field import VersionField

MAX_COMPATIBILITY_CHARS = 500

OPEN_REQUIRED_KEYS = ("name", "description")
OPEN_KEYS = (
    *OPEN_REQUIRED_KEYS,
    "license",
    "compatibility",
    "metadata",
    "allowed-tools",
    "version",
    "tags",
    "keywords",
    "requires",
    "required_zdr",
)
# Registry-dialect keys: meaningless here (the name is the id, the directory lists the
# files), but a misspelling of one is still refused rather than served as a vendor key.
# `id` takes no part in the comparison: every key of up to three characters is near it.
REGISTRY_ONLY_KEYS = ("schema_version", "files")
# What a key is compared with for a misspelling (catalog.typos).
TYPO_TARGETS = (*OPEN_KEYS, *REGISTRY_ONLY_KEYS)
# What metadata may carry in place of a top-level key, as strings.
METADATA_STAND_INS = ("version", "required_zdr")
_ZDR_STRINGS = {"true": True, "false": False}


class OpenChecker(VersionField):
    """`check` returns the values that passed, under the registry's names (`id` for name)."""

    def check(self, data: dict[Any, Any]) -> dict[str, Any]:
        self._keys(data)
        for key in OPEN_REQUIRED_KEYS:
            if key not in data:
                self.fail("missing_key", f"missing required key {key!r}")
        valid: dict[str, Any] = {"version": None, "tags": (), "keywords": (), "requires": ()}
        valid["required_zdr"] = False  # absent everywhere: the default
        if "name" in data:
            name = self._name(data["name"])
            if name is not None:
                valid["id"] = valid["name"] = name
        if "description" in data and (description := self.description(data["description"])) is not None:
            valid["description"] = description
        if "license" in data:
            self.string("license", data["license"])
        if "compatibility" in data:
            self._compatibility(data["compatibility"])
        if "allowed-tools" in data:
            self._allowed_tools(data["allowed-tools"])
        for key, rule in (("tags", self.tags), ("keywords", self.keywords), ("requires", self.requires)):
            if key in data:
                value = rule(data[key])
                if value is None:
                    del valid[key]
                else:
                    valid[key] = value
        metadata = self._metadata(data.get("metadata", {}))
        self._version(data, metadata, valid)
        self._required_zdr(data, metadata, valid)
        return valid

    # --- keys ------------------------------------------------------------------------------

    def _keys(self, data: dict[Any, Any]) -> None:
        for key in data:
            if key in OPEN_KEYS:
                continue
            if not isinstance(key, str):
                self.warn("vendor_key", f"key {shown(key)} is not part of the format; served as written")
                continue
            if key == "id":
                self.warn("vendor_key", "key 'id' is not used in this dialect (the name is the id)")
            elif key in REGISTRY_ONLY_KEYS:
                self.warn(
                    "vendor_key",
                    f"key {key!r} belongs to the registry dialect (a frontmatter with schema_version) "
                    "and is not used here; served as written",
                )
            elif (near := near_known_key(key, TYPO_TARGETS)) is not None:
                self.fail("unknown_key", f"unknown key {key!r}: did you mean {near!r}?")
            else:
                self.warn(
                    "vendor_key",
                    f"key {key!r} is not part of the open Agent Skills format; served as written, "
                    "not used by the registry",
                )

    # --- the standard's keys -----------------------------------------------------------------

    def _name(self, value: Any) -> str | None:
        bounds = f"1 to {MAX_ID_CHARS} characters (it is the skill's id)"
        return self.skill_id("name", value, shown, bounds, code="invalid_name")

    def _compatibility(self, value: Any) -> None:
        if self.string("compatibility", value) is not None and len(value) > MAX_COMPATIBILITY_CHARS:
            self.fail(
                "invalid_compatibility",
                f"compatibility must be at most {MAX_COMPATIBILITY_CHARS} characters (it has {len(value)})",
            )

    def _allowed_tools(self, value: Any) -> None:
        # The standard's first version says a space-separated string, its newer text also a
        # list of strings; real repositories use both. Served as written, never acted on, and
        # bounded like every list: as a string, its space-separated tools are the items.
        if isinstance(value, str):
            self.string_list("allowed-tools", value.split())
        elif isinstance(value, list):
            self.string_list("allowed-tools", value)
        else:
            self.type_error("allowed-tools", "a string or a list of strings", value)

    def _metadata(self, value: Any) -> dict[Any, Any]:
        """The metadata mapping ({} when unusable); its keys are checked like top-level ones,
        its entries, keys and string values bounded (docs/reference.md#limits)."""
        if not isinstance(value, dict):
            self.type_error("metadata", "a mapping of string keys to string values", value)
            return {}
        if len(value) > MAX_METADATA_ENTRIES:
            self.fail(
                "too_many_items", f"metadata holds {len(value)} entries, more than {MAX_METADATA_ENTRIES}"
            )
            return {}
        self.item_lengths("metadata key", [key for key in value if isinstance(key, str)])
        for key, item in value.items():
            if not isinstance(key, str):
                self.warn(
                    "metadata_not_string", f"metadata key {shown(key)} is not a string; served as written"
                )
                continue
            if isinstance(item, str) and len(item) > MAX_METADATA_VALUE_CHARS:
                self.fail(
                    "item_too_long",
                    f"metadata value of {shown(key)} has {len(item)} characters, "
                    f"more than {MAX_METADATA_VALUE_CHARS}",
                )
            elif isinstance(item, list):
                # A list served as written, bounded as every frontmatter list; its items may be
                # anything YAML holds (warned below), only strings are measured.
                self._metadata_list(key, item)
            if key in METADATA_STAND_INS:
                continue
            near = near_known_key(key, TYPO_TARGETS)
            if near is not None and near != key:
                self.fail("unknown_key", f"unknown metadata key {key!r}: did you mean {near!r}?")
            elif not isinstance(item, str):
                self.warn(
                    "metadata_not_string",
                    f"metadata.{key} is a {type_name(item)}, not a string; served as written",
                )
        return value

    def _metadata_list(self, key: str, items: list[Any]) -> None:
        name = f"metadata list {shown(key)}"
        if len(items) > MAX_LIST_ITEMS:
            self.fail("too_many_items", f"{name} holds {len(items)} items, more than {MAX_LIST_ITEMS}")
            return
        self.item_lengths(f"{name} item", [item for item in items if isinstance(item, str)])

    # --- what metadata may stand in for ------------------------------------------------------

    def _version(self, data: dict[Any, Any], metadata: dict[Any, Any], valid: dict[str, Any]) -> None:
        top = self.version(data["version"]) if "version" in data else None
        if "version" in data and top is None:
            del valid["version"]  # unusable, not absent: the version rule has nothing to compare
            return
        if "version" not in metadata:
            valid["version"] = top
            return
        inner = metadata["version"]
        if "version" in data:
            if inner != data["version"]:
                self.fail(
                    "conflicting_keys",
                    f"version {shown(data['version'])} and metadata.version {shown(inner)} disagree; "
                    "keep one of them",
                )
            valid["version"] = top
            return
        if isinstance(inner, str) and parse_version(inner) is not None:
            valid["version"] = inner
            return
        # The standard's own example is version: "1.0": valid there, only not a version here.
        self.warn(
            "unversioned_metadata_version",
            f'metadata.version {shown(inner)} is not a semantic version (e.g. "1.2.3"), so the skill '
            "is served without a version and the version rule does not apply to it",
        )
        valid["version"] = None

    def _required_zdr(self, data: dict[Any, Any], metadata: dict[Any, Any], valid: dict[str, Any]) -> None:
        given: list[bool | None] = []
        if "required_zdr" in data:
            given.append(self.required_zdr(data["required_zdr"]))
        if "required_zdr" in metadata:
            given.append(self._metadata_zdr(metadata["required_zdr"]))
        if not given:
            return
        if None in given or len(set(given)) > 1:
            if None not in given:
                self.fail(
                    "conflicting_keys",
                    f"required_zdr {shown(data['required_zdr'])} and metadata.required_zdr "
                    f"{shown(metadata['required_zdr'])} disagree; keep one of them",
                )
            # Fail closed: no value, so the skill cannot be valid (an error was reported).
            del valid["required_zdr"]
            return
        valid["required_zdr"] = given[0]

    def _metadata_zdr(self, value: Any) -> bool | None:
        if isinstance(value, str) and value in _ZDR_STRINGS:
            return _ZDR_STRINGS[value]
        hint = " (quote it: metadata values are strings)" if isinstance(value, bool) else ""
        self.fail(
            "invalid_required_zdr",
            f'metadata.required_zdr must be the string "true" or "false", '
            f"not the {type_name(value)} {shown(value)}{hint}",
        )
        return None
