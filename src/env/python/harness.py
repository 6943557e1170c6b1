"""The InterCode-Python REPL harness.

It runs inside the guest (RustPython compiled to wasm32-wasip1, see main.rs) and, unchanged, under
CPython in the host's differential test, so both interpreters see exactly the same rules.

    handle(request: bytes) -> bytes

A request is one op byte followed by UTF-8 source:

    a   an agent action, printed by upstream's rules (see `printed`)
    x   source executed as is (golds, test setup code, tests, replays)
    r   drop the namespace and start a fresh one (the source is ignored)
    w   warm up: import the whitespace-separated modules into sys.modules only (no names bound)
    c   is the source a complete statement? (an interactive shell asks before running a line)
        replies b"o" when complete or invalid (running it reports the error), b"e" when more
        lines are needed

The reply is b"o" when the code ran without an exception, else b"e" followed by the error line
"Type: message" (the last line of a CPython traceback). stdout and stderr are the process's own
streams; they are flushed before the reply so the host can attribute them to this request.
"""

import ast
import builtins
import sys

# The builtins the harness itself uses, bound here so that an action that replaces one
# (`builtins.len = ...`) changes its own episode's behaviour but not the harness's rules.
from builtins import (
    BaseException,
    Exception,
    SyntaxError,
    compile,
    exec,
    isinstance,
    len,
    repr,
    str,
    type,
)

# Error lines beyond this are cut: a message is for a model to read, and a hostile
# `raise ValueError("x" * 10**8)` must not be copied around whole.
ERROR_LINE_CAP = 16 * 1024

namespace = {}


def fresh_namespace():
    """A namespace like the one `python -c` runs in."""
    global namespace
    namespace = {"__name__": "__main__", "__doc__": None, "__builtins__": builtins}


def printed(action):
    """The source to execute for an agent action.

    Upstream's rule: an action starting with `def ` runs as is; otherwise it is wrapped in
    `print(...)` unless its AST contains an assignment, a call of `print` or an `import`, or the
    action starts with `assert`. Upstream wrapped everything else, so `for`/`if` blocks,
    `from x import y`, `x += 1` or `del x` became `print(for ...)` and failed. Here only an action
    that is a single expression is wrapped; every other statement runs as is.
    """
    if action.startswith("def "):
        return action
    stripped = action.strip()
    try:
        tree = ast.parse(stripped)
    except SyntaxError:
        return action  # executing it reports the error
    if action.startswith("assert"):
        return action
    # An assignment needs a "=", an import the word, a print call the name: without them the
    # walk (tens of microseconds in RustPython, most of a short action's cost) finds nothing.
    if "=" not in stripped and "import" not in stripped and "print" not in stripped:
        nodes = ()
    else:
        nodes = ast.walk(tree)
    for node in nodes:
        if isinstance(node, (ast.Assign, ast.Import)):
            return action
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "print"
        ):
            return action
    if len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr):
        # Newlines keep a trailing comment from swallowing the closing parenthesis.
        return "print(\n" + stripped + "\n)"
    return action


