//! Upstream InterCode-SQL's reward, reproduced exactly (UPSTREAM-BEHAVIOUR.md §3.3).
//!
//! Upstream compares the agent's rows with the gold query's rows *as Python strings*: every row is
//! turned into `str(tuple)` (`('abc', 1, None, 1.5)`), the two lists are compared as multisets
//! (intersection over union, duplicates counted), and the IoU is multiplied by Kendall's tau-b
//! between the order of the shared rows in the agent's and in the gold result (scipy's
//! `kendalltau`, ties handled as tau-b, the strings compared by code point). The product is
//! rounded to two places the way `round(np.float64, 2)` does it (`rint(x * 100) / 100`, half to
//! even on the product), and left unrounded when tau is undefined (one shared row, or all shared
//! rows equal). Both results empty scores 1; an agent observation that is not a row list (an
//! error, or a statement without a result set) scores 0.
//!
//! Because the strings are what is compared, this module also renders values exactly as CPython's
//! `repr` does ([`PyValue`], [`row_repr`]) and parses them back from upstream's logs
//! ([`parse_py_rows`]), so that our reward can be checked against every reward upstream logged.
//!
//! ```
//! use intercode::reward::sql::{PyValue, row_repr, score};
//! let row = vec![PyValue::Str("abc".into()), PyValue::Int(1), PyValue::None, PyValue::Float(1.5)];
//! assert_eq!(row_repr(&row), "('abc', 1, None, 1.5)");
//! let gold = vec![vec![PyValue::Int(1)], vec![PyValue::Int(2)]];
//! let reversed = vec![vec![PyValue::Int(2)], vec![PyValue::Int(1)]];
//! assert_eq!(score(&gold, &gold), 1.0);
//! assert_eq!(score(&reversed, &gold), -1.0);
//! ```

mod printable;

use std::collections::HashMap;
use std::fmt::Write as _;

use serde_json::Value;

use crate::{Error, Result};

/// A value as Python's `sqlite3` (or upstream's `mysql-connector`) hands it to `str()`.
#[derive(Debug, Clone, PartialEq)]
pub enum PyValue {
    /// SQL `NULL`: `None`.
    None,
    /// `True` / `False`.
    Bool(bool),
    /// SQLite `INTEGER`.
    Int(i64),
    /// SQLite `REAL`: repr is the shortest round-trip form (`1.5`, `100.0`, `1e+16`).
    Float(f64),
    /// SQLite `TEXT`.
    Str(String),
    /// SQLite `BLOB`: `b'..'`.
    Bytes(Vec<u8>),
    /// Any other value, kept as its canonical Python repr: `Decimal('1.50')`,
    /// `datetime.datetime(2018, 3, 1, 0, 0)`, integers beyond 64 bits.
    Repr(String),
}

impl PyValue {
    /// CPython's `repr()` of the value.
    pub fn repr(&self) -> String {
        let mut out = String::new();
        self.write_repr(&mut out);
        out
    }

    /// Appends CPython's `repr()` of the value to `out`.
    pub fn write_repr(&self, out: &mut String) {
        match self {
            PyValue::None => out.push_str("None"),
            PyValue::Bool(true) => out.push_str("True"),
            PyValue::Bool(false) => out.push_str("False"),
            PyValue::Int(i) => {
                let _ = write!(out, "{i}");
            }
            PyValue::Float(f) => write_float_repr(*f, out),
            PyValue::Str(s) => write_str_repr(s, out),
            PyValue::Bytes(b) => write_bytes_repr(b, out),
            PyValue::Repr(r) => out.push_str(r),
        }
    }

    /// The value as JSON (for step infos and logs): numbers, strings, `null`; bytes and other
    /// values as their Python repr; non-finite floats as `"inf"`, `"-inf"`, `"nan"`.
    pub fn to_json(&self) -> Value {
        match self {
            PyValue::None => Value::Null,
            PyValue::Bool(b) => Value::Bool(*b),
            PyValue::Int(i) => Value::from(*i),
            PyValue::Float(f) => serde_json::Number::from_f64(*f)
                .map(Value::Number)
                .unwrap_or_else(|| Value::String(self.repr())),
            PyValue::Str(s) => Value::String(s.clone()),
            PyValue::Bytes(_) | PyValue::Repr(_) => Value::String(self.repr()),
        }
    }

