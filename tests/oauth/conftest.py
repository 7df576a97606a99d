from collections.abc import Iterator

import pytest

from tests.support.oauth_registry import OAuthRegistry, serving_oauth_registry


@pytest.fixture(scope="module")
def oauth_registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OAuthRegistry]:
    """One GitHub stand-in, one database and one gunicorn with OAuth on, per module."""
    with serving_oauth_registry(tmp_path_factory.mktemp("oauth")) as registry:
        yield registry
