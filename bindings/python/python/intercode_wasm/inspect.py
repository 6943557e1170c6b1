"""An inspect_ai sandbox provider that needs no Docker: ``sandbox="intercode"``.

Each sample gets one bash episode of intercode-wasm: a fresh copy of a file tree (the embedded
fixtures' by default, or an nl2bash tree) in the wasm sandbox, with a bash-compatible shell and
the coreutils/findutils/grep/sed/awk/tar the InterCode tasks use. Installed with this package,
the provider registers itself through the ``inspect_ai`` entry point group, so a task only
names it::

    Task(dataset=[...], solver=basic_agent(tools=[bash()]), sandbox="intercode")
    inspect eval task.py --sandbox intercode

A configuration can be given as ``("intercode", IntercodeSandboxConfig(...))`` or as a dict:
which tasks' trees (``spec``, fields of the library's ``EnvSpec``), which task's tree a sample
starts from (``task_index``; a sample's ``metadata["intercode_task"]`` overrides it), the
working directory (``workdir``, default ``/root``), the per-command limit (``timeout_secs``).

What it offers: ``exec`` (an argv with stdin, cwd, environment variables; stdout and stderr
apart), ``read_file``, ``write_file`` (text or binary, parents created), ``Sample.files``,
setup scripts, inspect's ``bash()`` tool, and its ``python()`` tool, run by the bash guest's own
``python3``: RustPython compiled to wasm, started as a process of the episode, so a script reads
and writes the episode's files (and nothing else) like any command. ``python3="interpreter"``
sends such calls to a file-less interpreter instead (the Python env's REPL).

What it cannot offer, and how that fails:

* network (``curl``, ``pip install``, ports): there is none; such commands are not found
  (exit 127, with a note on stderr); :meth:`connection` raises;
* native binaries (ELF files, ``inspect``'s injected sandbox tools such as ``text_editor()``
  and ``bash_session()``): the sandbox runs WebAssembly tools only (exit 126, with a note);
* users other than root: :class:`~inspect_ai.util.SandboxUserUnsupportedError`;
* a per-call ``timeout`` shorter than ``timeout_secs`` is the command's limit: it is stopped
  then and the call raises ``TimeoutError`` (inspect's contract). With
  ``python3="interpreter"``, the file-less interpreter keeps its own limit and the call only
  stops waiting.
"""

from __future__ import annotations

import base64
import os
import posixpath
import shlex
from collections.abc import Callable
from typing import Any, Literal, Optional, TypeVar, Union, overload

import anyio
from inspect_ai.util import (
    ExecResult,
    OutputLimitExceededError,
    SandboxEnvironment,
    SandboxEnvironmentConfigType,
    SandboxEnvironmentLimits,
    SandboxUserUnsupportedError,
    sandboxenv,
)
from pydantic import BaseModel, Field

from ._env import BashEnv, ExecOutput, PythonEnv
from ._errors import UnsupportedFeatureError

__all__ = ["IntercodeSandboxConfig", "IntercodeSandboxEnvironment"]

T = TypeVar("T")

#: Bytes moved per step when reading or writing a file: base64 makes 4/3 of it, well under
#: the sandbox's 1 MiB output cap (a read) and a modest script (a write).
_CHUNK = 512 * 1024

#: Commands that need the network; "not found" for one of them gets a note saying why.
_NETWORK_TOOLS = frozenset(
    "curl wget nc ncat netcat ssh scp sftp ping telnet ftp pip pip3 apt apt-get npm git".split()
)

_ROOT_USERS = (None, "root", "0")


