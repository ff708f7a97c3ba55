"""Whether `python FILE` serves the server a file defines, read from its source (sans I/O: the
file is never run for this; the command reads it and hands the text in).

A file serves when it is run if a statement at its top level, or in its `if __name__ ==
"__main__":` block, calls something named `run`, `run_*` or `serve*` (`app.run()`,
`uvicorn.run(web)`, `anyio.run(main)`, `asyncio.run(serve())`), directly or through functions
the file defines (`main()` whose body calls `app.run()`), or calls a function the file imports
(what it does cannot be seen here, so it is given the benefit of the doubt).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from plainmcp.lint.problems import Problem


def _is_main_test(test: ast.expr) -> bool:
    """`__name__ == "__main__"`, either way round."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return False
    if not isinstance(test.ops[0], ast.Eq):
        return False
    sides = [test.left, test.comparators[0]]
    names = [s.id for s in sides if isinstance(s, ast.Name)]
    texts = [s.value for s in sides if isinstance(s, ast.Constant)]
    return names == ["__name__"] and texts == ["__main__"]


def _called(node: ast.AST) -> Iterator[str]:
    """The name each call under `node` calls: `app.run()` gives run, `main()` gives main."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            func = sub.func
            if isinstance(func, ast.Attribute):
                yield func.attr
            elif isinstance(func, ast.Name):
                yield func.id


def _serves(name: str) -> bool:
    return name == "run" or name.startswith(("run_", "serve"))


def runs_when_executed(source: str) -> bool:
    """Whether running the module's source as a script reaches a call that serves (see the
    module's docstring). Source that does not parse is taken as running: the import says so."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return True
    defined: dict[str, ast.AST] = {}
    imported: set[str] = set()
    entry: list[ast.AST] = []
    for statement in tree.body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
            defined[statement.name] = statement
        elif isinstance(statement, ast.Import | ast.ImportFrom):
            imported.update((a.asname or a.name).split(".")[0] for a in statement.names)
        elif isinstance(statement, ast.If) and _is_main_test(statement.test):
            entry.extend(statement.body)
        elif isinstance(statement, ast.Expr):
            entry.append(statement)
    seen: set[str] = set()
    todo = [name for node in entry for name in _called(node)]
    while todo:
        name = todo.pop()
        if _serves(name) or (name in imported and name not in defined):
            return True
        if name in defined and name not in seen:
            seen.add(name)
            todo.extend(_called(defined[name]))
    return False


def never_run_problem(source: str, file: str, obj: str, serve: str) -> Problem | None:
    """The problem of a server file that `python FILE` would import and leave at once; `serve`
    is the call that would serve `obj` (`app.run()`)."""
    if runs_when_executed(source):
        return None
    return Problem(
        "never-run",
        "module",
        f"`python {file}` would exit at once: nothing in the file serves {obj} when it is run"
        f' as a script; end it with `if __name__ == "__main__": {serve}`, or have the host'
        f" start it with `plainmcp run {file}`",
    )
