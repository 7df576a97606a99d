"""End-to-end fixtures: a real registry (migrated database, published skills, gunicorn).

Modules that need another set-up build their own from tests/support (databases,
gunicorn, standard, e2e).
"""

from collections.abc import Iterator

import pytest

from tests.support.e2e import RegistryServer, serving_standard_registry


@pytest.fixture(scope="module")
def registry_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RegistryServer]:
    """The standard skills, one database and one gunicorn (2 workers) per test module."""
    with serving_standard_registry(tmp_path_factory.mktemp("e2e"), LOG_FORMAT="plain") as server:
        yield server
