"""templates/skills-repo/: the CI workflows for a skills repository of its own, linted with
actionlint and run, step by step, against fixture repositories (tests/support/workflows.py).

The registry is pip-installed ONCE per session, by the templates' own install step, from a
local git "server" laid out as GitHub is (GITHUB_SERVER_URL=file://.../server, the template's
EXAMPLE/skills-registry.git, whose `main` is the code under test: HEAD, or `git stash create`
when tracked files have uncommitted edits). The speed-up: pip runs offline (no index, no
dependencies, no build isolation), into a virtualenv that sees the project's .venv
site-packages through a .pth file, so the dependencies are the ones the suite already runs on
and only the project itself is built and installed: a few seconds instead of a download of
every dependency. The project's own .pth (its editable install) is not processed there, so
`import skillsite` is the installed copy, never the work tree.
"""

import os
import subprocess
import sys
import sysconfig
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.databases import TempDatabase
from tests.support.gunicorn import GunicornServer
from tests.support.project import PROJECT_DIR
from tests.support.repos import SkillRepo
from tests.support.skillmd import skill_md
from tests.support.workflows import JobRun, Runner, github_env, load_workflow, run_scripts, step_by_id

pytestmark = pytest.mark.e2e

TEMPLATES = PROJECT_DIR / "templates" / "skills-repo"
WORKFLOWS = TEMPLATES / ".github" / "workflows"
VALIDATE = load_workflow(WORKFLOWS / "validate-skills.yml")
PUBLISH = load_workflow(WORKFLOWS / "publish-skills.yml")
SMOKE_TOKEN = "smoke-token-for-the-template-test"
OFFLINE_PIP = {
    "PIP_CONFIG_FILE": os.devnull,
    "PIP_NO_INDEX": "1",
    "PIP_NO_DEPS": "1",
    "PIP_NO_BUILD_ISOLATION": "0",  # pip's spelling of --no-build-isolation
    "PIP_DISABLE_PIP_VERSION_CHECK": "1",
}


@dataclass(frozen=True)
class Installed:
    """The registry pip-installed as the templates install it."""

    bin_dir: Path
    server_url: str  # GITHUB_SERVER_URL of the local git server
    sha: str  # the commit installed

    def env(self, home: Path, **extra: str) -> dict[str, str]:
        return {"PATH": f"{self.bin_dir}:/usr/bin:/bin", "HOME": str(home), **OFFLINE_PIP, **extra}


