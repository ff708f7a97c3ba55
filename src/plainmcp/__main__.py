"""`python -m plainmcp`: the plainmcp command line."""

from plainmcp.cli import main

raise SystemExit(main())
