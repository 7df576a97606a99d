"""The one error of the snapshot lifecycle that its commands turn into an exit code."""


class PublishError(Exception):
    """A publish or prune was refused; the message says why (the active snapshot is unchanged)."""
