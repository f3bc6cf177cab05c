"""goldgate's side of GitHub: what a workflow run needs from it, kept at the edge.

- ``envfiles``: the step's outputs and job summary files (workflow commands, which are pure
  text, are ``goldgate.render``'s).
- ``event``: what triggered the run, read from ``GITHUB_EVENT_PATH``.
- ``client``: the PyGithub client (Enterprise Server, retries, rate limits);
- ``errors``: its errors, ``GitHubUnavailable`` the one every module turns failures into.
- ``comments``: the sticky pull-request comment.
- ``checkruns``: a check run created in progress, then completed with every annotation.
- ``artifacts``: which artifact holds the baseline report of the merge-base commit;
- ``download``: its zip fetched within a deadline, the token kept from the storage host;
- ``archive``: the zip unpacked without trusting it.

PyGithub is imported only inside functions, so importing this package costs nothing.
"""

__all__ = [
    "archive",
    "artifacts",
    "checkruns",
    "client",
    "comments",
    "download",
    "envfiles",
    "errors",
    "event",
]
