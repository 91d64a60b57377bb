import os
import sys

# `python -m codecompass` puts the working directory first on sys.path: run from a checkout
# of one of its own dependencies (pydantic, click, rich), that checkout's package would
# shadow the installed one and the command would crash. Code Compass imports nothing
# from the working directory.
if not sys.flags.safe_path and sys.path and sys.path[0] in ("", os.getcwd()):
    del sys.path[0]

from codecompass.cli import main  # noqa: E402

main()