def closing_brackets(source):
    """The brackets that would close what `source` leaves open (strings and comments are
    skipped; good enough to tell "needs more lines" from "invalid")."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    stack, quote, i = [], None, 0
    while i < len(source):
        c = source[i]
        if quote:
            if c == "\\":
                i += 1
            elif source.startswith(quote, i):
                i += len(quote) - 1
                quote = None
        elif c == "#":
            end = source.find("\n", i)
            i = len(source) if end < 0 else end
        elif c in "'\"":
            quote = c * 3 if source.startswith(c * 3, i) else c
            i += len(quote) - 1
        elif c in pairs:
            stack.append(pairs[c])
        elif c in ")]}" and stack:
            stack.pop()
        i += 1
    return "".join(reversed(stack))


def complete(source):
    """Whether an interactive shell should run `source` now or read another line.

    Like CPython's console: a block (a header line ending in `:`, or indented lines) ends at a
    blank line; open brackets and unterminated triple-quoted strings need more lines; anything
    else runs now (invalid input too: running it reports the error). Written out here because
    RustPython's `codeop` accepts a block after its first body line.
    """
    if not source.strip() or source.endswith("\n"):
        return True
    try:
        compile(source, "<stdin>", "exec")
    except SyntaxError:
        # What may follow an incomplete statement: a block body, closing brackets, the end
        # of a triple-quoted string.
        endings = ("\n    pass\n", closing_brackets(source) + "\n", "'" * 3 + "\n", '"' * 3 + "\n")
        for more in endings:
            try:
                compile(source + more, "<stdin>", "exec")
                return False
            except SyntaxError:
                pass
        return True
    lines = source.split("\n")
    return not any(line[:1] in (" ", "\t") for line in lines[1:])


def error_line(exc):
    name = type(exc).__name__
    try:
        text = str(exc)
    except BaseException:  # a hostile __str__
        text = "<exception str() failed>"
    line = name + ": " + text if text else name
    if len(line) > ERROR_LINE_CAP:
        line = line[:ERROR_LINE_CAP] + "... [error message truncated]"
    return line


def flush():
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            stream.flush()
        except BaseException:
            pass


def tabs_expanded(source):
    """`source` with the tabs of its indentation expanded to columns of 8, as CPython reads
    them."""
    lines = []
    for line in source.split("\n"):
        body = line.lstrip(" \t")
        lines.append(line[: len(line) - len(body)].expandtabs(8) + body)
    return "\n".join(lines)


def execute(source):
    try:
        code = compile(source, "<stdin>", "exec")
    except SyntaxError as error:
        # RustPython 0.4 rejects indentation that mixes tabs and spaces in ways CPython reads
        # fine (MBPP 264's gold); read such code with CPython's tab stops instead.
        if "\t" not in source:
            raise
        try:
            code = compile(tabs_expanded(source), "<stdin>", "exec")
        except SyntaxError:
            raise error from None
    exec(code, namespace)


def handle(request):
    op = request[:1]
    source = request[1:].decode("utf-8", "replace")
    try:
        if op == b"r":
            fresh_namespace()
        elif op == b"a":
            execute(printed(source))
        elif op == b"x":
            execute(source)
        elif op == b"c":
            if not complete(source):
                return b"eincomplete"
        elif op == b"w":
            for name in source.split():
                try:
                    __import__(name)
                except Exception:
                    pass
        else:
            return b"eValueError: unknown harness op " + repr(op).encode()
        return b"o"
    except BaseException as exc:  # SystemExit and KeyboardInterrupt are observations too
        if op == b"c":
            return b"o"
        return b"e" + error_line(exc).encode("utf-8", "replace")
    finally:
        flush()


def write_through_stdio():
    """stdout and stderr as text streams that hand every write straight to the host, so what an
    action printed before it was killed (a timeout) reaches the host, as `python3 -u` does.

    RustPython's line-buffered streams passed each line through a buffered writer's write and
    flush, a few Python-level calls per printed line. With the guest's Rust UTF-8 encoder
    (python-guest/src/stdio.rs), `for i in range(1000): print(i)` in the wasm guest measured
    about 5.5 ms line-buffered and 3.5 ms written through (`cargo bench --bench python`)."""
    import io

    for name, fd in (("stdout", 1), ("stderr", 2)):
        old = getattr(sys, name)
        try:
            old.flush()
            stream = io.TextIOWrapper(
                io.FileIO(fd, "wb", closefd=False),
                encoding="utf-8",
                errors=old.errors,
                write_through=True,
            )
        except Exception:
            continue
        setattr(sys, name, stream)
        setattr(sys, "__" + name + "__", stream)


def sandbox_time_zone():
    """The sandbox runs in UTC. RustPython under WASI lacks the time-zone attributes of
    `time`, so `datetime.strptime` failed; CPython has them all, so this changes nothing there."""
    import time

    for name, value in (
        ("tzname", ("UTC", "UTC")),
        ("timezone", 0),
        ("altzone", 0),
        ("daylight", 0),
    ):
        if not hasattr(time, name):
            setattr(time, name, value)


fresh_namespace()
write_through_stdio()
sandbox_time_zone()
