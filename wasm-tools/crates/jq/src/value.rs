//! jq 1.6's values: jaq's JSON values, with jq's indexing (`null | .a`, `.[1.5]`), path
//! updates that create what is missing (`null | .a.b = 1`, `[] | .[2] = 1`), its division
//! and remainder, and its text for numbers everywhere (`"\(10 / 2)"` is `"5"`).

use crate::input::{number_value, strtod};
use crate::messages::{described, kind};
use crate::output::{as_f64, compact};
use jaq_core::box_iter::{BoxIter, box_once};
use jaq_core::path::Opt;
use jaq_core::val::Range;
use jaq_core::{Error, Exn, ValR, ValX};
use jaq_json::{Map, Rc, Val};
use std::fmt;

/// A value as jq 1.6 treats it.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct V(pub Val);

/// An error whose message is `text` (as jq words it).
pub fn fail(text: String) -> Error<V> {
    Error::new(V(Val::utf8_str(text)))
}

fn lift(e: Error<Val>) -> Error<V> {
    Error::new(V(e.into_val()))
}

fn lift_r(r: ValR<Val>) -> ValR<V> {
    r.map(V).map_err(lift)
}

fn number_of(v: &Val) -> Option<f64> {
    match v {
        Val::Num(n) => Some(as_f64(n)),
        _ => None,
    }
}

impl V {
    pub fn null() -> V {
        V(Val::Null)
    }
}

impl fmt::Display for V {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&compact(&self.0))
    }
}

impl From<bool> for V {
    fn from(b: bool) -> V {
        V(Val::Bool(b))
    }
}

impl From<isize> for V {
    fn from(i: isize) -> V {
        V(Val::from(i))
    }
}

impl From<usize> for V {
    fn from(u: usize) -> V {
        V(Val::from(u))
    }
}

impl From<f64> for V {
    fn from(d: f64) -> V {
        V(number_value(d))
    }
}

impl From<String> for V {
    fn from(s: String) -> V {
        V(Val::from(s))
    }
}

impl From<Range<V>> for V {
    fn from(r: Range<V>) -> V {
        V(Val::from(r.start.map(|v| v.0)..r.end.map(|v| v.0)))
    }
}

impl FromIterator<V> for V {
    fn from_iter<T: IntoIterator<Item = V>>(iter: T) -> V {
        V(Val::Arr(Rc::new(iter.into_iter().map(|v| v.0).collect())))
    }
}

impl std::ops::Add for V {
    type Output = ValR<V>;
    fn add(self, r: V) -> ValR<V> {
        lift_r(self.0 + r.0)
    }
}

impl std::ops::Sub for V {
    type Output = ValR<V>;
    fn sub(self, r: V) -> ValR<V> {
        lift_r(self.0 - r.0)
    }
}

impl std::ops::Mul for V {
    type Output = ValR<V>;
    fn mul(self, r: V) -> ValR<V> {
        lift_r(self.0 * r.0)
    }
}

/// `what` is "divided" or "divided (remainder)".
fn divisor_is_zero(l: &Val, r: &Val, what: &str) -> Error<V> {
    fail(format!(
        "{} and {} cannot be {what} because the divisor is zero",
        described(l),
        described(r)
    ))
}

impl std::ops::Div for V {
    type Output = ValR<V>;
    fn div(self, r: V) -> ValR<V> {
        match (number_of(&self.0), number_of(&r.0)) {
            (Some(_), Some(0.0)) => Err(divisor_is_zero(&self.0, &r.0, "divided")),
            (Some(a), Some(b)) => Ok(V(number_value(a / b))),
            _ => lift_r(self.0 / r.0),
        }
    }
}

impl std::ops::Rem for V {
    type Output = ValR<V>;
    /// As C computes it on both operands cut to integers.
    fn rem(self, r: V) -> ValR<V> {
        match (number_of(&self.0), number_of(&r.0)) {
            (Some(a), Some(b)) => {
                let (a, b) = (a as i64, b as i64);
                if b == 0 {
                    return Err(divisor_is_zero(&self.0, &r.0, "divided (remainder)"));
                }
                Ok(V(number_value(a.wrapping_rem(b) as f64)))
            }
            _ => lift_r(self.0 % r.0),
        }
    }
}

impl std::ops::Neg for V {
    type Output = ValR<V>;
    fn neg(self) -> ValR<V> {
        lift_r(-self.0)
    }
}

