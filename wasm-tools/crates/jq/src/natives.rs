//! Natives written here: jq 1.6's versions of the filters jaq's JSON crate provides (which
//! work on its own value type), and those whose output or words jq 1.6 has otherwise. They
//! come before jaq's in the list, and the first native of a name wins.

use crate::messages::{described, kind};
use crate::output::{self, as_f64, compact};
use crate::run::DataKind;
use crate::value::{V, fail};
use jaq_core::box_iter::box_once;
use jaq_core::native::{Filter, Fun, bome, run as native, v};
use jaq_core::{Exn, RunPtr, ValR};
use jaq_json::Val;
use std::io::Write;

fn text(s: String) -> V {
    V(Val::utf8_str(s))
}

fn string_of(v: &Val) -> String {
    match v {
        Val::TStr(b) | Val::BStr(b) => String::from_utf8_lossy(b).into_owned(),
        other => compact(other),
    }
}

fn length(v: &Val) -> ValR<V> {
    Ok(match v {
        Val::Null => V::from(0usize),
        Val::Bool(_) => return Err(fail(format!("{} has no length", described(v)))),
        Val::Num(n) => V::from(as_f64(n).abs()),
        Val::TStr(b) => V::from(String::from_utf8_lossy(b).chars().count()),
        Val::BStr(b) => V::from(b.len()),
        Val::Arr(a) => V::from(a.len()),
        Val::Obj(o) => V::from(o.len()),
    })
}

/// jq 1.6's `contains`: substrings, every wanted element inside some element, every wanted
/// key present with a containing value; scalars by equality. Kinds must match.
fn contains(a: &Val, b: &Val) -> Result<bool, String> {
    let same_kind = kind(a) == kind(b);
    if !same_kind {
        return Err(format!(
            "{} and {} cannot have their containment checked",
            described(a),
            described(b)
        ));
    }
    Ok(match (a, b) {
        (Val::Obj(x), Val::Obj(y)) => {
            for (k, want) in y.iter() {
                match x.get(k) {
                    Some(have) if contains(have, want)? => {}
                    _ => return Ok(false),
                }
            }
            true
        }
        (Val::Arr(x), Val::Arr(y)) => {
            for want in y.iter() {
                let mut found = false;
                for have in x.iter() {
                    if kind(have) == kind(want) && contains(have, want)? {
                        found = true;
                        break;
                    }
                }
                if !found {
                    return Ok(false);
                }
            }
            true
        }
        (Val::TStr(x), Val::TStr(y)) => {
            let (x, y): (&[u8], &[u8]) = (x, y);
            y.is_empty() || x.windows(y.len()).any(|w| w == y)
        }
        _ => a == b,
    })
}

fn has(a: &Val, k: &Val) -> ValR<V> {
    match (a, k) {
        (Val::Obj(o), Val::TStr(_)) => Ok(V::from(o.contains_key(k))),
        (Val::Arr(items), Val::Num(n)) => {
            let d = as_f64(n);
            Ok(V::from(d >= 0.0 && d < items.len() as f64))
        }
        _ => Err(fail(format!(
            "Cannot check whether {} has a {} key",
            kind(a),
            kind(k)
        ))),
    }
}

fn indices(a: &Val, i: &Val) -> ValR<V> {
    let positions: Vec<usize> = match (a, i) {
        (Val::Null, _) => return Ok(V::null()),
        // jq 1.6 counts bytes here, overlapping matches included.
        (Val::TStr(x), Val::TStr(y)) => {
            let (x, y): (&[u8], &[u8]) = (x, y);
            if y.is_empty() {
                return Ok(V::null());
            }
            (0..x.len().saturating_sub(y.len() - 1))
                .filter(|&p| x[p..].starts_with(y))
                .collect()
        }
        (Val::Arr(x), Val::Arr(y)) => {
            if y.is_empty() {
                return Ok(V::null());
            }
            (0..x.len().saturating_sub(y.len() - 1))
                .filter(|&p| x[p..p + y.len()] == y[..])
                .collect()
        }
        (Val::Arr(x), other) => (0..x.len()).filter(|&p| &x[p] == other).collect(),
        _ => {
            return Err(fail(format!("Cannot index {} with {}", kind(a), kind(i))));
        }
    };
    Ok(positions.into_iter().map(V::from).collect())
}