def _git(*args: str, cwd: Path = PROJECT_DIR) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    root = tmp_path_factory.mktemp("registry-install")
    sha = _git("stash", "create") or _git("rev-parse", "HEAD")
    server = root / "server"
    bare = server / "EXAMPLE" / "skills-registry.git"
    _git("init", "-q", "--bare", str(bare))
    _git("push", "-q", "--no-verify", "--force", str(bare), f"{sha}:refs/heads/main")
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    purelib = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    Path(purelib, "suite-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    result = Installed(venv / "bin", f"file://{server}", sha)

    runner = Runner(
        VALIDATE,
        "check",
        workspace=root,
        base_env=result.env(root, GITHUB_SERVER_URL=result.server_url),
        expressions={},
    )
    done = runner.run_step("install")
    assert done.returncode == 0, done.output
    assert (result.bin_dir / "skills-registry").exists(), done.output
    return result


# --- the templates themselves ----------------------------------------------------------------


def test_the_templates_pass_actionlint() -> None:
    actionlint = Path(sys.executable).parent / "actionlint"
    files = sorted(str(path) for path in WORKFLOWS.glob("*.yml"))
    done = subprocess.run([str(actionlint), *files], capture_output=True, text=True)
    assert (done.returncode, done.stdout + done.stderr) == (0, "")


def test_both_workflows_install_the_registry_the_same_way() -> None:
    # The session fixture runs validate-skills' install step once for both.
    assert step_by_id(VALIDATE, "check", "install") == step_by_id(PUBLISH, "publish", "install")


def test_every_run_script_is_exercised_here() -> None:
    # Expressions go through env:, so that a branch name can never inject shell code.
    assert all("${{" not in script for script in run_scripts(VALIDATE) + run_scripts(PUBLISH))


def test_the_installed_package_is_not_the_work_tree(installed: Installed, tmp_path: Path) -> None:
    done = subprocess.run(
        [str(installed.bin_dir / "python"), "-c", "import skillsite; print(skillsite.__file__)"],
        env=installed.env(tmp_path),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert not done.stdout.startswith(str(PROJECT_DIR))


# --- skills-registry, installed --------------------------------------------------------------


def test_the_console_script_checks_with_an_empty_environment(installed: Installed, tmp_path: Path) -> None:
    repo = SkillRepo(tmp_path / "skills")
    repo.remove("registry.config.json")
    repo.add_skill("alpha")
    repo.commit()
    done = subprocess.run(
        [str(installed.bin_dir / "skills-registry"), "check"],
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        cwd=repo.root,
        capture_output=True,
        text=True,
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == "registry.config.json: not found; using the built-in defaults\nOK: 1 skill valid.\n"


def test_the_console_script_will_not_publish_without_a_database(installed: Installed, tmp_path: Path) -> None:
    done = subprocess.run(
        [str(installed.bin_dir / "skills-registry"), "publish", "HEAD"],
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    assert "set DATABASE_URL to the registry's database" in done.stderr


# --- validate-skills.yml ---------------------------------------------------------------------


@pytest.fixture
def pull_request(make_repo: Callable[..., SkillRepo], tmp_path: Path) -> Callable[..., Path]:
    """A clone of a skills repository checked out at a pull request's branch, whose change
    `edit(repo)` makes on top of main."""

    def make(edit: Callable[[SkillRepo], None]) -> Path:
        origin = make_repo()
        origin.add_skill("alpha", files={"references/guide.md": "# Guide\n"})
        origin.add_skill("beta")
        origin.commit("main")
        origin.git("checkout", "-q", "-b", "change")
        edit(origin)
        origin.commit("the pull request")
        origin.git("checkout", "-q", "main")
        workspace = tmp_path / "workspace"
        _git("clone", "-q", "--branch", "change", str(origin.root), str(workspace), cwd=tmp_path)
        return workspace

    return make


def validate(installed: Installed, workspace: Path, tmp_path: Path) -> JobRun:
    env = installed.env(tmp_path) | github_env(
        workspace,
        sha=_git("rev-parse", "HEAD", cwd=workspace),
        event="pull_request",
        server_url=installed.server_url,
        tmp=tmp_path,
    )
    runner = Runner(
        VALIDATE,
        "check",
        workspace=workspace,
        base_env=env,
        expressions={"github.base_ref": "main"},
        skipped_step_ids=("install",),
    )
    return runner.run()


def test_a_pull_request_with_a_bumped_skill_passes(
    installed: Installed, pull_request, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    workspace = pull_request(lambda repo: repo.add_skill("beta", body="Better steps.\n", version="1.1.0"))
    run = validate(installed, workspace, tmp_path)
    assert run.ok, run.failed
    assert run.steps[-1].output == "OK: 2 skills valid.\n"


def test_a_pull_request_changing_a_skill_without_a_bump_fails(  # type: ignore[no-untyped-def]
    installed: Installed, pull_request, tmp_path: Path
) -> None:
    workspace = pull_request(lambda repo: repo.write("skills/alpha/references/guide.md", "# Guide, new\n"))
    run = validate(installed, workspace, tmp_path)
    assert run.failed is not None and run.failed.returncode == 1
    assert (
        "skills/alpha/SKILL.md: content changed since the base revision but version 1.0.0 is not greater"
        in run.failed.output
    )


def test_a_pull_request_breaking_a_rule_fails(installed: Installed, pull_request, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    workspace = pull_request(
        lambda repo: repo.write("skills/beta/SKILL.md", skill_md("beta", required_zrd=True))
    )
    run = validate(installed, workspace, tmp_path)
    assert run.failed is not None
    assert (
        "skills/beta/SKILL.md: unknown key 'required_zrd': did you mean 'required_zdr'?" in run.failed.output
    )


# --- publish-skills.yml ----------------------------------------------------------------------


@dataclass
class Deployment:
    installed: Installed
    database: TempDatabase
    tmp: Path
    server: GunicornServer | None = None

    def expressions(self, **overrides: str) -> dict[str, str]:
        values = {
            "secrets.DATABASE_URL": self.database.url,
            "secrets.DJANGO_SECRET_KEY": "publishing-signs-nothing",
            "secrets.SKILLS_SMOKE_TOKEN": SMOKE_TOKEN,
            "vars.REGISTRY_URL": self.server.url if self.server else "http://127.0.0.1:9",
            "inputs.switch_repository": "",
        }
        return values | overrides

    def run(self, job: str, workspace: Path, sha: str = "", **overrides: str) -> JobRun:
        env = self.installed.env(self.tmp) | github_env(
            workspace,
            sha=sha or _git("rev-parse", "HEAD", cwd=workspace),
            event="push",
            server_url=self.installed.server_url,
            tmp=self.tmp,
        )
        runner = Runner(
            PUBLISH,
            job,
            workspace=workspace,
            base_env=env,
            expressions=self.expressions(**overrides),
            skipped_step_ids=("install",),
        )
        return runner.run()


@pytest.fixture
def deployment(installed: Installed, tmp_path: Path) -> Iterator[Deployment]:
    with TempDatabase(tmp_path / "database") as database:
        found = Deployment(installed, database, tmp_path)
        yield found
        if found.server is not None:
            found.server.stop()


def skills_clone(make_repo: Callable[..., SkillRepo], where: Path, *skill_ids: str) -> Path:
    origin = make_repo()
    for skill_id in skill_ids:
        origin.add_skill(skill_id)
    origin.commit()
    _git("clone", "-q", str(origin.root), str(where), cwd=where.parent)
    return where


def serve(deployment: Deployment) -> None:
    env = deployment.database.env(SKILLS_READ_TOKENS=SMOKE_TOKEN)
    deployment.server = GunicornServer(env, workers=1, log_path=deployment.tmp / "gunicorn.log")
    deployment.server.start(timeout=60)


def test_a_push_to_main_is_published_and_smoke_tested(
    deployment: Deployment, make_repo, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    workspace = skills_clone(make_repo, tmp_path / "workspace", "alpha", "beta")
    sha = _git("rev-parse", "HEAD", cwd=workspace)

    published = deployment.run("publish", workspace)

    assert published.ok, published.failed
    assert published.output("Publish").splitlines()[-1].startswith(f"Published {sha}: 2 skills")
    serve(deployment)
    fresh_runner = tmp_path / "smoke"
    fresh_runner.mkdir()
    smoke = deployment.run("smoke", fresh_runner, sha=sha)
    assert smoke.ok, smoke.failed


def test_the_first_publish_over_another_repository_needs_the_switch(  # type: ignore[no-untyped-def]
    deployment: Deployment, make_repo, tmp_path: Path
) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    before = skills_clone(make_repo, tmp_path / "a" / "workspace", "bundled")
    assert deployment.run("publish", before).ok
    workspace = skills_clone(make_repo, tmp_path / "b" / "workspace", "alpha")

    refused = deployment.run("publish", workspace)

    assert refused.failed is not None and refused.failed.name == "Publish"
    assert "Pass --switch-repository to make this repository the registry's source" in refused.failed.output
    switched = deployment.run("publish", workspace, **{"inputs.switch_repository": "true"})
    assert switched.ok, switched.failed
    assert "of another repository" in switched.output("Publish")


def test_publishing_without_the_secrets_says_which_are_missing(  # type: ignore[no-untyped-def]
    deployment: Deployment, make_repo, tmp_path: Path
) -> None:
    workspace = skills_clone(make_repo, tmp_path / "workspace", "alpha")
    run = deployment.run(
        "publish", workspace, **{"secrets.DATABASE_URL": "", "secrets.DJANGO_SECRET_KEY": ""}
    )
    assert run.failed is not None and run.failed.name == "Check the secrets are set"
    assert "::error::Missing secrets: DATABASE_URL DJANGO_SECRET_KEY" in run.failed.output