/// Bounds of a slice of `len` items as jq 1.6 takes them: negative from the end, clamped,
/// the start rounded down and the end up.
fn slice_bounds(
    start: Option<&Val>,
    end: Option<&Val>,
    len: usize,
) -> Result<(usize, usize), Error<V>> {
    let len_f = len as f64;
    let bound = |v: Option<&Val>, default: f64| -> Result<f64, Error<V>> {
        match v {
            None | Some(Val::Null) => Ok(default),
            Some(Val::Num(n)) => {
                let d = as_f64(n);
                Ok((if d < 0.0 { d + len_f } else { d }).clamp(0.0, len_f))
            }
            Some(_) => Err(fail(
                "Start and end indices of an array slice must be numbers".to_string(),
            )),
        }
    };
    let start = bound(start, 0.0)?.floor() as usize;
    let end = (bound(end, len_f)?.ceil() as usize).max(start);
    Ok((start, end))
}

impl jaq_core::ValT for V {
    fn from_num(n: &str) -> ValR<V> {
        match strtod(n) {
            Some(d) => Ok(V(number_value(d))),
            None => lift_r(Val::from_num(n)),
        }
    }

    fn from_map<I: IntoIterator<Item = (V, V)>>(iter: I) -> ValR<V> {
        Ok(V(Val::obj(
            iter.into_iter().map(|(k, v)| (k.0, v.0)).collect(),
        )))
    }

