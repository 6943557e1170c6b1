"""BashEnv.exec: an argv run as one process in the episode, with its own stdin, cwd and
environment, stdout and stderr apart — built on the shell quoter in the bindings."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from intercode_wasm import BadInputError, BashEnv, _native

NASTY = [
    "",
    "plain",
    "a b",
    "it's",
    "'",
    "''",
    '"double" $HOME `id` $(id) \\ \\n',
    "line1\nline2\n",
    "tab\there",
    "*?[a-z]{1,2}~!#&;|<>()",
    "-n",
    "ünïcödé ✓",
    "'\\''",
]


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash on the host")
@pytest.mark.parametrize("word", NASTY)
def test_quote_round_trips_through_gnu_bash(word: str) -> None:
    quoted = _native.shell_quote(word)
    out = subprocess.run(
        ["bash", "-c", f"printf '%s' {quoted}"], capture_output=True, text=True, check=True
    )
    assert out.stdout == word


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash on the host")
def test_the_exec_script_does_the_same_under_gnu_bash(tmp_path: object) -> None:
    argv = ["bash", "-c", 'echo "args:$#:$1"; cat; echo "$GREETING" >&2; pwd; exit 3', "x", *NASTY]
    script, marker = _native.exec_script(argv, b"in\x00put\n", "/", [("GREETING", "hi 'there'")])
    out = subprocess.run(["bash", "-c", script], capture_output=True)
    stdout, stderr, found = _native.split_exec_output(out.stdout.decode(), marker)
    assert found and out.returncode == 3
    assert stdout == f"args:{len(NASTY)}:\nin\x00put\n/\n"
    assert stderr == "hi 'there'\n"


@pytest.fixture(scope="module")
def env() -> BashEnv:
    e = BashEnv()
    e.reset(0)
    yield e
    e.close()


def test_exec_separates_the_streams(env: BashEnv) -> None:
    out = env.exec(["bash", "--login", "-c", "echo out; echo err >&2; exit 5"])
    assert out == (5, "out\n", "err\n", True)


@pytest.mark.parametrize("word", NASTY)
def test_exec_passes_arguments_exactly(env: BashEnv, word: str) -> None:
    out = env.exec(["printf", "%s", word])
    assert out.returncode == 0 and out.stdout == word and out.stderr == ""


def test_exec_stdin_cwd_and_environment(env: BashEnv) -> None:
    out = env.exec(
        ["bash", "-c", "pwd; echo \"$A|$B\"; wc -c"],
        stdin="héllo\n",
        cwd="/project/logs",
        env={"A": "one two", "B": "it's"},
    )
    assert out.returncode == 0
    assert out.stdout == "/project/logs\none two|it's\n7\n"


def test_exec_binary_stdin_is_exact(env: BashEnv) -> None:
    data = bytes(range(256)) * 4
    out = env.exec(["sh", "-c", "cat > /tmp/blob; wc -c < /tmp/blob; md5sum /tmp/blob"], data)
    import hashlib

    assert out.stdout.split()[0] == str(len(data))
    assert out.stdout.split()[1] == hashlib.md5(data).hexdigest()


def test_exec_leaves_the_episode_shell_alone(env: BashEnv) -> None:
    env.step("cd /project")
    env.exec(["sh", "-c", "cd /tmp"], cwd="/", env={"X": "1"})
    assert env.step("pwd; echo \"[$X]\"").observation == "/project\n[]\n"


def test_exec_reports_what_it_cannot_run(env: BashEnv) -> None:
    assert env.exec(["no-such-command"]).returncode == 127
    assert env.exec(["true"], cwd="/no/such/dir").returncode == 126
    with pytest.raises(BadInputError):
        env.exec([])
    with pytest.raises(BadInputError):
        env.exec(["true"], env={"NOT VALID": "x"})


def test_exec_is_only_for_bash() -> None:
    from intercode_wasm import SqlEnv

    with SqlEnv() as sql:
        sql.reset(0)
        with pytest.raises(BadInputError):
            sql._native.exec(["ls"])


def test_a_per_call_timeout_stops_the_command_and_leaves_the_limit() -> None:
    with BashEnv() as env:
        env.reset(0)
        out = env.exec(["sleep", "3"], timeout=0.3)
        assert out.returncode is None and out.stdout.strip() == "Command timed out"
        # The env's own limit is back for the next call.
        assert env.exec(["sh", "-c", "sleep 0.5; echo done"]).stdout == "done\n"
        for bad in (0, -1.0, float("nan")):
            with pytest.raises(BadInputError):
                env.exec(["true"], timeout=bad)
