"""``python -m goldgate``: the same as the ``goldgate`` console script."""

import sys

if sys.argv[1:2] == ["action"]:  # how action.yml starts it
    from goldgate.app.action.isolation import start_again_first

    start_again_first(sys.argv[1:])

from goldgate.cli import main

main()