class IntercodeSandboxConfig(BaseModel, frozen=True):
    """Configuration of the ``intercode`` sandbox."""

    spec: dict[str, Any] = Field(default_factory=dict)
    """EnvSpec fields of the bash env (``tasks``, ``fs``, ``clock``, ``data_dir``, …);
    empty: the embedded fixtures."""
    task_index: int = 0
    """The task whose file tree a sample starts from (``metadata["intercode_task"]``
    overrides it per sample)."""
    workdir: str = "/root"
    """The working directory of commands and of relative file paths."""
    timeout_secs: int = 180
    """The most one command may run (the sandbox stops it then)."""
    python3: Literal["auto", "interpreter", "guest"] = "auto"
    """Who runs ``python3``: ``auto`` the bash guest's own (it has one), else the file-less
    interpreter; ``interpreter`` always the interpreter; ``guest`` always the guest."""


def _config(config: Optional[SandboxEnvironmentConfigType]) -> IntercodeSandboxConfig:
    if config is None:
        return IntercodeSandboxConfig()
    if isinstance(config, IntercodeSandboxConfig):
        return config
    if isinstance(config, BaseModel):
        return IntercodeSandboxConfig(**config.model_dump())
    raise UnsupportedFeatureError(
        f"the intercode sandbox takes an IntercodeSandboxConfig or a dict, not a config file "
        f"({config!r}): there is no image or compose file to build"
    )


async def _in_thread(fn: Callable[[], T]) -> T:
    # The library releases the GIL; a worker thread keeps the event loop free meanwhile.
    return await anyio.to_thread.run_sync(fn)


def _python_invocation(cmd: list[str]) -> Optional[list[str]]:
    """The arguments after ``python3`` when ``cmd`` runs Python: ``python3 ARGS`` itself, or
    a shell (``bash --login -c``) whose whole script is one ``python3 ARGS`` command."""
    shells = ("bash", "sh", "/bin/bash", "/bin/sh", "/usr/bin/bash")
    pythons = ("python3", "python", "/usr/bin/python3", "/usr/local/bin/python3")
    if cmd and cmd[0] in pythons:
        return cmd[1:]
    if cmd and cmd[0] in shells and "-c" in cmd:
        at = cmd.index("-c")
        if at + 1 < len(cmd) and all(a in ("-l", "--login") for a in cmd[1:at]):
            try:
                lexer = shlex.shlex(cmd[at + 1], posix=True, punctuation_chars=True)
                lexer.whitespace_split = True
                words = list(lexer)
            except ValueError:
                return None
            # Only a script that is one simple command: operators (`|`, `&&`, `;`,
            # redirections) mean the shell has work to do besides running Python.
            operators = set("();<>|&")
            simple = not any(w and set(w) <= operators for w in words)
            if simple and "\n" not in cmd[at + 1].strip() and words and words[0] in pythons:
                return words[1:]
    return None


