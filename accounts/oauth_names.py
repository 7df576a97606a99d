"""Names shared by /mcp's OAuth check (accounts.oauth_tokens) and the server that issues the
tokens (the `oauth` app). Plain constants: settings.py reads them before Django is set up."""

# The one scope this registry grants, and the one /mcp requires.
REQUIRED_SCOPE = "skills:read"
# Every token, refresh token and client secret this server issues starts with this, so
# /mcp recognises them without a lookup and never sends one to GitHub as if it were a PAT.
TOKEN_PREFIX = "sko_"  # noqa: S105 - a public marker, not a secret
