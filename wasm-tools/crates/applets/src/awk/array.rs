//! AWK associative arrays that iterate in mawk's order.
//!
//! `for (k in a)` visits keys in whatever order the implementation's hash table yields, and
//! agents pipe such loops into `head`, so we reproduce mawk 1.3.4's table (described in its
//! `array.w` design notes) rather than use an ordered map: a power-of-two number of chains
//! (64 to start; doubled when the table holds more than 12 entries per chain on average),
//! each entry on a string chain (FNV-1a hash of the key) and/or an integer chain (the key's
//! value, for subscripts that are integral numbers); a successful lookup moves the entry to
//! the front of its chain; integer-only entries get their string form, chain by chain, the
//! first time the table is searched by string or looped over; `split()` builds a plain
//! vector that becomes an integer table when touched otherwise; an array that becomes empty
//! starts over. A loop walks the string chains in order, front to back, over a snapshot of
//! the keys.
//!
//! The values live in a slab indexed by a `HashMap` from the key's string form, so lookups
//! stay O(1); the chains hold slab indices and only decide order.

use super::value::{Str, Value};
use std::collections::{HashMap, VecDeque};
use std::rc::Rc;

const STARTING_HMASK: u32 = 63;
const MAX_AVE_LIST_LENGTH: usize = 12;

fn limit(hmask: u32) -> usize {
    (hmask as usize + 1) * MAX_AVE_LIST_LENGTH
}

