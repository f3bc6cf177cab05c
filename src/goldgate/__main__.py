"""``python -m goldgate``: the same as the ``goldgate`` console script."""

from goldgate.cli import main

main()