    /// The value from JSON, the way Python's `json` module reads it (`429.0` is a float, `429` an
    /// int). Arrays and objects become their Python repr.
    pub fn from_json(v: &Value) -> PyValue {
        match v {
            Value::Null => PyValue::None,
            Value::Bool(b) => PyValue::Bool(*b),
            Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    PyValue::Int(i)
                } else if n.is_f64() {
                    PyValue::Float(n.as_f64().unwrap_or(f64::NAN))
                } else {
                    PyValue::Repr(n.to_string())
                }
            }
            Value::String(s) => PyValue::Str(s.clone()),
            Value::Array(items) => {
                let mut out = String::from("[");
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    PyValue::from_json(item).write_repr(&mut out);
                }
                out.push(']');
                PyValue::Repr(out)
            }
            Value::Object(_) => PyValue::Repr(v.to_string()),
        }
    }
}

/// `str(tuple(row))`: `(1,)` for one value, `()` for none.
pub fn row_repr(row: &[PyValue]) -> String {
    let mut out = String::with_capacity(16 * row.len() + 2);
    write_row_repr(row, &mut out);
    out
}

fn write_row_repr(row: &[PyValue], out: &mut String) {
    out.push('(');
    for (i, v) in row.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        v.write_repr(out);
    }
    if row.len() == 1 {
        out.push(',');
    }
    out.push(')');
}

/// `str(list_of_tuples)`: what upstream logs as `agent_obs` / `eval_obs` and shows agents.
pub fn rows_repr(rows: &[Vec<PyValue>]) -> String {
    let mut out = String::from("[");
    for (i, row) in rows.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_row_repr(row, &mut out);
    }
    out.push(']');
    out
}

/// CPython's `repr(str)`: single quotes unless the text holds `'` and no `"`; `\\`, the quote,
/// `\t`, `\n`, `\r` escaped; other control and non-printable characters as `\xhh`, `\uhhhh` or
/// `\Uhhhhhhhh`.
pub fn str_repr(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    write_str_repr(s, &mut out);
    out
}

fn choose_quote(has_single: bool, has_double: bool) -> char {
    if has_single && !has_double { '"' } else { '\'' }
}

fn write_str_repr(s: &str, out: &mut String) {
    let quote = choose_quote(s.contains('\''), s.contains('"'));
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if (c as u32) < 0x7f => out.push(c),
            c if printable::is_printable(c) => out.push(c),
            c => {
                let cp = c as u32;
                let _ = if cp <= 0xff {
                    write!(out, "\\x{cp:02x}")
                } else if cp <= 0xffff {
                    write!(out, "\\u{cp:04x}")
                } else {
                    write!(out, "\\U{cp:08x}")
                };
            }
        }
    }
    out.push(quote);
}

fn write_bytes_repr(b: &[u8], out: &mut String) {
    let quote = choose_quote(b.contains(&b'\''), b.contains(&b'"'));
    out.push('b');
    out.push(quote);
    for &byte in b {
        match byte {
            b'\\' => out.push_str("\\\\"),
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            c if c as char == quote => {
                out.push('\\');
                out.push(quote);
            }
            c if !(0x20..0x7f).contains(&c) => {
                let _ = write!(out, "\\x{c:02x}");
            }
            c => out.push(c as char),
        }
    }
    out.push(quote);
}

/// CPython's `repr(float)`: the shortest digits that round-trip, in fixed notation when the
/// decimal exponent is in `-4..16`, else scientific with a signed two-digit-minimum exponent.
pub fn float_repr(f: f64) -> String {
    let mut out = String::new();
    write_float_repr(f, &mut out);
    out
}

