//! `intercode_wasm._native`: the Python extension module. It converts between Python and the
//! core library and does nothing else; the Pythonic API, upstream's drop-in classes and the
//! inspect_ai sandbox are Python code over it (`python/intercode_wasm/`).
//!
//! * [`NativeEnv`] wraps one env built by [`EnvSpec::build`] — the same spec, and so the same
//!   behaviour, as the CLI's. The env sits behind a mutex, so the class is `Sync` as PyO3
//!   requires, and every call that does sandbox work runs detached from the interpreter
//!   ([`Python::detach`], PyO3's new name for `allow_threads`): threads driving different envs
//!   run in parallel, and a slow action never blocks the rest of the Python program.
//! * Errors keep the core's [`ErrorKind`]: `EpisodeStateError`, `BadInputError`, `HostError`
//!   (all `IntercodeError`), defined in `intercode_wasm._errors` so that they can also subclass
//!   Python's own `RuntimeError` / `ValueError`.
//! * [`exec`] runs an argv with stdin, cwd and environment inside a bash episode (the inspect
//!   sandbox's `exec`), through the same `step` as every action.

mod exec;

use intercode::env::{Env, EnvSpec, Step};
use intercode::{Error, ErrorKind};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple, PyType};
use serde_json::{Map, Value};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The Python class for an [`ErrorKind`] (imported once from `intercode_wasm._errors`).
fn error_class(py: Python<'_>, kind: ErrorKind) -> PyResult<&Bound<'_, PyType>> {
    static EPISODE_STATE: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    static BAD_INPUT: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    static HOST: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    let (cell, name) = match kind {
        ErrorKind::EpisodeState => (&EPISODE_STATE, "EpisodeStateError"),
        ErrorKind::BadInput => (&BAD_INPUT, "BadInputError"),
        ErrorKind::Host => (&HOST, "HostError"),
    };
    cell.import(py, "intercode_wasm._errors", name)
}

/// A core error as a Python exception of its kind.
fn to_py_err(e: &Error) -> PyErr {
    to_py_err_of(e.kind(), e.to_string())
}

fn to_py_err_of(kind: ErrorKind, message: String) -> PyErr {
    Python::attach(|py| match error_class(py, kind) {
        Ok(class) => PyErr::from_type(class.clone(), message),
        // Only when the package's Python half is missing (the module imported on its own).
        Err(_) => PyValueError::new_err(message),
    })
}

/// A JSON value as the Python value `json.loads` would give (ints stay ints, floats floats).
fn json_to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any()
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any()
            }
        }
        Value::String(s) => s.into_pyobject(py)?.into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(json_to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => map_to_py(py, map)?.into_any(),
    })
}

fn map_to_py<'py>(py: Python<'py>, map: &Map<String, Value>) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (k, v) in map {
        dict.set_item(k, json_to_py(py, v)?)?;
    }
    Ok(dict)
}

/// A step as the tuple `(observation, reward, done, action_executed, exit_status, info)`; the
/// Python side wraps it in a `StepResult`. A plain tuple is the cheapest thing to build.
fn step_to_py<'py>(py: Python<'py>, step: &Step) -> PyResult<Bound<'py, PyTuple>> {
    PyTuple::new(
        py,
        [
            step.observation.as_str().into_pyobject(py)?.into_any(),
            step.reward.into_pyobject(py)?.into_any(),
            step.done.into_pyobject(py)?.to_owned().into_any(),
            step.action_executed
                .into_pyobject(py)?
                .to_owned()
                .into_any(),
            step.exit_status.into_pyobject(py)?.into_any(),
            map_to_py(py, &step.info)?.into_any(),
        ],
    )
}

/// The env a [`NativeEnv`] holds; `None` once closed.
type Slot = Option<Box<dyn Env>>;
/// A failure on the way to Python: its kind decides the exception class.
type Failure = (ErrorKind, String);

/// One env. Build it from an `EnvSpec` as JSON (`{"env": "sql", "tasks": …}`, the fields of
/// `intercode::env::EnvSpec`).
#[pyclass(frozen, module = "intercode_wasm._native")]
struct NativeEnv {
    env: Mutex<Slot>,
    kind: &'static str,
    spec: String,
}

impl NativeEnv {
    /// Runs `f` on the env with the interpreter released. A closed env is an episode-state
    /// error; a poisoned lock (a panic in an earlier call) is reported instead of panicking
    /// again.
    fn with_env<T, F>(&self, py: Python<'_>, f: F) -> PyResult<T>
    where
        T: Send,
        F: Send + FnOnce(&mut dyn Env) -> intercode::Result<T>,
    {
        py.detach(|| -> Result<T, Failure> {
            let mut guard: MutexGuard<'_, Slot> = self.env.lock().map_err(|_| {
                (
                    ErrorKind::Host,
                    "this env failed in an earlier call (a panic in the library); build a new one"
                        .to_string(),
                )
            })?;
            let env = guard
                .as_mut()
                .ok_or((ErrorKind::EpisodeState, "this env is closed".to_string()))?;
            f(env.as_mut()).map_err(|e| (e.kind(), e.to_string()))
        })
        .map_err(|(kind, message)| to_py_err_of(kind, message))
    }
}