fn bsearch(a: &Val, x: &Val) -> ValR<V> {
    let Val::Arr(items) = a else {
        return Err(fail(format!("{} cannot be searched from", described(a))));
    };
    Ok(match items.binary_search(x) {
        Ok(i) => V::from(i),
        Err(i) => V::from(-1.0 - i as f64),
    })
}

/// A JSON text's one value, or the reader's message naming the text.
fn from_json(v: &Val) -> ValR<V> {
    let source = string_of(v);
    crate::cli::one_value(&source)
        .map(V)
        .map_err(|e| fail(format!("{e} (while parsing '{source}')")))
}

pub fn natives() -> Vec<Fun<DataKind>> {
    let list: Vec<Filter<RunPtr<DataKind>>> = vec![
        ("length", v(0), |cv| bome(length(&cv.1.0))),
        ("has", v(1), |mut cv| {
            let k = cv.0.pop_var();
            bome(has(&cv.1.0, &k.0))
        }),
        ("contains", v(1), |mut cv| {
            let b = cv.0.pop_var();
            bome(contains(&cv.1.0, &b.0).map(V::from).map_err(fail))
        }),
        ("indices", v(1), |mut cv| {
            let i = cv.0.pop_var();
            bome(indices(&cv.1.0, &i.0))
        }),
        ("bsearch", v(1), |mut cv| {
            let x = cv.0.pop_var();
            bome(bsearch(&cv.1.0, &x.0))
        }),
        ("_jq_keys", v(0), |cv| {
            bome(match &cv.1.0 {
                Val::Obj(o) => Ok(o.keys().cloned().map(V).collect()),
                Val::Arr(a) => Ok((0..a.len()).map(V::from).collect()),
                other => Err(fail(format!("{} has no keys", described(other)))),
            })
        }),
        ("_jq_nan", v(0), |_| bome(Ok(V(Val::from(f64::NAN))))),
        ("tojson", v(0), |cv| bome(Ok(text(compact(&cv.1.0))))),
        ("_jq_tostring", v(0), |cv| {
            bome(Ok(match cv.1.0 {
                s @ Val::TStr(_) => V(s),
                other => text(compact(&other)),
            }))
        }),
        ("_jq_tojson", v(0), |cv| bome(Ok(text(compact(&cv.1.0))))),
        ("_jq_format", v(1), |mut cv| {
            let name = string_of(&cv.0.pop_var().0);
            bome(
                crate::formats::apply(&name, &cv.1.0)
                    .map(text)
                    .map_err(fail),
            )
        }),
        ("_jq_debug", v(0), |cv| {
            eprintln!("[\"DEBUG:\",{}]", compact(&cv.1.0));
            box_once(Ok(cv.1))
        }),
        ("_jq_halt_error", v(1), |mut cv| {
            let code = match &cv.0.pop_var().0 {
                Val::Num(n) => output::as_f64(n) as i32,
                _ => 5,
            };
            match &cv.1.0 {
                Val::TStr(b) => {
                    let _ = std::io::stderr().lock().write_all(b);
                }
                Val::Null => {}
                other => eprintln!("{}", compact(other)),
            }
            box_once(Err(Exn::halt(code)))
        }),
        ("_jq_tostream", v(0), |cv| {
            Box::new(crate::stream::events(cv.1.0).into_iter().map(|e| Ok(V(e))))
        }),
        ("fromjson", v(0), |cv| bome(from_json(&cv.1.0))),
        ("_jq_fromjson", v(0), |cv| bome(from_json(&cv.1.0))),
        ("input_filename", v(0), |cv| {
            let name = cv.0.data().position.file.borrow().clone();
            bome(Ok(name.map_or(V::null(), text)))
        }),
        ("input_line_number", v(0), |cv| {
            bome(Ok(V::from(cv.0.data().position.line.get())))
        }),
    ];
    list.into_iter().map(native::<DataKind>).collect()
}
