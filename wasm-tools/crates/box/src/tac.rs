//! `tac`: uutils' tac spools standard input to a temporary file through `std::env::temp_dir`,
//! which panics on WASI, so this small one keeps everything in memory. Supports `-s SEP`,
//! `-b` and `-r` is not supported (rare).

use std::ffi::OsString;
use std::io::{Read, Write};

pub fn main(args: Vec<OsString>) -> i32 {
    let mut sep = b"\n".to_vec();
    let mut before = false;
    let mut files = Vec::new();
    let mut it = args
        .into_iter()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned());
    while let Some(a) = it.next() {
        match a.as_str() {
            "-b" | "--before" => before = true,
            "-s" | "--separator" => sep = it.next().unwrap_or_default().into_bytes(),
            s if s.starts_with("--separator=") => {
                sep = s.as_bytes()["--separator=".len()..].to_vec()
            }
            s if s.starts_with("-s") && s.len() > 2 => sep = s.as_bytes()[2..].to_vec(),
            _ => files.push(a),
        }
    }
    if files.is_empty() {
        files.push("-".into());
    }
    if sep.is_empty() {
        sep = b"\n".to_vec();
    }
    let mut status = 0;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for f in files {
        let mut data = Vec::new();
        let r = if f == "-" {
            std::io::stdin().read_to_end(&mut data).map(|_| ())
        } else {
            std::fs::read(&f).map(|d| data = d)
        };
        if let Err(e) = r {
            let msg = e.to_string();
            let msg = msg.split(" (os error").next().unwrap_or(&msg).to_string();
            eprintln!("tac: failed to open '{f}' for reading: {msg}");
            status = 1;
            continue;
        }
        let _ = out.write_all(&reverse_records(&data, &sep, before));
    }
    status
}

fn reverse_records(data: &[u8], sep: &[u8], before: bool) -> Vec<u8> {
    let mut records: Vec<&[u8]> = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i + sep.len() <= data.len() {
        if &data[i..i + sep.len()] == sep {
            if before {
                if i > start {
                    records.push(&data[start..i]);
                }
                start = i;
            } else {
                records.push(&data[start..i + sep.len()]);
                start = i + sep.len();
            }
            i += sep.len();
        } else {
            i += 1;
        }
    }
    if start < data.len() {
        records.push(&data[start..]);
    }
    let mut out = Vec::with_capacity(data.len());
    for r in records.into_iter().rev() {
        out.extend_from_slice(r);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::reverse_records;

    #[test]
    fn like_gnu_tac() {
        // GNU: printf 'a\nb\nc\n' | tac -> c b a; without final newline the last record joins.
        assert_eq!(reverse_records(b"a\nb\nc\n", b"\n", false), b"c\nb\na\n");
        assert_eq!(reverse_records(b"a\nb", b"\n", false), b"ba\n");
    }
}
