"""The tokens the tests present. Each suite's fixtures (or its server's environment) put
READ_TOKEN in SKILLS_READ_TOKENS and ZDR_TOKEN in SKILLS_ZDR_TOKENS.

The GitHub personas of the accounts tests: alice is allowed in, carol is cleared for ZDR,
bob is nobody's friend; their tokens are answered by the GitHub stand-in.
"""

READ_TOKEN = "test-read-token-0123456789"
ZDR_TOKEN = "test-zdr-token-9876543210"

ALICE_TOKEN = "ghp_alice0000000000000000000000000000000"
BOB_TOKEN = "ghp_bob000000000000000000000000000000000"
CAROL_TOKEN = "github_pat_carol_0000000000000000000000000"
