"""goldgate's side of GitHub: what a workflow run needs from it, kept at the edge.

- ``workflow``: workflow commands and environment files (annotations, masks, outputs, the job
  summary); pure text, no network.
- ``event``: what triggered the run, read from ``GITHUB_EVENT_PATH``.
- ``client``: the PyGithub client (Enterprise Server, retries, rate limits) and
  ``GitHubUnavailable``, the one error every other module turns failures into.
- ``comments``: the sticky pull-request comment.
- ``artifacts``: which artifact holds the baseline report of the merge-base commit;
- ``download``: its zip fetched within a deadline, the token kept from the storage host;
- ``archive``: the zip unpacked without trusting it.

PyGithub is imported only inside functions, so importing this package costs nothing.
"""
