//! Fuzz targets on stable Rust (`arbtest`: random inputs from a time budget, seeds printed on
//! failure and replayed with `ARBTEST_SEED=0x…`). Each target runs `INTERCODE_FUZZ_SECS`
//! seconds (3 in the test suite); the long runs are
//!
//! ```text
//! INTERCODE_FUZZ_SECS=600 cargo test --release --test it fuzz:: -- --test-threads=1 --nocapture
//! ```
//!
//! Every target checks the same three things: no panic in the host, an answer within the
//! input's time limit plus a margin, and a clear error (naming the file) for bad data. Inputs
//! are built from token dictionaries and mutations of valid seeds, so most of them get past
//! the first syntax check.

use crate::harness::shared_dir;
use arbitrary::Unstructured;
use intercode::env::Env;
use intercode::env::bash::{BashEnv, BashOptions};
use intercode::env::sql::{SqlEnv, SqlOptions};
use serde_json::{Value, json};
use std::cell::Cell;
use std::path::Path;
use std::time::{Duration, Instant};

/// How long each target runs.
fn budget() -> Duration {
    let secs = std::env::var("INTERCODE_FUZZ_SECS")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .unwrap_or(3.0);
    Duration::from_secs_f64(secs)
}

/// Runs `case` on random inputs for the budget and prints how many ran.
fn fuzz(name: &str, mut case: impl FnMut(&mut Unstructured<'_>) -> arbitrary::Result<()>) {
    let runs = Cell::new(0u64);
    let start = Instant::now();
    arbtest::arbtest(|u| {
        runs.set(runs.get() + 1);
        case(u)
    })
    .budget(budget())
    .size_max(8 << 10)
    .run();
    println!(
        "fuzz {name}: {} executions in {:.1} s, no finding",
        runs.get(),
        start.elapsed().as_secs_f64()
    );
}

/// Slack over an action's own limit for the host to notice, cancel and collect: wasm code is
/// interrupted at the next 10 ms epoch tick; a loaded 2-core machine needs the rest.
const MARGIN: Duration = Duration::from_secs(3);

fn pick<'a>(u: &mut Unstructured<'_>, words: &[&'a str]) -> arbitrary::Result<&'a str> {
    Ok(words[u.choose_index(words.len())?])
}

/// A string of dictionary tokens, random words and a few random characters.
fn token_soup(
    u: &mut Unstructured<'_>,
    dictionary: &[&str],
    max: usize,
) -> arbitrary::Result<String> {
    let n = u.int_in_range(0..=max)?;
    let mut s = String::new();
    for _ in 0..n {
        match u.int_in_range(0..=9)? {
            0 => s.push(u.arbitrary::<char>()?),
            1 => s.push_str(&u.int_in_range(0..=100_000u32)?.to_string()),
            2 => s.push(' '),
            _ => s.push_str(pick(u, dictionary)?),
        }
    }
    Ok(s)
}

// ---- the guest shell: parser and expansion -------------------------------------------------

const SHELL_TOKENS: &[&str] = &[
    "echo ",
    "cd ",
    "ls ",
    "cat ",
    "x=",
    "$x",
    "${x",
    "}",
    "${x:0:-3:4}",
    "${#x}",
    "${x//a/b}",
    "${x:-",
    "${!x}",
    "$(",
    ")",
    "`",
    "$((",
    "))",
    "((",
    "[[ ",
    " ]]",
    "[ ",
    " ]",
    "'",
    "\"",
    "\\",
    "$'",
    "\\n",
    " | ",
    " || ",
    " && ",
    "; ",
    "&",
    "\n",
    "<<EOF\n",
    "\nEOF\n",
    "<<<",
    "<",
    ">",
    ">>",
    "2>&1",
    ">&-",
    "<(",
    ">(",
    "{",
    "}",
    "{1..",
    "..3}",
    "{a,b}",
    "*",
    "?",
    "[a-z]",
    "~",
    "for i in ",
    "; do ",
    "; done",
    "while ",
    "until ",
    "if ",
    "; then ",
    "; else ",
    "; fi",
    "case ",
    " in ",
    ") ;; ",
    "esac",
    "function f ",
    "f() ",
    "{ f; }",
    "local ",
    "declare -A a=(",
    "a[",
    "]=",
    "${a[@]}",
    "$@",
    "$#",
    "$?",
    "$$",
    "!",
    "set -e",
    "shopt -s ",
    "trap ",
    "eval ",
    "exec ",
    "read ",
    "printf '%s' ",
    "test ",
    "shift ",
    "break ",
    "return ",
    "exit ",
    "/tmp/",
    "/project/",
    "..",
    "-",
    "--",
    "=",
    "#",
    "%",
    "^",
    ",",
    "@",
    "+",
];

/// An episode of fixture task 0 whose actions have `limit`.
fn fixture_episode(limit: Duration) -> BashEnv {
    let options = BashOptions {
        limits: intercode::sandbox::Limits {
            timeout: limit,
            ..Default::default()
        },
        ..BashOptions::default()
    };
    let set = intercode::data::fixtures::bash_tasks().unwrap();
    let mut env = BashEnv::new(set, options).unwrap();
    env.reset(0).unwrap();
    env
}

#[test]
fn fuzz_shell_parser_and_expansion() {
    let limit = Duration::from_secs(1);
    let mut env = fixture_episode(limit);
    let mut in_episode = 0;
    fuzz("shell", |u| {
        let script = token_soup(u, SHELL_TOKENS, 40)?;
        let start = Instant::now();
        let step = env.step(&script);
        let took = start.elapsed();
        let step = step.unwrap_or_else(|e| panic!("{script:?}: the episode was lost: {e}"));
        assert!(took < limit + MARGIN, "{script:?} answered after {took:?}");
        let _ = step.observation;
        in_episode += 1;
        if in_episode == 20 || env.is_done() {
            // The episode survives whatever ran; the next one starts clean.
            let alive = env.step("echo alive").expect("episode alive");
            assert!(alive.observation.ends_with("alive\n"), "{script:?}");
            env.reset(0).unwrap();
            in_episode = 0;
        }
        Ok(())
    });
}

// ---- task and log loaders ------------------------------------------------------------------

/// Mutates a JSON value in place: wrong types, missing and extra keys, huge and odd values,
/// deep nesting.
fn mutate_json(v: &mut Value, u: &mut Unstructured<'_>, depth: u32) -> arbitrary::Result<()> {
    let choice = u.int_in_range(0..=11)?;
    match choice {
        0 => *v = Value::Null,
        1 => *v = json!(u.arbitrary::<bool>()?),
        2 => *v = json!(u.arbitrary::<i64>()?),
        3 => *v = json!(u.arbitrary::<f64>()?.to_string()),
        4 => *v = json!(u.arbitrary::<String>()?),
        5 => *v = json!("x".repeat(u.int_in_range(0..=200_000)?)),
        6 => {
            let levels = u.int_in_range(1..=300)?;
            for _ in 0..levels {
                *v = json!([v.take()]);
            }
        }
        7 => {
            if let Value::Object(map) = v
                && !map.is_empty()
            {
                let k = map.keys().nth(u.choose_index(map.len())?).cloned();
                if let Some(k) = k {
                    map.remove(&k);
                }
            }
        }
        8 => {
            if let Value::Object(map) = v {
                map.insert(u.arbitrary::<String>()?, json!(u.arbitrary::<u8>()?));
            }
        }
        9 => {
            if let Value::Array(items) = v
                && !items.is_empty()
            {
                let i = u.choose_index(items.len())?;
                if u.arbitrary::<bool>()? {
                    items.remove(i);
                } else {
                    let copy = items[i].clone();
                    items.push(copy);
                }
            }
        }
        _ => {
            if depth < 8 {
                match v {
                    Value::Object(map) if !map.is_empty() => {
                        let i = u.choose_index(map.len())?;
                        if let Some(child) = map.values_mut().nth(i) {
                            mutate_json(child, u, depth + 1)?;
                        }
                    }
                    Value::Array(items) if !items.is_empty() => {
                        let i = u.choose_index(items.len())?;
                        mutate_json(&mut items[i], u, depth + 1)?;
                    }
                    _ => {}
                }
            }
        }
    }
    Ok(())
}

/// A mutated seed as text; now and then also broken as text (cut, spliced, garbage).
fn mutated_text(seed: &Value, u: &mut Unstructured<'_>) -> arbitrary::Result<String> {
    let mut v = seed.clone();
    for _ in 0..u.int_in_range(1..=4)? {
        mutate_json(&mut v, u, 0)?;
    }
    let mut text = v.to_string();
    match u.int_in_range(0..=5)? {
        0 if !text.is_empty() => {
            let at = u.choose_index(text.len())?;
            let at = (0..=at)
                .rev()
                .find(|i| text.is_char_boundary(*i))
                .unwrap_or(0);
            text.truncate(at);
        }
        1 => text.insert_str(0, &u.arbitrary::<String>()?),
        2 => text.push_str(&u.arbitrary::<String>()?),
        _ => {}
    }
    Ok(text)
}

fn assert_names_file(result: Result<(), String>, file: &Path, text: &str) {
    if let Err(message) = result {
        let name = file.file_name().unwrap().to_string_lossy();
        assert!(
            message.contains(&*name),
            "error does not name the file: {message}\ninput: {}",
            text.chars().take(300).collect::<String>()
        );
    }
}

#[test]
fn fuzz_task_and_log_loaders() {
    let dir = tempfile::tempdir().unwrap();
    let nl2bash = json!([{"query": "Count the files", "gold": "ls | wc -l"},
                         {"query": "Two golds", "gold": ["ls", "pwd"]}]);
    let spider = json!([{"db": "concert_singer", "gold": "SELECT count(*) FROM singer",
                         "query": "How many singers?", "hardness": "easy",
                         "db_tables": {"singer": ["singer_id", "name"]}}]);
    let mbpp = json!([{"query": "Write f", "gold": "def f(x):\n    return x",
                       "tests": ["assert f(1) == 1"], "task_id": 1, "test_setup_code": ""}]);
    // A real upstream log, cut to two episodes: the loader's real input shape.
    let log: Value = match shared_dir() {
        Some(shared) => {
            let path = shared
                .join("intercode-upstream/data/results/bash/vicuna/ic_bash_multiturn_vicuna_10_turns_fs_1.json");
            let full: Value =
                serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
            match full {
                Value::Object(map) => Value::Object(map.into_iter().take(2).collect()),
                other => other,
            }
        }
        None => json!({"0": {"environment": "ic_bash", "turn_history": {"actions": ["ls"]}}}),
    };
    let log_file = dir.path().join("ic_bash_multiturn_fuzz_10_turns_fs_1.json");
    let task_file = dir.path().join("fuzz_tasks.json");
    fuzz("loaders", |u| {
        let which = u.int_in_range(0..=4)?;
        let seed = match which {
            0 => &nl2bash,
            1 => &spider,
            2 | 3 => &mbpp,
            _ => &log,
        };
        let text = mutated_text(seed, u)?;
        let result = match which {
            0 => intercode::data::nl2bash::parse_tasks(&text, &task_file)
                .map(drop)
                .map_err(|e| e.to_string()),
            1 => {
                std::fs::write(&task_file, &text).unwrap();
                intercode::data::spider::load_tasks(&task_file)
                    .map(drop)
                    .map_err(|e| e.to_string())
            }
            2 => intercode::data::mbpp::parse_ic(&text, &task_file)
                .map(drop)
                .map_err(|e| e.to_string()),
            3 => intercode::data::mbpp::parse_jsonl(&text, &task_file)
                .map(drop)
                .map_err(|e| e.to_string()),
            _ => intercode::data::upstream_log::parse(&log_file, &text)
                .map(drop)
                .map_err(|e| e.to_string()),
        };
        let file = if which == 4 { &log_file } else { &task_file };
        assert_names_file(result, file, &text);
        Ok(())
    });
}

// ---- SQL: the read-only guard and the env's own guards ------------------------------------

const SQL_TOKENS: &[&str] = &[
    "SELECT ",
    "FROM ",
    "WHERE ",
    "customers",
    "orders",
    "name",
    "*",
    "count(*)",
    ", ",
    "(",
    ")",
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c",
    " LIMIT 5",
    ")",
    ";",
    "ATTACH DATABASE '/etc/passwd' AS p",
    "DETACH p",
    "PRAGMA ",
    "writable_schema=ON",
    "max_page_count=1",
    "load_extension('x')",
    "randomblob(",
    "zeroblob(",
    "1000000",
    "readfile(",
    "VACUUM INTO '/tmp/x'",
    "INSERT INTO customers VALUES (",
    "UPDATE customers SET name = ",
    "DELETE FROM ",
    "DROP TABLE ",
    "CREATE TABLE t(a)",
    "CREATE TRIGGER ",
    "BEGIN",
    "COMMIT",
    "ROLLBACK",
    "SAVEPOINT s",
    "'",
    "\"",
    "`",
    "--",
    "/*",
    "*/",
    "/*!40101 ",
    "USE ",
    "SHOW TABLES",
    "DESCRIBE ",
    "LIKE '%a%'",
    "GROUP BY ",
    "ORDER BY ",
    "HAVING ",
    "JOIN ",
    "ON ",
    "UNION ",
    "CAST(",
    " AS ",
    "TEXT",
    "printf('%.*c', ",
    "replace(",
    "group_concat(",
    "NULL",
    "x'00'",
    "\0",
    "?",
    "?1",
    ":a",
    "@a",
    "$a",
];

#[test]
fn fuzz_sql_guards() {
    let limit = Duration::from_millis(500);
    let options = SqlOptions {
        statement_timeout: limit,
        ..SqlOptions::default()
    };
    let mut env = SqlEnv::new(intercode::data::spider::fixtures().unwrap(), options).unwrap();
    env.reset(0).unwrap();
    let mut in_episode = 0;
    fuzz("sql", |u| {
        let sql = token_soup(u, SQL_TOKENS, 30)?;
        let _ = intercode::harness::guard::lint_read_only(&sql);
        let start = Instant::now();
        let step = env.step(&sql);
        let took = start.elapsed();
        step.unwrap_or_else(|e| panic!("{sql:?}: the episode was lost: {e}"));
        assert!(took < limit + MARGIN, "{sql:?} answered after {took:?}");
        in_episode += 1;
        if in_episode == 50 || env.is_done() {
            env.reset(0).unwrap();
            in_episode = 0;
        }
        Ok(())
    });
}

// ---- the MySQL-dump converter --------------------------------------------------------------

const DUMP_SEED: &str = "-- MySQL dump 10.13\n\
/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;\n\
CREATE DATABASE IF NOT EXISTS `shop`;\nUSE `shop`;\n\
DROP TABLE IF EXISTS `items`;\n\
CREATE TABLE `items` (\n  `id` int(11) NOT NULL AUTO_INCREMENT,\n  `name` varchar(20) COLLATE utf8_bin DEFAULT NULL,\n  `price` decimal(10,2) DEFAULT '0.00',\n  PRIMARY KEY (`id`),\n  KEY `name_idx` (`name`)\n) ENGINE=InnoDB AUTO_INCREMENT=3 DEFAULT CHARSET=utf8;\n\
LOCK TABLES `items` WRITE;\n\
INSERT INTO `items` VALUES (1,'it\\'s',1.50),(2,'b\\\\c',NULL);\n\
UNLOCK TABLES;\n\
CREATE DATABASE IF NOT EXISTS `other`;\nUSE `other`;\n\
CREATE TABLE `t` (`a` text, `b` enum('x','y') NOT NULL);\n\
INSERT INTO `t` VALUES ('x\\n','y');\n";

const DUMP_TOKENS: &[&str] = &[
    "`",
    "'",
    "\\",
    "(",
    ")",
    ",",
    ";\n",
    "/*!",
    "*/",
    "--",
    "CREATE TABLE `z` (",
    "INSERT INTO `t` VALUES ",
    "USE `",
    "CREATE DATABASE `",
    "NULL",
    "0x41",
    "b'1'",
    "_binary '",
    "AUTO_INCREMENT",
    "KEY `k` (`a`)",
    "DEFAULT CHARSET=latin1",
    "ENGINE=MyISAM",
    "\n",
    " ",
    "varchar(",
    "decimal(",
    "enum(",
];

/// Found by `fuzz_mysql_dump_converter` (seed 0x2f50622100002000): a `)` before the first
/// `(` of a `CREATE TABLE` sliced the statement backwards and panicked.
#[test]
fn dump_with_a_closing_paren_before_the_columns_is_an_error() {
    use intercode::data::spider::mysql_dump::{ConvertOptions, convert};
    let dump = "CREATE DATABASE `d`;\nUSE `d`;\nCREATE TABLE `t`) (`a` int;\n";
    let err = convert(dump, &ConvertOptions::default()).unwrap_err();
    assert!(err.to_string().contains("unbalanced CREATE TABLE"), "{err}");
}

#[test]
fn fuzz_mysql_dump_converter() {
    use intercode::data::spider::mysql_dump::{ConvertOptions, convert};
    fuzz("mysql_dump", |u| {
        let mut dump = DUMP_SEED.to_string();
        for _ in 0..u.int_in_range(1..=6)? {
            let at = u.choose_index(dump.len() + 1)?.min(dump.len());
            let at = (0..=at)
                .rev()
                .find(|i| dump.is_char_boundary(*i))
                .unwrap_or(0);
            match u.int_in_range(0..=3)? {
                0 => {
                    let end = (at + u.int_in_range(0..=40)?).min(dump.len());
                    let end = (end..=dump.len())
                        .find(|i| dump.is_char_boundary(*i))
                        .unwrap_or(dump.len());
                    dump.replace_range(at..end, "");
                }
                1 => dump.insert_str(at, pick(u, DUMP_TOKENS)?),
                2 => dump.insert(at, u.arbitrary::<char>()?),
                _ => {
                    let end = (at + u.int_in_range(0..=80)?).min(dump.len());
                    let end = (end..=dump.len())
                        .find(|i| dump.is_char_boundary(*i))
                        .unwrap_or(dump.len());
                    let copy = dump[at..end].to_string();
                    dump.insert_str(at, &copy);
                }
            }
        }
        let start = Instant::now();
        let _ = convert(&dump, &ConvertOptions::default());
        assert!(start.elapsed() < MARGIN, "{dump:?}");
        Ok(())
    });
}

// ---- tar and gzip applets on hostile archives ----------------------------------------------

#[test]
fn fuzz_tar_and_gzip_applets() {
    let limit = Duration::from_secs(2);
    let mut env = fixture_episode(limit);
    let made = env
        .step(
            "mkdir -p /tmp/s/a/b && echo one > /tmp/s/a/f && seq 1 500 > /tmp/s/a/b/g && \
             ln -s f /tmp/s/a/l && tar cf /tmp/seed.tar -C /tmp/s a && \
             tar czf /tmp/seed.tgz -C /tmp/s a && gzip -c /tmp/s/a/b/g > /tmp/seed.gz && echo made",
        )
        .unwrap();
    assert!(made.observation.ends_with("made\n"), "{}", made.observation);
    let read = |env: &BashEnv, name: &str| -> Vec<u8> {
        let tree = env.episode_tree().unwrap();
        let mut f = tree.open(format!("tmp/{name}")).unwrap();
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut f, &mut bytes).unwrap();
        bytes
    };
    let seeds = [
        read(&env, "seed.tar"),
        read(&env, "seed.tgz"),
        read(&env, "seed.gz"),
    ];
    let commands = [
        "tar tvf /tmp/f; mkdir -p /tmp/o && tar xf /tmp/f -C /tmp/o; ls -R /tmp/o | head -c 2000",
        "tar tzvf /tmp/f; mkdir -p /tmp/o && tar xzf /tmp/f -C /tmp/o; ls -R /tmp/o | head -c 2000",
        "gunzip -c /tmp/f | wc -c; zcat /tmp/f | head -c 100; gzip -t /tmp/f",
    ];
    fuzz("tar_gzip", |u| {
        let which = u.choose_index(seeds.len())?;
        let mut bytes = seeds[which].clone();
        for _ in 0..u.int_in_range(1..=8)? {
            let at = u.choose_index(bytes.len())?;
            match u.int_in_range(0..=4)? {
                0 => bytes[at] = u.arbitrary()?,
                1 => bytes[at] ^= 1 << u.int_in_range(0..=7)?,
                2 => bytes.truncate(at),
                3 => {
                    // Header fields: names with `../` and `/`, sizes, link targets.
                    let patch: &[u8] = pick(
                        u,
                        &["../../../../etc/x", "/abs/path", "99999999999", "\0", "../"],
                    )?
                    .as_bytes();
                    let end = (at + patch.len()).min(bytes.len());
                    bytes[at..end].copy_from_slice(&patch[..end - at]);
                }
                _ => bytes.insert(at, u.arbitrary()?),
            }
            if bytes.is_empty() {
                break;
            }
        }
        let tree = env.episode_tree().unwrap();
        tree.write("tmp/f", &bytes).unwrap();
        let start = Instant::now();
        let step = env.step(commands[which]);
        let took = start.elapsed();
        step.unwrap_or_else(|e| panic!("the episode was lost: {e}"));
        assert!(took < limit + MARGIN, "answered after {took:?}");
        // Extracted members stay inside the episode: nothing may appear above /tmp/o.
        let tree = env.episode_tree().unwrap();
        assert!(
            !tree.exists("etc/x") && !tree.exists("abs"),
            "a member escaped /tmp/o"
        );
        let _ = env.step("rm -rf /tmp/o /tmp/f");
        Ok(())
    });
}

// ---- the Python REPL's request protocol ----------------------------------------------------

#[test]
fn fuzz_python_request_protocol() {
    use intercode::env::python::repl::{HARNESS, PYTHON_HASH, PYTHON_WASM, REPL_ARGV0};
    use intercode::sandbox::repl::{Outcome, ReplModule, ReplSpec};
    let module = ReplModule::new(PYTHON_WASM, PYTHON_HASH).unwrap();
    let spec = ReplSpec {
        argv: vec![REPL_ARGV0.into()],
        ..ReplSpec::default()
    };
    let start_process = || {
        let mut p = module.start(&spec).unwrap();
        let ready = p.request(HARNESS.as_bytes().to_vec(), Duration::from_secs(60));
        assert!(matches!(ready, Outcome::Replied { .. }), "{ready:?}");
        p
    };
    let mut process = start_process();
    let limit = Duration::from_millis(500);
    fuzz("python_protocol", |u| {
        let mut request: Vec<u8> = Vec::new();
        if u.arbitrary::<bool>()? {
            // An operation byte the harness knows, then anything.
            request.push(
                *pick(u, &["a", "x", "r", "c", "w", "?", "\0"])?
                    .as_bytes()
                    .first()
                    .unwrap_or(&0),
            );
        }
        let tail_len = u.int_in_range(0..=200)?;
        for _ in 0..tail_len {
            request.push(u.arbitrary()?);
        }
        let t = Instant::now();
        let outcome = process.request(request.clone(), limit);
        assert!(t.elapsed() < limit + MARGIN, "{request:?}");
        if !matches!(outcome, Outcome::Replied { .. }) || !process.is_alive() {
            process = start_process();
        }
        Ok(())
    });
    // The interpreter still answers a well-formed request afterwards.
    let out = process.request(b"xprint(6 * 7)".to_vec(), Duration::from_secs(10));
    assert!(matches!(out, Outcome::Replied { .. }), "{out:?}");
}
