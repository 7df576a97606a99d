"""Support code of the tests, the benchmark and the conformance run: one home for each helper.

    project         where the project is; manage.py and gunicorn
    skillmd         SKILL.md text (the tests' and the benchmark corpus's)
    repos           real git repositories of skills; registry configs
    standard        the standard skill set most tests serve
    tokens          the tokens the tests present, and the GitHub personas
    mcp             MCP clients (in process, over HTTP); published registries
    databases       databases of their own for manage.py and gunicorn subprocesses
    gunicorn        gunicorn with the project's gunicorn.conf.py
    processes       free ports, a process's children
    e2e             the standard registry served for real
    integrity       the catalog tables read directly, and what is wrong with them
    github_standin  GitHub's /user and OAuth App web flow, on 127.0.0.1
    oauth_inprocess OAuth on inside the test process; rows made directly
    oauth_flow      the OAuth flow driven by hand and by the MCP SDK
    oauth_registry  a registry under gunicorn with OAuth on
    publish_loop    a program that publishes commits back and forth
    landing         the landing page tests' skills, and the words that must stay off it

Conftests hold only fixtures and import from here; nothing imports a conftest.
"""
