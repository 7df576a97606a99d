"""The words of the benchmark corpus and the text made of them: plain ASCII words an
engineering team's skills would use (apart from an occasional em dash), driven by one
random.Random so that the same seed always writes the same text."""

from __future__ import annotations

import math
import random


def _words(text: str) -> list[str]:
    return list(dict.fromkeys(text.split()))


TAGS = _words("""
kubernetes terraform docker helm aws gcp azure postgres mysql redis kafka rabbitmq python
javascript typescript go rust java ruby bash security compliance privacy incident-response
on-call observability logging metrics tracing testing code-review ci-cd release deployment
rollback migrations database backups networking dns tls auth oauth api-design documentation
onboarding performance profiling caching frontend accessibility mobile data-pipelines
analytics machine-learning cost-management git refactoring dependencies licensing support
""")

VERBS = _words("""
deploy review migrate debug profile rotate audit restore benchmark document triage release
configure provision upgrade monitor validate refactor package publish scaffold bootstrap
rollback harden tune archive backfill reindex schedule verify reconcile investigate escalate
summarize draft plan estimate test lint format trace replay sample shard partition compress
encrypt sign approve merge rebase bisect cherry-pick tag label route throttle cache warm
drain cordon scale snapshot clone seed seal unseal mirror vendor pin patch triage measure
""")

ADJECTIVES = _words("""
safe fast minimal incremental blue-green canary zero-downtime idempotent reproducible secure
structured weekly nightly quarterly staged partial full cold warm internal external legacy
regional multi-tenant read-only audited encrypted versioned atomic parallel batched streaming
lazy eager strict lenient shared private public stale fresh noisy flaky critical routine
""")

NOUNS = _words("""
cluster service database schema index migration release changelog incident postmortem runbook
dashboard alert pipeline workflow job queue topic consumer producer cache certificate secret
token credential policy role permission bucket volume snapshot backup replica shard partition
endpoint gateway proxy load-balancer dns-record domain container image registry artifact
package dependency lockfile manifest chart module library function handler middleware request
response payload contract interface client server worker scheduler cron budget invoice report
metric trace span log sampler profile benchmark fixture test suite coverage branch commit
pull-request diff patch hotfix feature flag experiment cohort dataset model notebook table
view report ticket customer account tenant region zone node pod namespace deployment ingress
""")

TOOLS = _words("""
kubectl terraform helm docker git make pytest ruff npm cargo go psql redis-cli aws gcloud az
jq curl openssl ssh rsync tar gzip sed awk grep systemctl journalctl strace perf py-spy
""")

FILLER = _words("""
the a an this that each every any our your their its before after during while when then
if unless so because only also never always first next finally carefully quickly again
with without into onto from to for of on in at by over under between across through per
""")

KEYWORDS = list(dict.fromkeys(NOUNS + TOOLS))
# Running text draws from these lists, filler words (the, with, before...) most often; a skill's
# own topic (its tags, and now and then any tag) comes up in about one sentence in three, so a
# technology name is found mostly in the skills about it, as in a real registry.
WORD_POOL = NOUNS * 2 + VERBS + ADJECTIVES + FILLER * 5
TOPIC_RATE = 0.35
CONNECTORS = ["Before you", "After you", "When you", "Once you", "If you need to", "Never", "Always"]
SECTIONS = [
    "When to use",
    "Before you start",
    "Steps",
    "Checks",
    "Common mistakes",
    "Rollback",
    "Examples",
    "Troubleshooting",
    "Notes",
    "References",
]
EM_DASH = "\u2014"


