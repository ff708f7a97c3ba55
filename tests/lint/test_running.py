"""`never-run`: whether `python FILE` serves the server the file defines, read from its source."""

from __future__ import annotations

import pytest

from plainmcp.lint.problems import Problem
from plainmcp.lint.running import never_run_problem, runs_when_executed

HEAD = "from plainmcp import Server\napp = Server('s')\n"


@pytest.mark.parametrize(
    "tail",
    [
        'if __name__ == "__main__":\n    app.run()\n',
        "if '__main__' == __name__:\n    app.run(transport='http', port=8001)\n",
        'if __name__ == "__main__":\n    import uvicorn\n    uvicorn.run(app.http_app())\n',
        'def main():\n    app.run()\n\nif __name__ == "__main__":\n    main()\n',
        'def main():\n    go()\n\ndef go():\n    app.run()\n\nif __name__ == "__main__":\n'
        "    raise SystemExit(main())\n",
        'import asyncio\n\nasync def serve():\n    ...\n\nif __name__ == "__main__":\n'
        "    asyncio.run(serve())\n",
        'from mypackage.cli import main\n\nif __name__ == "__main__":\n    main()\n',
        'if __name__ == "__main__":\n    if True:\n        app.run()\n',
    ],
)
def test_what_counts_as_serving_when_run(tail: str) -> None:
    assert runs_when_executed(HEAD + tail)


@pytest.mark.parametrize(
    "tail",
    [
        "",
        "app.tool(print)\n",
        'if __name__ == "__main__":\n    print("starting")\n',
        'def main():\n    app.run()\n\nif __name__ == "__main__":\n    print("no main")\n',
        'if __name__ != "__main__":\n    app.run()\n',
        'def main():\n    main()\n\nif __name__ == "__main__":\n    main()\n',
    ],
)
def test_what_does_not(tail: str) -> None:
    assert not runs_when_executed(HEAD + tail)


def test_the_problem_names_the_file_the_object_and_the_fix() -> None:
    assert never_run_problem(HEAD, "server.py", "app", "app.run()") == Problem(
        "never-run",
        "module",
        "`python server.py` would exit at once: nothing in the file serves app when it is run"
        ' as a script; end it with `if __name__ == "__main__": app.run()`, or have the host'
        " start it with `plainmcp run server.py`",
    )
    assert never_run_problem(HEAD + "app.run()\n", "server.py", "app", "app.run()") is None


def test_source_that_does_not_parse_is_left_to_the_import() -> None:
    assert runs_when_executed("def (:\n")