fn write_float_repr(f: f64, out: &mut String) {
    if f.is_nan() {
        out.push_str("nan");
        return;
    }
    if f.is_infinite() {
        out.push_str(if f > 0.0 { "inf" } else { "-inf" });
        return;
    }
    // Rust's `{:e}` gives the shortest round-trip digits too; only the layout differs.
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (negative, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    if negative {
        out.push('-');
    }
    if f == 0.0 {
        out.push_str("0.0");
        return;
    }
    // Python's decpt: value = 0.DIGITS * 10^decpt.
    let decpt = exp + 1;
    let n = digits.len() as i32;
    if decpt > -4 && decpt <= 16 {
        if decpt <= 0 {
            out.push_str("0.");
            for _ in 0..-decpt {
                out.push('0');
            }
            out.push_str(&digits);
        } else if decpt >= n {
            out.push_str(&digits);
            for _ in 0..decpt - n {
                out.push('0');
            }
            out.push_str(".0");
        } else {
            let (int, frac) = digits.split_at(decpt as usize);
            out.push_str(int);
            out.push('.');
            out.push_str(frac);
        }
    } else {
        let (first, rest) = digits.split_at(1);
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        let e = decpt - 1;
        let _ = write!(out, "e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs());
    }
}

/// Upstream's reward for the agent's rows against the gold rows (both as returned by the
/// database, in order). See the module docs for the algorithm.
pub fn score(agent: &[Vec<PyValue>], gold: &[Vec<PyValue>]) -> f64 {
    let agent: Vec<String> = agent.iter().map(|r| row_repr(r)).collect();
    let gold: Vec<String> = gold.iter().map(|r| row_repr(r)).collect();
    score_reprs(&agent, &gold)
}

/// Upstream's reward when the agent's observation may not be a row list: `None` (an error
/// message, or a statement without a result set) scores 0 whatever the gold.
pub fn reward_for(agent: Option<&[Vec<PyValue>]>, gold: &[Vec<PyValue>]) -> f64 {
    agent.map_or(0.0, |rows| score(rows, gold))
}

/// [`score`] on rows already turned into `str(tuple)` strings.
pub fn score_reprs<S: AsRef<str>>(agent: &[S], gold: &[S]) -> f64 {
    score_parts_reprs(agent, gold).reward
}

/// The parts of upstream's reward.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScoreParts {
    /// Multiset intersection over union of the row strings (1 when both are empty).
    pub iou: f64,
    /// Kendall's tau-b of the shared rows' order; `None` where scipy gives NaN.
    pub tau: Option<f64>,
    /// The reward: `round(tau * iou, 2)` when tau is defined, else `iou`.
    pub reward: f64,
}

/// [`score`] with its parts.
pub fn score_parts(agent: &[Vec<PyValue>], gold: &[Vec<PyValue>]) -> ScoreParts {
    let agent: Vec<String> = agent.iter().map(|r| row_repr(r)).collect();
    let gold: Vec<String> = gold.iter().map(|r| row_repr(r)).collect();
    score_parts_reprs(&agent, &gold)
}

/// [`score_parts`] on rows already turned into `str(tuple)` strings.
pub fn score_parts_reprs<S: AsRef<str>>(agent: &[S], gold: &[S]) -> ScoreParts {
    let ca = count_rows(agent);
    let cg = count_rows(gold);
    let mut inter: HashMap<&str, usize> = HashMap::new();
    let mut union_total = 0usize;
    for (k, &a) in &ca {
        let g = cg.get(k).copied().unwrap_or(0);
        union_total += a.max(g);
        if g > 0 {
            inter.insert(k, a.min(g));
        }
    }
    for (k, &g) in &cg {
        if !ca.contains_key(k) {
            union_total += g;
        }
    }
    if ca.is_empty() && cg.is_empty() {
        return ScoreParts {
            iou: 1.0,
            tau: None,
            reward: 1.0,
        };
    }
    let inter_total: usize = inter.values().sum();
    let iou = inter_total as f64 / union_total as f64;
    let mut parts = ScoreParts {
        iou,
        tau: None,
        reward: iou,
    };
    if !inter.is_empty() {
        let xa = intersect_items(agent, inter.clone());
        let xg = intersect_items(gold, inter);
        if let Some(tau) = kendall_tau_b(&xa, &xg) {
            parts.tau = Some(tau);
            parts.reward = round2_like_numpy(tau * iou);
        }
    }
    parts
}

fn count_rows<S: AsRef<str>>(rows: &[S]) -> HashMap<&str, usize> {
    let mut m: HashMap<&str, usize> = HashMap::with_capacity(rows.len());
    for r in rows {
        *m.entry(r.as_ref()).or_default() += 1;
    }
    m
}

/// The rows of `rows`, in order, each kept at most as often as `budget` allows (upstream's
/// `get_intersect_items`).
fn intersect_items<'a, S: AsRef<str>>(
    rows: &'a [S],
    mut budget: HashMap<&str, usize>,
) -> Vec<&'a str> {
    let mut out = Vec::with_capacity(budget.values().sum());
    for r in rows {
        let r = r.as_ref();
        if let Some(n) = budget.get_mut(r)
            && *n > 0
        {
            *n -= 1;
            out.push(r);
        }
    }
    out
}

/// `round(x, 2)` on a `numpy.float64`: the product `x * 100` is rounded half to even and divided
/// back (scipy's tau is a numpy scalar, so upstream's `round` is numpy's, not CPython's).
pub fn round2_like_numpy(x: f64) -> f64 {
    (x * 100.0).round_ties_even() / 100.0
}