#[pymethods]
impl NativeEnv {
    #[new]
    fn new(py: Python<'_>, spec_json: &str) -> PyResult<NativeEnv> {
        let spec: EnvSpec = serde_json::from_str(spec_json)
            .map_err(|e| to_py_err_of(ErrorKind::BadInput, format!("bad env spec: {e}")))?;
        // Building compiles or loads the guest and reads task files: seconds the first time.
        let env = py.detach(|| spec.build()).map_err(|e| to_py_err(&e))?;
        let spec = serde_json::to_string(&spec).unwrap_or_default();
        Ok(NativeEnv {
            kind: env.name(),
            env: Mutex::new(Some(env)),
            spec,
        })
    }

    /// `"bash"`, `"sql"` or `"python"`.
    #[getter]
    fn kind(&self) -> &'static str {
        self.kind
    }

    /// The spec the env was built from, as JSON with every field filled in.
    #[getter]
    fn spec_json(&self) -> &str {
        &self.spec
    }

    fn task_count(&self, py: Python<'_>) -> PyResult<usize> {
        self.with_env(py, |env| Ok(env.task_count()))
    }

    /// Task `index` as a dict: `query`, `gold`, `category`, `tables` (`[(table, [columns])]`).
    fn task<'py>(&self, py: Python<'py>, index: usize) -> PyResult<Bound<'py, PyDict>> {
        let task = self.with_env(py, |env| env.task(index))?;
        let dict = PyDict::new(py);
        dict.set_item("query", task.query)?;
        dict.set_item("gold", task.gold)?;
        dict.set_item("category", task.category)?;
        dict.set_item("tables", task.tables)?;
        Ok(dict)
    }

    /// Starts a fresh episode on task `index`; returns its query.
    fn reset(&self, py: Python<'_>, index: usize) -> PyResult<String> {
        Ok(self.with_env(py, |env| env.reset(index))?.query)
    }

    /// Runs one action (or the `submit` / `skip` keywords).
    fn step<'py>(&self, py: Python<'py>, action: &str) -> PyResult<Bound<'py, PyTuple>> {
        let step = self.with_env(py, |env| env.step(action))?;
        step_to_py(py, &step)
    }

    /// Scores the episode as `submit` would, without ending it: `(reward, info)`.
    fn evaluate<'py>(&self, py: Python<'py>) -> PyResult<(f64, Bound<'py, PyDict>)> {
        let score = self.with_env(py, |env| env.evaluate())?;
        Ok((score.reward, map_to_py(py, &score.info)?))
    }

    /// Ends the episode and scores it; `name` is the Python function to test.
    #[pyo3(signature = (name=None))]
    fn submit<'py>(&self, py: Python<'py>, name: Option<&str>) -> PyResult<Bound<'py, PyTuple>> {
        let step = self.with_env(py, |env| env.submit_named(name))?;
        step_to_py(py, &step)
    }

    /// Ends the episode with reward 0.
    fn skip<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let step = self.with_env(py, |env| env.skip())?;
        step_to_py(py, &step)
    }

    /// The running (or just ended) episode's task index.
    fn current_index(&self, py: Python<'_>) -> PyResult<Option<usize>> {
        self.with_env(py, |env| Ok(env.current_index()))
    }

    fn is_done(&self, py: Python<'_>) -> PyResult<bool> {
        self.with_env(py, |env| Ok(env.is_done()))
    }

    /// The gold solution of the current task.
    fn gold(&self, py: Python<'_>) -> PyResult<String> {
        self.with_env(py, |env| env.gold())
    }

    /// Whether `source` is a whole action (a here-document or a `def` needs more lines).
    fn is_complete(&self, py: Python<'_>, source: &str) -> PyResult<bool> {
        self.with_env(py, |env| env.is_complete(source))
    }

    /// The episode's turns so far: dicts with `action`, `observation`, `action_executed` and,
    /// where there is one, `exit_status`.
    fn turns<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let turns = self.with_env(py, |env| {
            serde_json::to_value(env.turns()).map_err(intercode::Error::Json)
        })?;
        json_to_py(py, &turns)?
            .cast_into::<PyList>()
            .map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// Bash only: runs `argv` as a process in the episode, with `stdin` (bytes), in `cwd`,
    /// with `env` (`[(name, value)]`) exported. Returns `(exit_status, stdout, stderr,
    /// separated)`: `exit_status` is `None` when the sandbox stopped the command (then stdout
    /// holds why: `Command timed out`, a limit); `separated` is false when the output was cut
    /// before stderr could be told apart (all of it is then in stdout). One turn of the
    /// episode; the episode's own working directory and variables are left unchanged.
    /// `timeout` (seconds) shortens the env's action limit for this call only.
    #[pyo3(signature = (argv, stdin=None, cwd=None, env=Vec::new(), timeout=None))]
    fn exec(
        &self,
        py: Python<'_>,
        argv: Vec<String>,
        stdin: Option<Bound<'_, PyBytes>>,
        cwd: Option<String>,
        env: Vec<(String, String)>,
        timeout: Option<f64>,
    ) -> PyResult<(Option<i32>, String, String, bool)> {
        if self.kind != "bash" {
            return Err(to_py_err_of(
                ErrorKind::BadInput,
                format!("exec runs processes in a bash env, not {}", self.kind),
            ));
        }
        let request = exec::ExecRequest {
            argv: &argv,
            stdin: stdin.as_ref().map(|b| b.as_bytes()),
            cwd: cwd.as_deref(),
            env: &env,
        };
        let (script, marker) =
            exec::script(&request).map_err(|m| to_py_err_of(ErrorKind::BadInput, m))?;
        let timeout = match timeout {
            Some(t) if !(t.is_finite() && t > 0.0) => {
                return Err(to_py_err_of(
                    ErrorKind::BadInput,
                    format!("timeout must be a positive number of seconds, not {t}"),
                ));
            }
            Some(t) => Some(Duration::from_secs_f64(t)),
            None => None,
        };
        let step = self.with_env(py, |env| {
            let limit = env.action_timeout();
            match timeout {
                Some(t) if t < limit => {
                    env.set_action_timeout(t)?;
                    let step = env.step(&script);
                    env.set_action_timeout(limit)?;
                    step
                }
                _ => env.step(&script),
            }
        })?;
        let (stdout, stderr, separated) = exec::split_output(&step.observation, &marker);
        Ok((step.exit_status, stdout, stderr, separated))
    }

    /// Runs `step(action)` `n` times with the interpreter released and returns the
    /// nanoseconds each took inside the library: the benchmark's baseline for what a Python
    /// `step()` adds (conversions, the call itself).
    fn time_steps(&self, py: Python<'_>, action: &str, n: usize) -> PyResult<Vec<u64>> {
        self.with_env(py, |env| {
            (0..n)
                .map(|_| {
                    let start = Instant::now();
                    let step = env.step(action)?;
                    let took = start.elapsed();
                    drop(step);
                    Ok(u64::try_from(took.as_nanos()).unwrap_or(u64::MAX))
                })
                .collect()
        })
    }

    /// Frees the env (its episode directory, interpreter, databases). Later calls fail with
    /// `EpisodeStateError`; closing twice is fine.
    fn close(&self, py: Python<'_>) {
        // Detached: the lock may be held by a step running on another thread.
        py.detach(|| drop(self.env.lock().ok().and_then(|mut g| g.take())));
    }

    /// Whether `close` was called (or an earlier call panicked).
    #[getter]
    fn closed(&self, py: Python<'_>) -> bool {
        py.detach(|| self.env.lock().map_or(true, |g| g.is_none()))
    }

    fn __repr__(&self) -> String {
        format!("NativeEnv({})", self.spec)
    }
}