class Writer:
    """Text from the vocabularies, driven by one random.Random so that it is reproducible."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.topic: list[str] = []

    def words(self, low: int, high: int) -> list[str]:
        rng = self.rng
        words = rng.choices(WORD_POOL, k=rng.randint(low, high))
        if rng.random() < TOPIC_RATE:
            pool = self.topic if self.topic and rng.random() < 0.9 else TAGS
            words[rng.randrange(len(words))] = rng.choice(pool)
        return words

    def sentence(self) -> str:
        rng = self.rng
        roll = rng.random()
        if roll < 0.25:
            text = (
                f"{rng.choice(CONNECTORS)} {rng.choice(VERBS)} the {rng.choice(ADJECTIVES)} "
                f"{rng.choice(NOUNS)}, {' '.join(self.words(4, 10))}"
            )
        elif roll < 0.4:
            text = (
                f"Run `{rng.choice(TOOLS)} {rng.choice(VERBS)} {rng.choice(NOUNS)}` to "
                f"{rng.choice(VERBS)} the {rng.choice(NOUNS)} {' '.join(self.words(2, 6))}"
            )
        elif roll < 0.45:
            text = f"{' '.join(self.words(3, 7))} {EM_DASH} {' '.join(self.words(3, 7))}"
        else:
            text = " ".join(self.words(7, 18))
        return text[0].upper() + text[1:] + "."

    def paragraph(self) -> str:
        return " ".join(self.sentence() for _ in range(self.rng.randint(2, 5)))

    def bullets(self, numbered: bool) -> str:
        lines = []
        for number in range(1, self.rng.randint(3, 7) + 1):
            mark = f"{number}." if numbered else "-"
            lines.append(f"{mark} {self.sentence()}")
        return "\n".join(lines)

    def code_block(self) -> str:
        rng = self.rng
        lines = [
            f"{rng.choice(TOOLS)} {rng.choice(VERBS)} {rng.choice(NOUNS)} --{rng.choice(ADJECTIVES)}"
            for _ in range(rng.randint(1, 5))
        ]
        return "```sh\n" + "\n".join(lines) + "\n```"

    def markdown(self, title: str, target: int) -> str:
        """A Markdown document of about `target` bytes (never more), cut on a block boundary."""
        blocks = [f"# {title}", self.paragraph()]
        sections = list(SECTIONS)
        self.rng.shuffle(sections)
        size = sum(len(block.encode()) + 2 for block in blocks)
        index = 0
        while True:
            kind = self.rng.random()
            if index < len(sections) and (kind < 0.3 or size < 200):
                block = f"## {sections[index]}"
                index += 1
            elif kind < 0.55:
                block = self.paragraph()
            elif kind < 0.75:
                block = self.bullets(numbered=kind < 0.65)
            else:
                block = self.code_block()
            grown = size + len(block.encode()) + 2
            if grown > target:
                break
            blocks.append(block)
            size = grown
        return "\n\n".join(blocks) + "\n"

    def plain_text(self, target: int) -> str:
        """Paragraphs of plain text, about `target` bytes (never more)."""
        parts: list[str] = []
        size = 0
        while True:
            block = self.paragraph() + "\n\n"
            if size + len(block.encode()) > target:
                return "".join(parts)
            parts.append(block)
            size += len(block.encode())

    def script(self, ext: str, target: int) -> str:
        rng = self.rng
        comment = "//" if ext in (".js", ".ts") else "#"
        header = {
            ".sh": "#!/usr/bin/env bash\nset -euo pipefail\n",
            ".py": "#!/usr/bin/env python3\n",
            ".rb": "#!/usr/bin/env ruby\n",
            ".js": '"use strict";\n',
            ".ts": "export {};\n",
        }[ext]
        parts = [header]
        size = len(header)
        while True:
            name = f"{rng.choice(VERBS)}_{rng.choice(NOUNS)}".replace("-", "_")
            arg = rng.choice(NOUNS).replace("-", "_")
            lines = [f"{comment} {self.sentence()}"]
            if ext == ".sh":
                lines += [f"{name}() {{", f'  local {arg}="$1"']
                lines += [
                    f'  {rng.choice(TOOLS)} {rng.choice(VERBS)} "${arg}"' for _ in range(rng.randint(1, 4))
                ]
                lines += ["}"]
            elif ext == ".py":
                lines += [f"def {name}({arg}):"]
                lines += [f"    {arg} = {arg}.{rng.choice(VERBS).replace('-', '_')}()" for _ in range(2)]
                lines += [f"    return {arg}"]
            elif ext == ".rb":
                lines += [f"def {name}({arg})", f"  {arg}.{rng.choice(VERBS).replace('-', '_')}", "end"]
            else:
                typed = f"{arg}: string" if ext == ".ts" else arg
                lines += [f"function {name}({typed}) {{", f"  return {arg}.trim();", "}"]
            block = "\n".join(lines) + "\n\n"
            if size + len(block.encode()) > target:
                break
            parts.append(block)
            size += len(block.encode())
        return "".join(parts)


def log_uniform(rng: random.Random, low: int, high: int) -> int:
    return int(math.exp(rng.uniform(math.log(low), math.log(high))))


def fresh_id(rng: random.Random, used: set[str]) -> str:
    """A verb-adjective-noun skill id not in `used`, which gains it."""
    while True:
        skill_id = f"{rng.choice(VERBS)}-{rng.choice(ADJECTIVES)}-{rng.choice(NOUNS)}"
        if skill_id not in used:
            used.add(skill_id)
            return skill_id