/// mawk's string hash (32-bit FNV-1a).
fn fnv1a(s: &[u8]) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for &c in s {
        h ^= u32::from(c);
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

#[derive(Debug)]
struct Entry {
    key: Str,
    value: Value,
    /// On an integer chain with this value.
    ival: Option<i32>,
    /// On a string chain (with hash `hval`).
    on_str: bool,
    hval: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Null,
    /// Built by `split()`: elements 1..=n, no chains yet.
    Split,
    Table {
        has_int: bool,
        has_str: bool,
    },
}

#[derive(Debug)]
pub struct Array {
    slab: Vec<Option<Entry>>,
    free: Vec<usize>,
    index: HashMap<Str, usize>,
    kind: Kind,
    hmask: u32,
    slists: Vec<VecDeque<usize>>,
    ilists: Vec<VecDeque<usize>>,
    /// For `Kind::Split`: slab index of element i+1.
    split: Vec<usize>,
}

impl Default for Array {
    fn default() -> Self {
        Array {
            slab: Vec::new(),
            free: Vec::new(),
            index: HashMap::new(),
            kind: Kind::Null,
            hmask: STARTING_HMASK,
            slists: Vec::new(),
            ilists: Vec::new(),
            split: Vec::new(),
        }
    }
}

/// How a subscript looks it up: integral numbers by value, everything else by string.
#[derive(Clone, Copy, Debug)]
pub enum Sub {
    Int(i32),
    Str,
}

impl Array {
    pub fn len(&self) -> usize {
        self.index.len()
    }

    fn entry(&self, i: usize) -> &Entry {
        self.slab[i].as_ref().expect("live slab entry")
    }

    fn entry_mut(&mut self, i: usize) -> &mut Entry {
        self.slab[i].as_mut().expect("live slab entry")
    }

    fn alloc(&mut self, key: Str, ival: Option<i32>, on_str: bool) -> usize {
        let hval = if on_str { fnv1a(&key) } else { 0 };
        let e = Entry {
            key: key.clone(),
            value: Value::Uninit,
            ival,
            on_str,
            hval,
        };
        let i = match self.free.pop() {
            Some(i) => {
                self.slab[i] = Some(e);
                i
            }
            None => {
                self.slab.push(Some(e));
                self.slab.len() - 1
            }
        };
        self.index.insert(key, i);
        i
    }

    fn make_table(&mut self, has_int: bool, has_str: bool, size: usize) {
        self.hmask = STARTING_HMASK;
        while size > limit(self.hmask) {
            self.hmask = (self.hmask << 1) | 1;
        }
        let n = self.hmask as usize + 1;
        self.slists = vec![VecDeque::new(); n];
        self.ilists = vec![VecDeque::new(); n];
        self.kind = Kind::Table { has_int, has_str };
    }

    fn convert_split(&mut self) {
        let elems = std::mem::take(&mut self.split);
        self.make_table(true, false, elems.len());
        for (i, &slot) in elems.iter().enumerate() {
            let ival = (i + 1) as i32;
            self.entry_mut(slot).ival = Some(ival);
            let chain = (ival as u32 & self.hmask) as usize;
            self.ilists[chain].push_front(slot);
        }
    }

    fn add_string_associations(&mut self) {
        match self.kind {
            Kind::Null => {
                self.make_table(false, true, 0);
                return;
            }
            Kind::Split => self.convert_split(),
            _ => {}
        }
        for chain in 0..self.ilists.len() {
            let members: Vec<usize> = self.ilists[chain].iter().copied().collect();
            for slot in members {
                let hmask = self.hmask;
                let e = self.entry_mut(slot);
                e.on_str = true;
                e.hval = fnv1a(&e.key);
                let s = (e.hval & hmask) as usize;
                self.slists[s].push_front(slot);
            }
        }
        if let Kind::Table { has_int, .. } = self.kind {
            self.kind = Kind::Table {
                has_int,
                has_str: true,
            };
        }
    }

    /// Grows the table when an insertion made it exceed its load limit.
    fn grown(&mut self) {
        if self.index.len() <= limit(self.hmask) {
            return;
        }
        let old = self.hmask;
        let new = (old << 1) | 1;
        let n = new as usize + 1;
        self.slists.resize(n, VecDeque::new());
        self.ilists.resize(n, VecDeque::new());
        for i in 0..=old as usize {
            let j = i + old as usize + 1;
            // Entries whose hash has the new bit move, in order, to chain j.
            let (stay, go): (VecDeque<usize>, VecDeque<usize>) = self.slists[i]
                .iter()
                .partition(|&&s| (self.entry(s).hval & new) as usize == i);
            self.slists[i] = stay;
            self.slists[j] = go;
            let (stay, go): (VecDeque<usize>, VecDeque<usize>) = self.ilists[i]
                .iter()
                .partition(|&&s| (self.entry(s).ival.unwrap_or(0) as u32 & new) as usize == i);
            self.ilists[i] = stay;
            self.ilists[j] = go;
        }
        self.hmask = new;
    }

    fn move_to_front(list: &mut VecDeque<usize>, slot: usize) {
        if list.front() == Some(&slot) {
            return;
        }
        if let Some(p) = list.iter().position(|&s| s == slot) {
            list.remove(p);
            list.push_front(slot);
        }
    }

    fn find_by_sval(&mut self, key: &Str, create: bool) -> Option<usize> {
        if !matches!(self.kind, Kind::Table { has_str: true, .. }) {
            self.add_string_associations();
        }
        let chain = (fnv1a(key) & self.hmask) as usize;
        if let Some(&slot) = self.index.get(key)
            && self.entry(slot).on_str
        {
            Self::move_to_front(&mut self.slists[chain], slot);
            return Some(slot);
        }
        if !create {
            return None;
        }
        let slot = self.alloc(key.clone(), None, true);
        self.grown();
        let chain = (fnv1a(key) & self.hmask) as usize;
        self.slists[chain].push_front(slot);
        Some(slot)
    }

    fn find_by_ival(&mut self, ival: i32, key: &Str, create: bool) -> Option<usize> {
        let chain = (ival as u32 & self.hmask) as usize;
        if let Some(&slot) = self.index.get(key)
            && self.entry(slot).ival == Some(ival)
        {
            Self::move_to_front(&mut self.ilists[chain], slot);
            return Some(slot);
        }
        let slot = if matches!(self.kind, Kind::Table { has_str: true, .. }) {
            self.find_by_sval(key, create)?
        } else if create {
            let s = self.alloc(key.clone(), None, false);
            self.grown();
            s
        } else {
            return None;
        };
        self.entry_mut(slot).ival = Some(ival);
        if let Kind::Table { has_str, .. } = self.kind {
            self.kind = Kind::Table {
                has_int: true,
                has_str,
            };
        }
        let chain = (ival as u32 & self.hmask) as usize;
        self.ilists[chain].push_front(slot);
        Some(slot)
    }

    /// `array_find`: the slot of `a[key]`, created when `create`; `sub` says how mawk would
    /// look it up.
    pub fn find(&mut self, key: &Str, sub: Sub, create: bool) -> Option<usize> {
        match sub {
            Sub::Int(ival) => {
                match self.kind {
                    Kind::Split => {
                        if ival >= 1 && (ival as usize) <= self.split.len() {
                            return Some(self.split[ival as usize - 1]);
                        }
                        if !create {
                            return None;
                        }
                        self.convert_split();
                    }
                    Kind::Null => self.make_table(true, false, 0),
                    Kind::Table { .. } => {}
                }
                self.find_by_ival(ival, key, create)
            }
            Sub::Str => self.find_by_sval(key, create),
        }
    }

    pub fn value(&self, slot: usize) -> &Value {
        &self.entry(slot).value
    }

    pub fn set_value(&mut self, slot: usize, v: Value) {
        self.entry_mut(slot).value = v;
    }

    /// A lookup that leaves the order alone (for the interpreter's own second access).
    pub fn slot_of(&self, key: &[u8]) -> Option<usize> {
        self.index.get(key).copied()
    }

    fn unlink(&mut self, slot: usize) {
        let hmask = self.hmask;
        let e = self.entry(slot);
        let (on_str, hval, ival) = (e.on_str, e.hval, e.ival);
        if on_str {
            let l = &mut self.slists[(hval & hmask) as usize];
            if let Some(p) = l.iter().position(|&s| s == slot) {
                l.remove(p);
            }
        }
        if let Some(iv) = ival {
            let l = &mut self.ilists[(iv as u32 & hmask) as usize];
            if let Some(p) = l.iter().position(|&s| s == slot) {
                l.remove(p);
            }
        }
        let e = self.slab[slot].take().expect("live slab entry");
        self.index.remove(&e.key);
        self.free.push(slot);
        if self.index.is_empty() {
            self.clear();
        }
    }

    pub fn delete(&mut self, key: &Str, sub: Sub) {
        if self.index.is_empty() {
            return;
        }
        let found = match sub {
            Sub::Int(ival) => {
                if self.kind == Kind::Split {
                    if ival >= 1 && (ival as usize) <= self.split.len() {
                        self.convert_split();
                    } else {
                        return;
                    }
                }
                self.find_by_ival(ival, key, false)
            }
            Sub::Str => self.find_by_sval(key, false),
        };
        if let Some(slot) = found {
            self.unlink(slot);
        }
    }

    pub fn clear(&mut self) {
        *self = Array::default();
    }

    /// `split()`'s result: elements 1..=n as a plain vector.
    pub fn load_split(&mut self, parts: Vec<Value>) {
        self.clear();
        self.kind = Kind::Split;
        for (i, v) in parts.into_iter().enumerate() {
            let key: Str = Rc::from((i + 1).to_string().as_bytes());
            let slot = self.alloc(key, None, false);
            self.entry_mut(slot).value = v;
            self.split.push(slot);
        }
    }

    /// The keys a `for (k in a)` loop visits, in mawk's order.
    pub fn loop_keys(&mut self) -> Vec<Str> {
        if self.index.is_empty() {
            return Vec::new();
        }
        if !matches!(self.kind, Kind::Table { has_str: true, .. }) {
            self.add_string_associations();
        }
        let mut out = Vec::with_capacity(self.index.len());
        for chain in &self.slists {
            for &slot in chain {
                out.push(self.entry(slot).key.clone());
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(s: &str) -> Str {
        Rc::from(s.as_bytes())
    }

    fn keys(a: &mut Array) -> String {
        a.loop_keys()
            .iter()
            .map(|k| String::from_utf8_lossy(k).into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn integer_keys_in_mawk_order() {
        let mut a = Array::default();
        for i in 1..=20 {
            a.find(&key(&i.to_string()), Sub::Int(i), true);
        }
        assert_eq!(
            keys(&mut a),
            "3 10 8 6 15 5 2 11 1 16 4 12 18 17 9 7 14 13 20 19"
        );
    }

    #[test]
    fn string_keys_and_split() {
        let mut a = Array::default();
        for i in 0..30 {
            a.find(&key(&format!("k{i}")), Sub::Str, true);
        }
        assert_eq!(
            keys(&mut a),
            "k1 k17 k25 k2 k12 k5 k22 k28 k11 k6 k16 k8 k26 k3 k15 k23 k29 k10 k7 k20 k19 k9 k27 k0 k14 k24 k13 k4 k21 k18"
        );
        let mut s = Array::default();
        s.load_split((0..4).map(|_| Value::Uninit).collect());
        assert_eq!(keys(&mut s), "3 2 1 4");
        s.delete(&key("3"), Sub::Int(3));
        assert_eq!(s.len(), 3);
        assert_eq!(keys(&mut s), "2 1 4");
    }

    #[test]
    fn growth_keeps_everything() {
        let mut a = Array::default();
        for i in 0..5000 {
            a.find(&key(&format!("x{i}")), Sub::Str, true);
        }
        assert_eq!(a.len(), 5000);
        assert_eq!(a.loop_keys().len(), 5000);
        for i in 0..5000 {
            a.delete(&key(&format!("x{i}")), Sub::Str);
        }
        assert_eq!(a.len(), 0);
    }
}