    fn key_values(self) -> BoxIter<'static, ValR<(V, V), V>> {
        match self.0 {
            Val::Arr(a) => Box::new(
                Rc::unwrap_or_clone(a)
                    .into_iter()
                    .enumerate()
                    .map(|(i, x)| Ok((V::from(i), V(x)))),
            ),
            Val::Obj(o) => Box::new(
                Rc::unwrap_or_clone(o)
                    .into_iter()
                    .map(|(k, x)| Ok((V(k), V(x)))),
            ),
            other => box_once(Err(Error::typ(V(other), "iterable"))),
        }
    }

    fn values(self) -> Box<dyn Iterator<Item = ValR<V>>> {
        match self.0 {
            Val::Arr(a) => Box::new(Rc::unwrap_or_clone(a).into_iter().map(|x| Ok(V(x)))),
            Val::Obj(o) => Box::new(Rc::unwrap_or_clone(o).into_iter().map(|(_, x)| Ok(V(x)))),
            other => box_once(Err(Error::typ(V(other), "iterable"))),
        }
    }

    fn index(self, index: &V) -> ValR<V> {
        match (&self.0, &index.0) {
            (Val::Null, Val::TStr(_) | Val::Num(_) | Val::Null) => Ok(V::null()),
            (Val::Obj(o), Val::TStr(_)) => Ok(V(o.get(&index.0).cloned().unwrap_or_default())),
            (Val::Obj(_), _) => Err(Error::index(self, index.clone())),
            (Val::Arr(a), Val::Num(n)) => {
                let d = as_f64(n);
                if d.fract() != 0.0 || !d.is_finite() {
                    return Ok(V::null());
                }
                let mut i = d as i64;
                if i < 0 {
                    i += a.len() as i64;
                }
                Ok(V(usize::try_from(i)
                    .ok()
                    .and_then(|i| a.get(i).cloned())
                    .unwrap_or_default()))
            }
            _ => lift_r(self.0.index(&index.0)),
        }
    }

    fn range(self, range: Range<&V>) -> ValR<V> {
        match &self.0 {
            Val::Null => Ok(V::null()),
            Val::Arr(a) => {
                let (s, e) =
                    slice_bounds(range.start.map(|v| &v.0), range.end.map(|v| &v.0), a.len())?;
                Ok(V(a[s..e].iter().cloned().collect()))
            }
            _ => lift_r(
                self.0
                    .range(range.start.map(|v| &v.0)..range.end.map(|v| &v.0)),
            ),
        }
    }

    fn map_values<'a, I: Iterator<Item = ValX<'a, V>>>(
        self,
        opt: Opt,
        f: impl Fn(V) -> I,
    ) -> ValX<'a, V> {
        match self.0 {
            Val::Arr(a) => {
                let mut out = Vec::new();
                for x in Rc::unwrap_or_clone(a) {
                    if let Some(y) = f(V(x)).next() {
                        out.push(y?.0);
                    }
                }
                Ok(V(Val::Arr(Rc::new(out))))
            }
            Val::Obj(o) => {
                let mut out = Map::default();
                for (k, x) in Rc::unwrap_or_clone(o) {
                    if let Some(y) = f(V(x)).next() {
                        out.insert(k, y?.0);
                    }
                }
                Ok(V(Val::obj(out)))
            }
            other => opt.fail(V(other), |v| Exn::from(Error::typ(v, "iterable"))),
        }
    }

    fn map_index<'a, I: Iterator<Item = ValX<'a, V>>>(
        self,
        index: &V,
        opt: Opt,
        f: impl Fn(V) -> I,
    ) -> ValX<'a, V> {
        match (self.0, &index.0) {
            (v @ (Val::Null | Val::Arr(_)), Val::Obj(o)) => {
                let start = o.get(&Val::utf8_str("start")).cloned().map(V);
                let end = o.get(&Val::utf8_str("end")).cloned().map(V);
                V(v).map_range(start.as_ref()..end.as_ref(), opt, f)
            }
            (Val::Null, Val::TStr(_)) => V(Val::obj(Map::default())).map_index(index, opt, f),
            (Val::Null, Val::Num(_)) => V(Val::Arr(Rc::new(Vec::new()))).map_index(index, opt, f),
            (Val::Obj(o), Val::TStr(_)) => {
                let mut map = Rc::unwrap_or_clone(o);
                match map.get_index_of(&index.0) {
                    Some(i) => {
                        let old = std::mem::take(&mut map[i]);
                        match f(V(old)).next().transpose()? {
                            Some(y) => map[i] = y.0,
                            None => {
                                map.shift_remove_index(i);
                            }
                        }
                    }
                    None => {
                        if let Some(y) = f(V::null()).next().transpose()? {
                            map.insert(index.0.clone(), y.0);
                        }
                    }
                }
                Ok(V(Val::obj(map)))
            }
            (Val::Arr(a), Val::Num(n)) => {
                let mut items = Rc::unwrap_or_clone(a);
                let mut i = as_f64(n) as i64;
                if i < 0 {
                    i += items.len() as i64;
                    if i < 0 {
                        return Err(Exn::from(fail("Out of bounds negative array index".into())));
                    }
                }
                let i = i as usize;
                if i >= items.len() {
                    if let Some(y) = f(V::null()).next().transpose()? {
                        items.resize(i + 1, Val::Null);
                        items[i] = y.0;
                    }
                } else {
                    let old = std::mem::take(&mut items[i]);
                    match f(V(old)).next().transpose()? {
                        Some(y) => items[i] = y.0,
                        None => {
                            items.remove(i);
                        }
                    }
                }
                Ok(V(Val::Arr(Rc::new(items))))
            }
            (other, _) => opt.fail(V(other), |v| Exn::from(Error::index(v, index.clone()))),
        }
    }

    fn map_range<'a, I: Iterator<Item = ValX<'a, V>>>(
        self,
        range: Range<&V>,
        opt: Opt,
        f: impl Fn(V) -> I,
    ) -> ValX<'a, V> {
        let mut items = match self.0 {
            Val::Null => Vec::new(),
            Val::Arr(a) => Rc::unwrap_or_clone(a),
            other => {
                return opt.fail(V(other), |v| {
                    Exn::from(fail(format!(
                        "Cannot update field at object index of {}",
                        kind(&v.0)
                    )))
                });
            }
        };
        let (s, e) = slice_bounds(
            range.start.map(|v| &v.0),
            range.end.map(|v| &v.0),
            items.len(),
        )?;
        let slice = V(items[s..e].iter().cloned().collect());
        match f(slice).next().transpose()? {
            None => {
                items.drain(s..e);
            }
            Some(V(Val::Arr(new))) => {
                items.splice(s..e, new.iter().cloned());
            }
            Some(_) => {
                return Err(Exn::from(fail(
                    "A slice of an array can only be assigned another array".into(),
                )));
            }
        }
        Ok(V(Val::Arr(Rc::new(items))))
    }

    fn as_bool(&self) -> bool {
        !matches!(self.0, Val::Null | Val::Bool(false))
    }

    fn into_string(self) -> V {
        match self.0 {
            s @ Val::TStr(_) => V(s),
            other => V(Val::utf8_str(compact(&other))),
        }
    }
}

impl jaq_std::ValT for V {
    fn into_seq<S: FromIterator<V>>(self) -> Result<S, V> {
        match self.0 {
            Val::Arr(a) => Ok(Rc::unwrap_or_clone(a).into_iter().map(V).collect()),
            other => Err(V(other)),
        }
    }

    fn is_int(&self) -> bool {
        self.as_isize().is_some()
    }

    fn as_isize(&self) -> Option<isize> {
        let d = number_of(&self.0)?;
        (d.fract() == 0.0 && d.abs() <= isize::MAX as f64).then_some(d as isize)
    }

    fn as_f64(&self) -> Option<f64> {
        number_of(&self.0)
    }

    fn is_utf8_str(&self) -> bool {
        matches!(self.0, Val::TStr(_))
    }

    fn as_bytes(&self) -> Option<&[u8]> {
        jaq_std::ValT::as_bytes(&self.0)
    }

    fn as_sub_str(&self, sub: &[u8]) -> V {
        V(jaq_std::ValT::as_sub_str(&self.0, sub))
    }

    fn from_utf8_bytes(b: impl AsRef<[u8]> + Send + 'static) -> V {
        V(<Val as jaq_std::ValT>::from_utf8_bytes(b))
    }
}
