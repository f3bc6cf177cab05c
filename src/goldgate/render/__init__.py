"""Rendering: pure functions from a report (and, later, a comparison) to text for CI.

- ``junit``: JUnit XML for the checks tab;
- ``markdown``: a pull-request comment or a job summary, within GitHub's size limits;
- ``annotations``: GitHub workflow commands pointing at each failing case's gold line;
- ``workflow``: the one writer of workflow commands (escaping, one command a line, masks);
- ``terminal``: ``goldgate report show``, for people at a terminal or reading a CI log.

Each renderer reads a ``view.ReportView`` built once from the report, so a comparison can
be added to the view without restructuring the renderers. Nothing here reads or writes a
file or talks to the network: the CLI does the I/O, and (later) ``goldgate.github`` posts.
"""