/// scipy's `kendalltau(x, y).statistic` (variant b) on two equally long string sequences, with
/// the same floating-point steps; `None` where scipy returns NaN (fewer than two items, or all of
/// `x` or all of `y` tied).
pub fn kendall_tau_b(x: &[&str], y: &[&str]) -> Option<f64> {
    let n = x.len();
    if n == 0 || n != y.len() {
        return None;
    }
    let rx = dense_ranks(x);
    let ry = dense_ranks(y);
    let mut pairs: Vec<(usize, usize)> = rx.into_iter().zip(ry).collect();
    pairs.sort_unstable();
    let n64 = n as i64;
    let tot = n64 * (n64 - 1) / 2;
    let pairs_of = |c: i64| c * (c - 1) / 2;
    // Joint ties: runs of equal (x, y); ties in x: runs of equal x (pairs are sorted by x).
    let (mut ntie, mut xtie) = (0i64, 0i64);
    let mut i = 0;
    while i < n {
        let mut j = i;
        while j < n && pairs[j].0 == pairs[i].0 {
            j += 1;
        }
        xtie += pairs_of((j - i) as i64);
        let mut k = i;
        while k < j {
            let mut l = k;
            while l < j && pairs[l].1 == pairs[k].1 {
                l += 1;
            }
            ntie += pairs_of((l - k) as i64);
            k = l;
        }
        i = j;
    }
    let mut ycount: HashMap<usize, i64> = HashMap::new();
    for &(_, yr) in &pairs {
        *ycount.entry(yr).or_default() += 1;
    }
    let ytie: i64 = ycount.values().map(|&c| pairs_of(c)).sum();
    if xtie == tot || ytie == tot {
        return None;
    }
    let mut ys: Vec<usize> = pairs.iter().map(|p| p.1).collect();
    let dis = count_inversions(&mut ys);
    let con_minus_dis = tot - xtie - ytie + ntie - 2 * dis;
    let tau = con_minus_dis as f64 / ((tot - xtie) as f64).sqrt() / ((tot - ytie) as f64).sqrt();
    Some(tau.clamp(-1.0, 1.0))
}

/// Dense ranks (1-based) of strings in code-point order, like numpy's sort of a `<U` array.
fn dense_ranks(items: &[&str]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by(|&a, &b| items[a].cmp(items[b]));
    let mut ranks = vec![0usize; items.len()];
    let mut rank = 0;
    for (pos, &idx) in order.iter().enumerate() {
        if pos == 0 || items[order[pos - 1]] != items[idx] {
            rank += 1;
        }
        ranks[idx] = rank;
    }
    ranks
}

/// Number of pairs `i < j` with `v[i] > v[j]` (merge sort; sorts `v`).
fn count_inversions(v: &mut [usize]) -> i64 {
    let n = v.len();
    if n < 2 {
        return 0;
    }
    let mut buf = v.to_vec();
    let mut inversions = 0i64;
    let mut width = 1;
    while width < n {
        let mut start = 0;
        while start < n {
            let mid = (start + width).min(n);
            let end = (start + 2 * width).min(n);
            let (mut i, mut j, mut k) = (start, mid, start);
            while i < mid && j < end {
                if v[j] < v[i] {
                    inversions += (mid - i) as i64;
                    buf[k] = v[j];
                    j += 1;
                } else {
                    buf[k] = v[i];
                    i += 1;
                }
                k += 1;
            }
            buf[k..k + (mid - i)].copy_from_slice(&v[i..mid]);
            k += mid - i;
            buf[k..k + (end - j)].copy_from_slice(&v[j..end]);
            start = end;
        }
        v.copy_from_slice(&buf);
        width *= 2;
    }
    inversions
}

/// Parses `str(list_of_tuples)` as upstream logged it (`agent_obs`, `eval_obs`, observations):
/// strings, bytes, ints, floats (`inf`, `nan` too), `None`, `True`, `False`, and calls such as
/// `Decimal('1.5')` or `datetime.datetime(2018, 3, 1, 0, 0)` (kept as canonical reprs).
pub fn parse_py_rows(text: &str) -> Result<Vec<Vec<PyValue>>> {
    let mut p = Parser {
        s: text.as_bytes(),
        text,
        pos: 0,
    };
    let lit = p.value().map_err(|e| p.error(e))?;
    p.skip_ws();
    if p.pos != p.s.len() {
        return Err(p.error("trailing text after the literal"));
    }
    let Lit::Seq { items, .. } = lit else {
        return Err(Error::Other(
            "Python literal: expected a list of rows".to_string(),
        ));
    };
    items
        .into_iter()
        .map(|row| match row {
            Lit::Seq { items, .. } => Ok(items.into_iter().map(Lit::into_value).collect()),
            _ => Err(Error::Other(
                "Python literal: a row is not a tuple".to_string(),
            )),
        })
        .collect()
}