@sandboxenv(name="intercode")
class IntercodeSandboxEnvironment(SandboxEnvironment):
    """One sample's sandbox: a bash episode of intercode-wasm (no Docker)."""

    #: Whether the bash guest has a ``python3`` of its own (asked once per process).
    _guest_python3: Optional[bool] = None

    def __init__(self, env: BashEnv, config: IntercodeSandboxConfig) -> None:
        super().__init__()
        self.env = env
        self.config = config
        self._python: Optional[PythonEnv] = None

    # -- lifecycle ------------------------------------------------------------------------

    @classmethod
    def config_deserialize(cls, config: dict[str, Any]) -> BaseModel:
        return IntercodeSandboxConfig(**config)

    @classmethod
    def default_concurrency(cls) -> Optional[int]:
        # Episodes are cheap (a directory and a few MB); commands are CPU-bound wasm.
        return 4 * (os.cpu_count() or 1)

    @classmethod
    async def task_init(
        cls, task_name: str, config: Optional[SandboxEnvironmentConfigType]
    ) -> None:
        # Builds one env up front: a bad spec fails here, once, and the guest module is
        # compiled (or loaded from its cache) before the first sample waits for it.
        cfg = _config(config)

        def check() -> None:
            with BashEnv(cfg.spec, timeout_secs=cfg.timeout_secs) as env:
                if not 0 <= cfg.task_index < len(env.tasks):
                    raise ValueError(
                        f"task_index {cfg.task_index} out of range ({len(env.tasks)} tasks)"
                    )

        await _in_thread(check)

    @classmethod
    async def sample_init(
        cls,
        task_name: str,
        config: Optional[SandboxEnvironmentConfigType],
        metadata: dict[str, str],
    ) -> dict[str, SandboxEnvironment]:
        cfg = _config(config)
        index = int(metadata.get("intercode_task", cfg.task_index))

        def start() -> BashEnv:
            env = BashEnv(cfg.spec, timeout_secs=cfg.timeout_secs)
            try:
                env.reset(index)
                env.exec(["mkdir", "-p", cfg.workdir])
            except BaseException:
                env.close()
                raise
            return env

        env = await _in_thread(start)
        return {"default": cls(env, cfg)}

    @classmethod
    async def sample_cleanup(
        cls,
        task_name: str,
        config: Optional[SandboxEnvironmentConfigType],
        environments: dict[str, SandboxEnvironment],
        interrupted: bool,
    ) -> None:
        for environment in environments.values():
            if isinstance(environment, IntercodeSandboxEnvironment):
                await _in_thread(environment.close)

    @classmethod
    async def task_cleanup(
        cls, task_name: str, config: Optional[SandboxEnvironmentConfigType], cleanup: bool
    ) -> None:
        # Nothing outlives a sample: each one's episode is freed by sample_cleanup.
        return None

    def close(self) -> None:
        """Frees the episode (and the Python interpreter, if one was started)."""
        self.env.close()
        if self._python is not None:
            self._python.close()

    # -- exec -----------------------------------------------------------------------------

    def _path(self, path: str) -> str:
        return posixpath.normpath(posixpath.join(self.config.workdir, path))

    async def exec(
        self,
        cmd: list[str],
        input: Union[str, bytes, None] = None,
        cwd: Optional[str] = None,
        env: Optional[dict[str, str]] = None,
        user: Optional[str] = None,
        timeout: Optional[int] = None,
        timeout_retry: bool = True,
        concurrency: bool = True,
    ) -> ExecResult[str]:
        if user not in _ROOT_USERS:
            raise SandboxUserUnsupportedError(
                f"the intercode sandbox runs every command as root; it has no user {user!r}"
            )
        directory = self._path(cwd or ".")
        data = input.encode("utf-8") if isinstance(input, str) else input
        python_args = _python_invocation(cmd)
        if python_args is not None and await self._use_interpreter():
            run: Callable[[], ExecResult[str]] = lambda: self._run_python(
                python_args, data, directory
            )
            if timeout is not None and timeout < self.config.timeout_secs:
                # The file-less interpreter has its own limit; stop waiting on time.
                with anyio.fail_after(timeout):
                    return await anyio.to_thread.run_sync(run, abandon_on_cancel=True)
        else:
            argv = self._rewrite(cmd)
            # A shorter per-call timeout is the sandbox's limit for this command: it is
            # stopped on time and the sample's next command does not wait for it.
            limit = timeout if timeout is not None and timeout < self.config.timeout_secs else None
            run = lambda: self._run(argv, data, directory, dict(env or {}), limit)
        return await _in_thread(run)

    async def _use_interpreter(self) -> bool:
        mode = self.config.python3
        if mode != "auto":
            return mode == "interpreter"
        cls = type(self)
        if cls._guest_python3 is None:
            out = await _in_thread(
                lambda: self.env.exec(["/bin/sh", "-c", "command -v python3"], cwd="/")
            )
            cls._guest_python3 = out.returncode == 0
        return not cls._guest_python3

    @staticmethod
    def _rewrite(cmd: list[str]) -> list[str]:
        # inspect runs a sample's setup script as `sh -c '…exec env "PATH=…" "$1"' sh FILE`.
        # The guest's `env` applet prints the environment but cannot start a command yet;
        # the shell can, so the launch is done by the shell with the same PATH.
        launch = 'exec env "PATH=$inspect_image_path" "$1"'
        if len(cmd) >= 3 and cmd[1] == "-c" and cmd[2].rstrip().endswith(launch):
            script = cmd[2].rstrip()[: -len(launch)]
            script += 'PATH=$inspect_image_path; export PATH; exec "$1"'
            return [cmd[0], "-c", script, *cmd[3:]]
        return cmd

    def _run(
        self,
        argv: list[str],
        stdin: Optional[bytes],
        cwd: str,
        env: dict[str, str],
        timeout: Optional[float] = None,
    ) -> ExecResult[str]:
        out = self.env.exec(argv, stdin, cwd, env, timeout)
        return self._result(out, timeout)

    def _result(self, out: ExecOutput, timeout: Optional[float] = None) -> ExecResult[str]:
        if out.returncode is None:
            if out.stdout.strip() == "Command timed out":
                limit = timeout if timeout is not None else self.config.timeout_secs
                raise TimeoutError(f"the command ran past its time limit of {limit} s")
            # Stopped by a limit (disk, memory, processes): the reason ends the output.
            return ExecResult(False, 137, out.stdout, out.stderr or out.stdout)
        stderr = out.stderr
        if out.returncode == 126 and "Exec format error" in stderr:
            stderr += (
                "intercode: the sandbox runs WebAssembly tools only; native (ELF) binaries "
                "cannot run in it\n"
            )
        elif out.returncode == 127:
            missing = {
                w for w in _NETWORK_TOOLS if f"{w}: command not found" in stderr
            }
            if missing:
                stderr += (
                    f"intercode: the sandbox has no network, and no {', '.join(sorted(missing))}\n"
                )
        limit = SandboxEnvironmentLimits.MAX_EXEC_OUTPUT_SIZE
        for stream in (out.stdout, stderr):
            if len(stream) > limit:
                raise OutputLimitExceededError(
                    SandboxEnvironmentLimits.MAX_EXEC_OUTPUT_SIZE_STR, stream[-limit:]
                )
        return ExecResult(out.returncode == 0, out.returncode, out.stdout, stderr)

    def _run_python(
        self, args: list[str], stdin: Optional[bytes], cwd: str
    ) -> ExecResult[str]:
        """``python3 ARGS`` on the file-less interpreter: ``-c CODE``, a script file (read
        from the episode), or the script on stdin (``-`` or nothing)."""
        flags = {"-u", "-B", "-E", "-I", "-s", "-S", "-q"}
        while args and args[0] in flags:
            args = args[1:]
        code: Optional[str]
        if not args or args[0] == "-":
            code = (stdin or b"").decode("utf-8", "replace")
            stdin, argv = None, ["-", *args[1:]]
        elif args[0] == "-c" and len(args) >= 2:
            code, argv = args[1], ["-c", *args[2:]]
        elif not args[0].startswith("-"):
            path = posixpath.join(cwd, args[0])
            read = self.env.exec(["cat", path])
            if read.returncode != 0:
                return ExecResult(
                    False, 2, "", f"python3: can't open file {args[0]!r}: {read.stderr}"
                )
            code, argv = read.stdout, args
        else:
            return ExecResult(
                False,
                2,
                "",
                "intercode: python3 here runs a script (-c CODE, a file, or stdin) in a "
                f"file-less interpreter; {args[0]!r} is not supported\n",
            )
        if self._python is None:
            self._python = PythonEnv(timeout_secs=self.config.timeout_secs)
        self._python.reset(0)
        # An assignment first: the REPL then runs the code as a script (it only echoes a
        # lone expression), with sys.argv and stdin as `python3` would set them.
        prelude = f"import sys as _ic_sys\n_ic_sys.argv = {argv!r}\n"
        if stdin:
            prelude += (
                "import io as _ic_io\n"
                f"_ic_sys.stdin = _ic_io.StringIO({stdin.decode('utf-8', 'replace')!r})\n"
            )
        prelude += "del _ic_sys\n"
        step = self._python.step(prelude + code)
        if step.info.get("interrupted") == "timeout":
            raise TimeoutError(
                f"the Python code ran past the limit of {self.config.timeout_secs} s"
            )
        output = step.info.get("output", "")
        error = step.info.get("error", "")
        stdout = output + "\n" if output else ""
        returncode = 0
        if not step.action_executed:
            returncode = 1
            if error.startswith("SystemExit"):
                code_text = error.partition(":")[2].strip()
                returncode = int(code_text) if code_text.lstrip("-").isdigit() else 1
                error = "" if returncode == 0 else error
        stderr = error + "\n" if error else ""
        return ExecResult(returncode == 0, returncode, stdout, stderr)

    # -- files ----------------------------------------------------------------------------

    async def write_file(self, file: str, contents: Union[str, bytes]) -> None:
        data = contents.encode("utf-8") if isinstance(contents, str) else contents
        path = self._path(file)

        def write() -> None:
            first = (
                'd=$(dirname "$1") && mkdir -p "$d" || exit 1\n'
                'if [ -d "$1" ]; then exit 21; fi\n'
                'cat > "$1"'
            )
            chunks = [data[i : i + _CHUNK] for i in range(0, len(data), _CHUNK)] or [b""]
            for n, chunk in enumerate(chunks):
                script = first if n == 0 else 'cat >> "$1"'
                out = self.env.exec(["/bin/sh", "-c", script, "sh", path], chunk)
                if out.returncode == 21:
                    raise IsADirectoryError(f"{file} is a directory")
                if out.returncode != 0:
                    raise PermissionError(f"cannot write {file}: {out.stderr or out.stdout}")

        await _in_thread(write)

    @overload
    async def read_file(self, file: str, text: Literal[True] = True) -> str: ...

    @overload
    async def read_file(self, file: str, text: Literal[False]) -> bytes: ...

    async def read_file(self, file: str, text: bool = True) -> Union[str, bytes]:
        path = self._path(file)

        def read() -> bytes:
            check = (
                'if [ -d "$1" ]; then exit 21; fi\n'
                'if [ ! -e "$1" ]; then exit 2; fi\n'
                'wc -c < "$1"'
            )
            out = self.env.exec(["/bin/sh", "-c", check, "sh", path])
            if out.returncode == 21:
                raise IsADirectoryError(f"{file} is a directory")
            if out.returncode == 2:
                raise FileNotFoundError(f"{file} does not exist in the sandbox")
            if out.returncode != 0:
                raise PermissionError(f"cannot read {file}: {out.stderr}")
            size = int(out.stdout.split()[0])
            if size > SandboxEnvironmentLimits.MAX_READ_FILE_SIZE:
                raise OutputLimitExceededError(
                    SandboxEnvironmentLimits.MAX_READ_FILE_SIZE_STR, None
                )
            parts = []
            for skip in range(0, max(1, -(-size // _CHUNK))):
                chunk = self.env.exec(
                    [
                        "/bin/sh",
                        "-c",
                        f'dd if="$1" bs={_CHUNK} skip={skip} count=1 2>/dev/null | base64',
                        "sh",
                        path,
                    ]
                )
                parts.append(base64.b64decode(chunk.stdout))
            data = b"".join(parts)
            if len(data) != size:
                raise OSError(f"{file} changed while it was read ({size} → {len(data)} bytes)")
            return data

        data = await _in_thread(read)
        return data.decode("utf-8") if text else data

    async def connection(self, *, user: Optional[str] = None) -> Any:
        raise UnsupportedFeatureError(
            "the intercode sandbox has no shell to connect to: it is a wasm sandbox inside "
            "the eval process, with no network"
        )
