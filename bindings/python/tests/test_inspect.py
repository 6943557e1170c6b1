"""The inspect_ai sandbox provider: its API directly, then an eval end to end with a scripted
model (``mockllm/model``) and ``sandbox="intercode"``, read back from its log."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

inspect_ai = pytest.importorskip("inspect_ai")

from inspect_ai import Task, eval as inspect_eval  # noqa: E402
from inspect_ai.dataset import Sample  # noqa: E402
from inspect_ai.log import read_eval_log  # noqa: E402
from inspect_ai.model import (  # noqa: E402
    ChatMessage,
    ChatMessageTool,
    ModelOutput,
    ModelUsage,
    get_model,
)
from inspect_ai.scorer import includes  # noqa: E402
from inspect_ai.solver import generate, use_tools  # noqa: E402
from inspect_ai.tool import bash, python  # noqa: E402
from inspect_ai.util import SandboxUserUnsupportedError  # noqa: E402

from intercode_wasm import UnsupportedFeatureError  # noqa: E402
from intercode_wasm.inspect import IntercodeSandboxEnvironment  # noqa: E402


def run(coro: Any) -> Any:
    return asyncio.run(coro)


@pytest.fixture()
def sandbox() -> IntercodeSandboxEnvironment:
    envs = run(IntercodeSandboxEnvironment.sample_init("t", None, {}))
    box = envs["default"]
    assert isinstance(box, IntercodeSandboxEnvironment)
    yield box
    run(IntercodeSandboxEnvironment.sample_cleanup("t", None, envs, False))


def test_the_provider_is_found_through_the_entry_point() -> None:
    from inspect_ai.util._sandbox.registry import registry_find_sandboxenv

    assert registry_find_sandboxenv("intercode") is IntercodeSandboxEnvironment


def test_exec_like_the_bash_tool(sandbox: IntercodeSandboxEnvironment) -> None:
    r = run(sandbox.exec(["bash", "--login", "-c", "pwd; echo err >&2; exit 3"]))
    assert (r.success, r.returncode, r.stdout, r.stderr) == (False, 3, "/root\n", "err\n")
    r = run(sandbox.exec(["cat"], input="from stdin", cwd="/project", env={"X": "1"}))
    assert r.success and r.stdout == "from stdin"
    r = run(sandbox.exec(["sh", "-c", "echo $X; pwd"], cwd="/project", env={"X": "1"}))
    assert r.stdout == "1\n/project\n"


def test_files_in_and_out(sandbox: IntercodeSandboxEnvironment) -> None:
    run(sandbox.write_file("notes/a.txt", "line one\r\nline two"))
    assert run(sandbox.read_file("/root/notes/a.txt")) == "line one\r\nline two"
    blob = bytes(range(256)) * 5000  # 1.2 MiB: several chunks each way
    run(sandbox.write_file("/tmp/blob.bin", blob))
    assert run(sandbox.read_file("/tmp/blob.bin", text=False)) == blob
    run(sandbox.write_file("empty", b""))
    assert run(sandbox.read_file("empty")) == ""
    with pytest.raises(FileNotFoundError):
        run(sandbox.read_file("missing.txt"))
    with pytest.raises(IsADirectoryError):
        run(sandbox.read_file("/project"))
    with pytest.raises(IsADirectoryError):
        run(sandbox.write_file("/project", "x"))
    run(sandbox.write_file("bad.txt", b"\xff\xfe"))
    with pytest.raises(UnicodeDecodeError):
        run(sandbox.read_file("bad.txt"))


def test_python_tool_commands(sandbox: IntercodeSandboxEnvironment) -> None:
    r = run(sandbox.exec(["bash", "--login", "-c", "python3 -"], input="print(6 * 7)\n"))
    assert (r.returncode, r.stdout, r.stderr) == (0, "42\n", "")
    r = run(sandbox.exec(["python3", "-c", "import sys; print(sys.argv[1:])", "a"]))
    assert r.stdout == "['a']\n"
    r = run(sandbox.exec(["python3", "-c", "raise ValueError('no')"]))
    assert r.returncode == 1 and "ValueError: no" in r.stderr
    run(sandbox.write_file("prog.py", "import sys\nprint(sys.stdin.read().upper())\n"))
    r = run(sandbox.exec(["python3", "prog.py"], input="shout"))
    assert r.stdout == "SHOUT\n"


def test_python_runs_inside_the_episode(sandbox: IntercodeSandboxEnvironment) -> None:
    # The guest's own python3: a process of the episode, seeing and changing its files.
    code = "import os\nopen('made_by_python.txt', 'w').write(str(os.path.isdir('/project')))\n"
    r = run(sandbox.exec(["bash", "--login", "-c", "python3 -"], input=code))
    assert (r.returncode, r.stderr) == (0, "")
    assert run(sandbox.read_file("made_by_python.txt")) == "True"
    r = run(sandbox.exec(["sh", "-c", "python3 -c 'print(input())' | tr a-z A-Z"], input="piped"))
    assert r.stdout == "PIPED\n"


def test_what_it_cannot_offer_fails_clearly(sandbox: IntercodeSandboxEnvironment) -> None:
    with pytest.raises(SandboxUserUnsupportedError):
        run(sandbox.exec(["id"], user="nobody"))
    assert run(sandbox.exec(["id", "-u"], user="root")).stdout == "0\n"
    with pytest.raises(UnsupportedFeatureError):
        run(sandbox.connection())
    # curl answers as Ubuntu does with networking disabled; a tool upstream lacked is
    # missing, with a note on what the sandbox cannot offer.
    r = run(sandbox.exec(["bash", "-c", "curl -s http://localhost/"]))
    assert r.returncode == 7
    r = run(sandbox.exec(["bash", "-c", "wget http://localhost/"]))
    assert r.returncode == 127 and "no network" in r.stderr
    run(sandbox.write_file("native", b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 64))
    r = run(sandbox.exec(["sh", "-c", "chmod +x native && ./native"]))
    assert r.returncode == 126 and "native (ELF) binaries" in r.stderr


def test_a_short_timeout_raises(sandbox: IntercodeSandboxEnvironment) -> None:
    with pytest.raises(TimeoutError):
        run(sandbox.exec(["sleep", "2"], timeout=1))


def test_a_short_timeout_stops_the_command(sandbox: IntercodeSandboxEnvironment) -> None:
    start = time.monotonic()
    with pytest.raises(TimeoutError):
        run(sandbox.exec(["sh", "-c", "sleep 5; echo late > late.txt"], timeout=1))
    # Stopped, not abandoned: the next command runs at once and the file never appears.
    r = run(sandbox.exec(["sh", "-c", "sleep 5.5; test -e late.txt; echo $?"]))
    assert r.stdout == "1\n"
    assert time.monotonic() - start < 10


def test_a_config_and_a_sample_task_choose_the_tree() -> None:
    config = {"task_index": 1, "workdir": "/project"}
    envs = run(IntercodeSandboxEnvironment.sample_init("t", None, {"intercode_task": "2"}))
    try:
        box = envs["default"]
        assert isinstance(box, IntercodeSandboxEnvironment)
        assert box.env.current_index == 2
    finally:
        run(IntercodeSandboxEnvironment.sample_cleanup("t", None, envs, False))
    model = IntercodeSandboxEnvironment.config_deserialize(config)
    envs = run(IntercodeSandboxEnvironment.sample_init("t", model, {}))
    try:
        box = envs["default"]
        assert isinstance(box, IntercodeSandboxEnvironment)
        assert box.env.current_index == 1
        assert run(box.exec(["pwd"])).stdout == "/project\n"
    finally:
        run(IntercodeSandboxEnvironment.sample_cleanup("t", model, envs, False))


def test_a_config_file_is_refused() -> None:
    with pytest.raises(UnsupportedFeatureError):
        run(IntercodeSandboxEnvironment.sample_init("t", "compose.yaml", {}))


# -- an eval end to end ----------------------------------------------------------------------

#: Per sample: the tool call the scripted model makes first.
CALLS = {
    "count": ("bash", {"command": "grep -c ERROR /project/logs/app.log"}),
    "sorted": ("bash", {"command": "tr '\\n' ' ' < data/sorted.txt"}),
    "python": ("python", {"code": "print(sum(range(10)))"}),
}


def scripted_model(
    messages: list[ChatMessage], tools: Any, tool_choice: Any, config: Any
) -> ModelOutput:
    """First the sample's tool call; then the tool's output as the answer (so the answer is
    right only if the sandbox really ran the command)."""
    if isinstance(messages[-1], ChatMessageTool):
        output = ModelOutput.from_content("mockllm/model", f"ANSWER: {messages[-1].text.strip()}")
    else:
        prompt = messages[-1].text
        key = next(k for k in CALLS if f"[{k}]" in prompt)
        tool, args = CALLS[key]
        output = ModelOutput.for_tool_call("mockllm/model", tool, args)
    # Usage given: otherwise mockllm counts tokens with tiktoken, which downloads its
    # encoding from the network on first use.
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return output


def smoke_task() -> Task:
    return Task(
        dataset=[
            Sample(
                id="count",
                input="[count] How many lines of /project/logs/app.log contain ERROR?",
                target="4",
            ),
            Sample(
                id="sorted",
                input="[sorted] Print data/sorted.txt on one line.",
                target="1 2 3",
                files={"data/numbers.txt": "3\n1\n2\n"},
                setup="sort -n data/numbers.txt > data/sorted.txt",
            ),
            Sample(id="python", input="[python] What is the sum of 0..9?", target="45"),
        ],
        solver=[use_tools([bash(timeout=60), python(timeout=60)]), generate()],
        scorer=includes(),
        sandbox="intercode",
    )


def test_inspect_eval_end_to_end(tmp_path: Path) -> None:
    model = get_model("mockllm/model", custom_outputs=scripted_model)
    logs = inspect_eval(
        smoke_task(),
        model=model,
        sandbox="intercode",
        log_dir=str(tmp_path),
        display="none",
    )
    assert len(logs) == 1 and logs[0].status == "success", logs[0].error
    log = read_eval_log(logs[0].location)
    assert log.eval.sandbox is not None and log.eval.sandbox.type == "intercode"
    assert log.results is not None
    scores = {s.id: s.scores["includes"].value for s in log.samples or []}
    assert scores == {"count": "C", "sorted": "C", "python": "C"}, [
        (s.id, s.output.completion) for s in log.samples or []
    ]
    assert log.results.scores[0].metrics["accuracy"].value == 1.0


def test_inspect_eval_command_line(tmp_path: Path) -> None:
    """``inspect eval TASK --sandbox intercode`` in a fresh process: inspect finds the
    provider through the entry point, with nothing of this package imported first."""
    task_file = Path(__file__).parent / "fixtures" / "inspect_task.py"
    inspect_cmd = Path(sys.executable).parent / "inspect"
    out = subprocess.run(
        [
            str(inspect_cmd),
            "eval",
            task_file.name,
            "--model",
            "mockllm/model",
            "--sandbox",
            "intercode",
            "--log-dir",
            str(tmp_path),
            "--display",
            "plain",
        ],
        cwd=task_file.parent,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    (log_file,) = list(tmp_path.glob("*.eval"))
    log = read_eval_log(str(log_file))
    assert log.status == "success" and log.eval.sandbox.type == "intercode"
    assert [s.scores["includes"].value for s in log.samples] == ["C", "C", "C"]
