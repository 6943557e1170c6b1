//! `tac`: uutils' tac spools standard input to a temporary file through `std::env::temp_dir`,
//! which panics on WASI, so this small one keeps everything in memory (failing as GNU does
//! where GNU could not spool). Supports `-s SEP`,
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
        if f == "-"
            && let Err((dir, e)) = spool_dir_usable()
        {
            eprintln!(
                "tac: failed to create temporary file in '{dir}': {}",
                applets::strerror(&e)
            );
            status = 1;
            continue;
        }
        let mut data = Vec::new();
        let r = if f == "-" {
            std::io::stdin().read_to_end(&mut data).map(|_| ())
        } else {
            std::fs::read(&f).map(|d| data = d)
        };
        if let Err(e) = r {
            eprintln!(
                "tac: failed to open '{f}' for reading: {}",
                applets::strerror(&e)
            );
            status = 1;
            continue;
        }
        let _ = out.write_all(&reverse_records(&data, &sep, before));
    }
    status
}

/// GNU tac copies input it cannot seek in (a pipe) to a file in `$TMPDIR` or `/tmp` first,
/// and fails when it cannot create one there: upstream's trees had no `/tmp` (`git clean`
/// removed it), so `cmd | tac` failed there. This tac reads into memory, but checks that GNU
/// could have spooled. Standard input that is a regular file needs no spool.
fn spool_dir_usable() -> Result<(), (String, std::io::Error)> {
    if hostcalls::fstat(hostcalls::STDIN).is_ok_and(|st| st.is_file()) {
        return Ok(());
    }
    let dir = std::env::var("TMPDIR")
        .ok()
        .filter(|d| !d.is_empty())
        .unwrap_or_else(|| "/tmp".into());
    // WASI has no process id: the clock's nanoseconds make the name.
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let probe = format!("{}/tac{:09}", dir.trim_end_matches('/'), nanos);
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
    {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            Ok(())
        }
        Err(e) => Err((dir, e)),
    }
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
