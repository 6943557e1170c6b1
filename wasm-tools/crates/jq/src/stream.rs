//! `--stream` and `tostream`: a value as its leaf events `[path, leaf]` and, after each
//! non-empty container, the closing event `[path-of-its-last-child]`.

use jaq_json::Val;

pub fn events(v: Val) -> Vec<Val> {
    let mut out = Vec::new();
    walk(&v, &mut Vec::new(), &mut out);
    out
}

fn path_val(path: &[Val]) -> Val {
    path.iter().cloned().collect()
}

fn walk(v: &Val, path: &mut Vec<Val>, out: &mut Vec<Val>) {
    let children: Vec<(Val, &Val)> = match v {
        Val::Arr(items) if !items.is_empty() => items
            .iter()
            .enumerate()
            .map(|(i, x)| (Val::from(i as isize), x))
            .collect(),
        Val::Obj(map) if !map.is_empty() => map.iter().map(|(k, x)| (k.clone(), x)).collect(),
        leaf => {
            out.push([path_val(path), leaf.clone()].into_iter().collect());
            return;
        }
    };
    let mut last = Val::Null;
    for (key, child) in children {
        path.push(key.clone());
        walk(child, path, out);
        path.pop();
        last = key;
    }
    path.push(last);
    out.push([path_val(path)].into_iter().collect());
    path.pop();
}