/// Rows stored as JSON arrays (some upstream logs serialised the tuples with `json.dump`).
pub fn rows_from_json(v: &Value) -> Option<Vec<Vec<PyValue>>> {
    v.as_array()?
        .iter()
        .map(|row| Some(row.as_array()?.iter().map(PyValue::from_json).collect()))
        .collect()
}

/// A parsed Python literal.
enum Lit {
    Value(PyValue),
    /// A list (`tuple == false`) or a tuple.
    Seq {
        tuple: bool,
        items: Vec<Lit>,
    },
    /// `name(args)`, with keyword arguments already rendered `k=v`.
    Call {
        name: String,
        args: Vec<String>,
    },
}

impl Lit {
    fn into_value(self) -> PyValue {
        match self {
            Lit::Value(v) => v,
            other => PyValue::Repr(other.repr()),
        }
    }

    fn repr(&self) -> String {
        match self {
            Lit::Value(v) => v.repr(),
            Lit::Seq { tuple, items } => {
                let inner: Vec<String> = items.iter().map(Lit::repr).collect();
                if *tuple {
                    if inner.len() == 1 {
                        format!("({},)", inner[0])
                    } else {
                        format!("({})", inner.join(", "))
                    }
                } else {
                    format!("[{}]", inner.join(", "))
                }
            }
            Lit::Call { name, args } => format!("{name}({})", args.join(", ")),
        }
    }
}