/// `s` as one shell word (single quotes where needed, `'` as `'\''`).
#[pyfunction]
fn shell_quote(s: &str) -> String {
    exec::quote(s)
}

/// The script `NativeEnv.exec` would run, and its stdout/stderr marker (for tests: running it
/// under a real bash must do what `exec` does).
#[pyfunction]
#[pyo3(signature = (argv, stdin=None, cwd=None, env=Vec::new()))]
fn exec_script(
    argv: Vec<String>,
    stdin: Option<Bound<'_, PyBytes>>,
    cwd: Option<String>,
    env: Vec<(String, String)>,
) -> PyResult<(String, String)> {
    exec::script(&exec::ExecRequest {
        argv: &argv,
        stdin: stdin.as_ref().map(|b| b.as_bytes()),
        cwd: cwd.as_deref(),
        env: &env,
    })
    .map_err(|m| to_py_err_of(ErrorKind::BadInput, m))
}

/// Splits an exec script's output at its marker: `(stdout, stderr, found)`.
#[pyfunction]
fn split_exec_output(observation: &str, marker: &str) -> (String, String, bool) {
    exec::split_output(observation, marker)
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<NativeEnv>()?;
    m.add_function(wrap_pyfunction!(shell_quote, m)?)?;
    m.add_function(wrap_pyfunction!(exec_script, m)?)?;
    m.add_function(wrap_pyfunction!(split_exec_output, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
