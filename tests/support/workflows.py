"""Run a GitHub Actions job's steps on this machine, as a runner would, for the tests of the
workflow templates in templates/skills-repo/.

Each `run:` script runs in bash (`-eo pipefail`, as on GitHub's Ubuntu runners) in the job's
workspace, with the workflow's, the job's and the step's `env:` merged, `${{ ... }}`
expressions replaced from an explicit table (an expression the table does not know fails the
test: templates and tests move together), and the default GITHUB_* variables. `uses:` steps
are emulated: actions/checkout of the skills repository itself is the workspace (a clone with
its history), of another repository a sparse clone from GITHUB_SERVER_URL; setup-python is
the test's virtualenv, already first on PATH. Any other action fails the test.
"""

import os
import re
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

_EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


@dataclass(frozen=True)
class StepResult:
    name: str
    returncode: int
    output: str  # stdout and stderr together


@dataclass
class JobRun:
    steps: list[StepResult] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(step.returncode == 0 for step in self.steps)

    @property
    def failed(self) -> StepResult | None:
        return next((step for step in self.steps if step.returncode != 0), None)

    def output(self, name: str) -> str:
        return next(step.output for step in self.steps if step.name == name)


def load_workflow(path: Path) -> dict[str, Any]:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def run_scripts(workflow: Mapping[str, Any]) -> list[str]:
    """Every `run:` script of the workflow, in order."""
    return [step["run"] for job in workflow["jobs"].values() for step in job["steps"] if "run" in step]


def step_by_id(workflow: Mapping[str, Any], job: str, step_id: str) -> Mapping[str, Any]:
    return next(step for step in workflow["jobs"][job]["steps"] if step.get("id") == step_id)


def step_name(step: Mapping[str, Any]) -> str:
    return step.get("name") or step.get("uses") or step["run"].splitlines()[0]


def expand(value: Any, expressions: Mapping[str, str]) -> str:
    def replace(match: re.Match[str]) -> str:
        expression = match.group(1)
        if expression not in expressions:
            raise AssertionError(f"the test does not know the expression ${{{{ {expression} }}}}")
        return expressions[expression]

    return _EXPRESSION.sub(replace, str(value))


class Runner:
    """One job of a workflow, run in `workspace` with `base_env` (PATH, HOME, GITHUB_*...)."""

    def __init__(
        self,
        workflow: Mapping[str, Any],
        job: str,
        *,
        workspace: Path,
        base_env: Mapping[str, str],
        expressions: Mapping[str, str],
        skipped_step_ids: tuple[str, ...] = (),
    ) -> None:
        self.workflow = workflow
        self.job = workflow["jobs"][job]
        self.workspace = workspace
        self.base_env = dict(base_env)
        self.expressions = dict(expressions)
        self.skipped_step_ids = skipped_step_ids
        workflow_env = {
            key: expand(value, self.expressions) for key, value in workflow.get("env", {}).items()
        }
        self.expressions.update({f"env.{key}": value for key, value in workflow_env.items()})
        self.job_env = {
            **workflow_env,
            **{key: expand(value, self.expressions) for key, value in self.job.get("env", {}).items()},
        }

    def run_step(self, step_id: str) -> StepResult:
        return self._run(next(step for step in self.job["steps"] if step.get("id") == step_id))

    def run(self) -> JobRun:
        result = JobRun()
        for step in self.job["steps"]:
            if step.get("id") in self.skipped_step_ids:
                continue
            outcome = self._uses(step) if "uses" in step else self._run(step)
            result.steps.append(outcome)
            if outcome.returncode != 0:
                break
        return result

    def _run(self, step: Mapping[str, Any]) -> StepResult:
        script = step["run"]
        assert "${{" not in script, f"{step_name(step)}: pass expressions through env:, never inline"
        env = {
            **self.base_env,
            **self.job_env,
            **{key: expand(value, self.expressions) for key, value in step.get("env", {}).items()},
        }
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
            cwd=self.workspace,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=300,
        )
        return StepResult(step_name(step), done.returncode, done.stdout)

    def _uses(self, step: Mapping[str, Any]) -> StepResult:
        action, _, _version = step["uses"].partition("@")
        options = {key: expand(value, self.expressions) for key, value in step.get("with", {}).items()}
        if action == "actions/setup-python":
            assert options.get("python-version") == "3.11"
        elif action == "actions/checkout" and "repository" in options:
            self._sparse_clone(options)
        elif action == "actions/checkout":
            # The workspace is already a clone of the skills repository with its whole history.
            assert str(options.get("fetch-depth")) == "0", "the version rule and publish need the history"
        else:
            raise AssertionError(f"the test cannot emulate {step['uses']}")
        return StepResult(step_name(step), 0, "")

    def _sparse_clone(self, options: Mapping[str, str]) -> None:
        url = f"{self.base_env['GITHUB_SERVER_URL']}/{options['repository']}.git"
        target = self.workspace / options["path"]
        git = ["git", "-c", "advice.detachedHead=false"]
        subprocess.run([*git, "clone", "-q", "--no-checkout", url, str(target)], check=True)
        subprocess.run(
            [*git, "-C", str(target), "sparse-checkout", "set", options["sparse-checkout"]], check=True
        )
        subprocess.run([*git, "-C", str(target), "checkout", "-q", options["ref"]], check=True)


def github_env(workspace: Path, *, sha: str, event: str, server_url: str, tmp: Path) -> dict[str, str]:
    """The default variables of a GitHub-hosted runner that the templates read."""
    output = tmp / f"github-output-{os.getpid()}"
    output.touch()
    return {
        "CI": "true",
        "GITHUB_ACTIONS": "true",
        "GITHUB_SHA": sha,
        "GITHUB_EVENT_NAME": event,
        "GITHUB_SERVER_URL": server_url,
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_OUTPUT": str(output),
    }