struct Parser<'a> {
    s: &'a [u8],
    text: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn error(&self, reason: &str) -> Error {
        Error::Other(format!(
            "Python literal: {reason} at byte {} of {}",
            self.pos,
            self.s.len()
        ))
    }

    fn skip_ws(&mut self) {
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn value(&mut self) -> std::result::Result<Lit, &'static str> {
        self.skip_ws();
        let Some(c) = self.peek() else {
            return Err("unexpected end");
        };
        match c {
            b'[' => self.seq(b']', false),
            b'(' => self.seq(b')', true),
            b'\'' | b'"' => Ok(Lit::Value(PyValue::Str(self.string()?))),
            b'b' | b'B' if matches!(self.s.get(self.pos + 1), Some(b'\'' | b'"')) => {
                self.pos += 1;
                Ok(Lit::Value(PyValue::Bytes(self.bytes()?)))
            }
            b'u' | b'U' if matches!(self.s.get(self.pos + 1), Some(b'\'' | b'"')) => {
                self.pos += 1;
                Ok(Lit::Value(PyValue::Str(self.string()?)))
            }
            b'-' | b'+' | b'0'..=b'9' | b'.' => self.number(),
            c if c.is_ascii_alphabetic() || c == b'_' => self.name_or_call(),
            _ => Err("unexpected character"),
        }
    }

    fn seq(&mut self, close: u8, tuple: bool) -> std::result::Result<Lit, &'static str> {
        self.pos += 1;
        let mut items = Vec::new();
        loop {
            self.skip_ws();
            if self.peek() == Some(close) {
                self.pos += 1;
                return Ok(Lit::Seq { tuple, items });
            }
            items.push(self.value()?);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(c) if c == close => {}
                _ => return Err("expected ',' or a closing bracket"),
            }
        }
    }

    fn ident(&mut self) -> &str {
        let start = self.pos;
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'.')
        {
            self.pos += 1;
        }
        &self.text[start..self.pos]
    }

    fn name_or_call(&mut self) -> std::result::Result<Lit, &'static str> {
        let name = self.ident().to_string();
        match name.as_str() {
            "None" => return Ok(Lit::Value(PyValue::None)),
            "True" => return Ok(Lit::Value(PyValue::Bool(true))),
            "False" => return Ok(Lit::Value(PyValue::Bool(false))),
            "inf" => return Ok(Lit::Value(PyValue::Float(f64::INFINITY))),
            "nan" => return Ok(Lit::Value(PyValue::Float(f64::NAN))),
            _ => {}
        }
        self.skip_ws();
        if self.peek() != Some(b'(') {
            return Err("unknown name");
        }
        self.pos += 1;
        let mut args = Vec::new();
        loop {
            self.skip_ws();
            if self.peek() == Some(b')') {
                self.pos += 1;
                return Ok(Lit::Call { name, args });
            }
            // A keyword argument: `name=value`.
            let save = self.pos;
            let mut keyword = None;
            if self
                .peek()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
            {
                let k = self.ident().to_string();
                self.skip_ws();
                if self.peek() == Some(b'=') {
                    self.pos += 1;
                    keyword = Some(k);
                } else {
                    self.pos = save;
                }
            }
            let v = self.value()?.repr();
            args.push(match keyword {
                Some(k) => format!("{k}={v}"),
                None => v,
            });
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b')') => {}
                _ => return Err("expected ',' or ')' in a call"),
            }
        }
    }

    fn number(&mut self) -> std::result::Result<Lit, &'static str> {
        let start = self.pos;
        if matches!(self.peek(), Some(b'-' | b'+')) {
            self.pos += 1;
        }
        if self.s[self.pos..].starts_with(b"inf") {
            self.pos += 3;
            let neg = self.s[start] == b'-';
            return Ok(Lit::Value(PyValue::Float(if neg {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            })));
        }
        let mut is_float = false;
        while let Some(c) = self.peek() {
            match c {
                b'0'..=b'9' | b'_' => {}
                b'.' => is_float = true,
                b'e' | b'E' => {
                    is_float = true;
                    if matches!(self.s.get(self.pos + 1), Some(b'-' | b'+')) {
                        self.pos += 1;
                    }
                }
                _ => break,
            }
            self.pos += 1;
        }
        let text: String = self.text[start..self.pos]
            .chars()
            .filter(|c| *c != '_')
            .collect();
        if is_float {
            text.parse::<f64>()
                .map(|f| Lit::Value(PyValue::Float(f)))
                .map_err(|_| "malformed float")
        } else {
            match text.parse::<i64>() {
                Ok(i) => Ok(Lit::Value(PyValue::Int(i))),
                Err(_) => {
                    let digits = text.trim_start_matches('+');
                    let (sign, digits) = match digits.strip_prefix('-') {
                        Some(d) => ("-", d),
                        None => ("", digits),
                    };
                    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                        return Err("malformed number");
                    }
                    let trimmed = digits.trim_start_matches('0');
                    let trimmed = if trimmed.is_empty() { "0" } else { trimmed };
                    Ok(Lit::Value(PyValue::Repr(format!("{sign}{trimmed}"))))
                }
            }
        }
    }

    /// A quoted literal's raw code points (escapes decoded), for `str` and `bytes`.
    fn quoted(&mut self, bytes: bool) -> std::result::Result<Vec<u32>, &'static str> {
        let quote = self.s[self.pos];
        self.pos += 1;
        let mut out = Vec::new();
        let rest = &self.text[self.pos..];
        let mut chars = rest.char_indices();
        while let Some((i, c)) = chars.next() {
            if c as u32 == u32::from(quote) {
                self.pos += i + 1;
                return Ok(out);
            }
            if c != '\\' {
                out.push(c as u32);
                continue;
            }
            let Some((_, e)) = chars.next() else {
                break;
            };
            let mut hex = |n: usize| -> std::result::Result<u32, &'static str> {
                let mut v = 0u32;
                for _ in 0..n {
                    let (_, h) = chars.next().ok_or("truncated escape")?;
                    v = v * 16 + h.to_digit(16).ok_or("bad hex escape")?;
                }
                Ok(v)
            };
            match e {
                '\\' | '\'' | '"' => out.push(e as u32),
                'n' => out.push(10),
                't' => out.push(9),
                'r' => out.push(13),
                'a' => out.push(7),
                'b' => out.push(8),
                'f' => out.push(12),
                'v' => out.push(11),
                '\n' => {}
                'x' => out.push(hex(2)?),
                'u' if !bytes => out.push(hex(4)?),
                'U' if !bytes => out.push(hex(8)?),
                '0'..='7' => {
                    let mut v = e.to_digit(8).unwrap_or(0);
                    for _ in 0..2 {
                        let next = chars.clone().next();
                        match next {
                            Some((_, d)) if d.is_digit(8) => {
                                v = v * 8 + d.to_digit(8).unwrap_or(0);
                                chars.next();
                            }
                            _ => break,
                        }
                    }
                    out.push(v);
                }
                other => {
                    out.push('\\' as u32);
                    out.push(other as u32);
                }
            }
        }
        Err("unterminated string")
    }

    fn string(&mut self) -> std::result::Result<String, &'static str> {
        let cps = self.quoted(false)?;
        cps.into_iter()
            .map(|cp| char::from_u32(cp).ok_or("escape is not a character"))
            .collect()
    }

    fn bytes(&mut self) -> std::result::Result<Vec<u8>, &'static str> {
        let cps = self.quoted(true)?;
        cps.into_iter()
            .map(|cp| u8::try_from(cp).map_err(|_| "non-byte in a bytes literal"))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &str) -> PyValue {
        PyValue::Str(v.to_string())
    }

    #[test]
    fn tuples_print_like_python() {
        assert_eq!(row_repr(&[PyValue::Int(1)]), "(1,)");
        assert_eq!(row_repr(&[]), "()");
        assert_eq!(
            row_repr(&[
                s("abc"),
                PyValue::Int(-3),
                PyValue::None,
                PyValue::Float(1.5)
            ]),
            "('abc', -3, None, 1.5)"
        );
        assert_eq!(
            rows_repr(&[vec![s("a")], vec![PyValue::Bool(true)]]),
            "[('a',), (True,)]"
        );
        assert_eq!(rows_repr(&[]), "[]");
    }

    #[test]
    fn strings_quote_and_escape_like_python() {
        // Reference values from CPython 3.11 `repr`.
        let cases = [
            ("abc", "'abc'"),
            ("it's", "\"it's\""),
            ("say \"hi\"", "'say \"hi\"'"),
            ("both ' and \"", "'both \\' and \"'"),
            ("back\\slash", "'back\\\\slash'"),
            ("tab\tnl\ncr\r", "'tab\\tnl\\ncr\\r'"),
            ("\u{0}\u{1f}\u{7f}", "'\\x00\\x1f\\x7f'"),
            ("Aimará Guaraní", "'Aimará Guaraní'"),
            ("nb\u{a0}sp", "'nb\\xa0sp'"),
            ("soft\u{ad}hyphen", "'soft\\xadhyphen'"),
            ("zw\u{200b}sp", "'zw\\u200bsp'"),
            ("line\u{2028}sep", "'line\\u2028sep'"),
            ("emoji 😀", "'emoji 😀'"),
            ("private \u{f0000}", "'private \\U000f0000'"),
            ("中文", "'中文'"),
            ("", "''"),
        ];
        for (input, want) in cases {
            assert_eq!(str_repr(input), want, "repr of {input:?}");
        }
    }

    #[test]
    fn bytes_print_like_python() {
        assert_eq!(
            PyValue::Bytes(b"ab\x00\xff'".to_vec()).repr(),
            "b\"ab\\x00\\xff'\""
        );
        assert_eq!(PyValue::Bytes(b"a\"b".to_vec()).repr(), "b'a\"b'");
        assert_eq!(PyValue::Bytes(vec![]).repr(), "b''");
    }

    #[test]
    fn floats_print_like_python() {
        // Reference values from CPython 3.11 `repr(float)`.
        let cases = [
            (1.5, "1.5"),
            (100.0, "100.0"),
            (1e16, "1e+16"),
            (1.5e16, "1.5e+16"),
            (1e15, "1000000000000000.0"),
            (1234567890123456.7, "1234567890123456.8"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (0.1 + 0.2, "0.30000000000000004"),
            (-0.0, "-0.0"),
            (0.0, "0.0"),
            (-2.5, "-2.5"),
            (1e100, "1e+100"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (10621.666666666666, "10621.666666666666"),
            (63.86039, "63.86039"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
            (f64::NAN, "nan"),
            (123456789.0, "123456789.0"),
            (0.001234, "0.001234"),
        ];
        for (v, want) in cases {
            assert_eq!(float_repr(v), want, "repr of {v:e}");
        }
    }

    #[test]
    fn kendall_matches_scipy() {
        // scipy 1.17 kendalltau(...).statistic, printed with repr().
        let t = |x: &[&str], y: &[&str]| kendall_tau_b(x, y);
        assert_eq!(t(&["b", "a", "c", "c"], &["a", "b", "c", "c"]), Some(0.6));
        assert_eq!(t(&["a", "b", "c"], &["c", "b", "a"]), Some(-1.0));
        assert_eq!(t(&["a"], &["a"]), None);
        assert_eq!(t(&["a", "a"], &["a", "a"]), None);
        assert_eq!(t(&[], &[]), None);
        assert_eq!(
            t(
                &["d", "a", "c", "b", "a", "e"],
                &["a", "a", "b", "c", "d", "e"]
            ),
            Some(0.07142857142857144)
        );
        assert_eq!(
            t(&["x", "y", "z", "w"], &["w", "x", "z", "y"]),
            Some(0.3333333333333334)
        );
    }

    #[test]
    fn reward_follows_upstream() {
        let r = |v: &[&str]| -> Vec<Vec<PyValue>> { v.iter().map(|x| vec![s(x)]).collect() };
        // Both empty.
        assert_eq!(score(&[], &[]), 1.0);
        // Agent empty, gold not.
        assert_eq!(score(&[], &r(&["a"])), 0.0);
        // One shared row: tau undefined, unrounded IoU.
        assert_eq!(score(&r(&["a"]), &r(&["a", "b", "c"])), 1.0 / 3.0);
        // Reversed order: -1.
        assert_eq!(score(&r(&["a", "b"]), &r(&["b", "a"])), -1.0);
        // Duplicates count as a multiset.
        assert_eq!(score(&r(&["a", "a"]), &r(&["a"])), 0.5);
        // Partial overlap with order: IoU 2/4, tau 1 -> 0.5.
        assert_eq!(score(&r(&["a", "b", "x"]), &r(&["a", "b", "y"])), 0.5);
        // Type matters through str(): 1 vs 1.0 vs '1'.
        assert_eq!(
            score(&[vec![PyValue::Int(1)]], &[vec![PyValue::Float(1.0)]]),
            0.0
        );
        assert_eq!(reward_for(None, &[]), 0.0);
        assert_eq!(reward_for(Some(&[]), &[]), 1.0);
    }

    #[test]
    fn matches_upstream_and_scipy_on_generated_cases() {
        // 600 random cases scored by upstream's get_reward with scipy (gen_reward_cases.py).
        let v: Value =
            serde_json::from_str(include_str!("../../fixtures/sql/reward_cases.json")).unwrap();
        let cases = v["cases"].as_array().unwrap();
        assert_eq!(cases.len(), 600);
        for (i, c) in cases.iter().enumerate() {
            let agent_text = c["agent"].as_str().unwrap();
            let agent = parse_py_rows(agent_text).unwrap();
            let gold = parse_py_rows(c["gold"].as_str().unwrap()).unwrap();
            assert_eq!(rows_repr(&agent), agent_text, "case {i} round trip");
            let want = c["reward"].as_f64().unwrap();
            assert_eq!(score(&agent, &gold), want, "case {i}: {c}");
        }
    }

    #[test]
    fn rounding_is_numpy_not_cpython() {
        // CPython round(2.675, 2) == 2.67; numpy's round(np.float64(2.675), 2) == 2.68.
        assert_eq!(round2_like_numpy(2.675), 2.68);
        assert_eq!(round2_like_numpy(0.285), 0.28);
        assert_eq!(round2_like_numpy(0.125), 0.12);
        assert_eq!(round2_like_numpy(-0.375), -0.38);
    }

    #[test]
    fn python_literals_parse_and_round_trip() {
        let texts = [
            "[]",
            "[(1,)]",
            "[('Teodor Salparov',), ('Maksim Botin',)]",
            "[(14, 'Rachelle', 'Funk', 3), (3, 'Jaclyn', 'Stoltenberg', 2)]",
            "[(Decimal('10621.6667'), None)]",
            "[(datetime.datetime(2018, 3, 1, 0, 0), datetime.date(2010, 9, 27))]",
            "[(\"it's\", 'x\\ny', 1e+16, -0.5, True)]",
            "[('nb\\xa0sp', b'\\x00a')]",
            "[(123456789012345678901234567890,)]",
            "[(inf, -inf, 0.30000000000000004)]",
            "[('Aimará',), ('\\u200b',)]",
            "[(datetime.timedelta(days=1, seconds=5),)]",
        ];
        for text in texts {
            let rows = parse_py_rows(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(rows_repr(&rows), text);
        }
        let rows = parse_py_rows("[ ( 1 , 'a' , ) ,( 2,'b') , ]").unwrap();
        assert_eq!(rows_repr(&rows), "[(1, 'a'), (2, 'b')]");
    }

    #[test]
    fn bad_literals_are_errors_not_panics() {
        for text in [
            "",
            "[",
            "[(1,",
            "Error executing query: x",
            "None",
            "[('abc)]",
            "[(1)]x",
            "[('\\x4')]",
            "[(foo)]",
            "[1, 2]",
            "[('\\ud800',)]",
        ] {
            assert!(parse_py_rows(text).is_err(), "{text:?} should not parse");
        }
    }

    #[test]
    fn json_rows_read_like_python_json() {
        let v: Value = serde_json::from_str(r#"[[429.0, "Physical"], [1, null]]"#).unwrap();
        let rows = rows_from_json(&v).unwrap();
        assert_eq!(rows_repr(&rows), "[(429.0, 'Physical'), (1, None)]");
    }
}
