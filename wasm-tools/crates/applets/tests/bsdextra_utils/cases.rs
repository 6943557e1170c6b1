//! The cases, per tool: first what agents typed in upstream's logs (`hexdump -c FILE`,
//! `cat FILE | hexdump -c`, `hexdump -n 16 -e '1/1 %02x' FILE` as upstream's quoting delivered
//! it), then the options and edge cases around them.
//!
//! Not compared: `-s` on a pipe (util-linux seeks standard input and fails with "Illegal
//! seek"; we read over the skipped bytes), and backslash escapes other than a lone `\n` in
//! `-e` formats (Debian's util-linux 2.38 garbles them, e.g. `"\t%02x"` fails with "bad
//! conversion character"; we decode C's escapes as the manual describes).

use super::harness::{Case, binary, case};

pub fn cases() -> Vec<Case> {
    let mut v = hexdump_cases();
    v.extend(hexdump_format_cases());
    v.extend(colrm_cases());
    v.extend(col_cases());
    v.extend(look_cases());
    v.extend(getopt_cases());
    v
}

fn getopt_cases() -> Vec<Case> {
    let argsets: &[&[&str]] = &[
        // The old form.
        &["ab:c::", "-a", "-b", "x", "-cy", "p1", "p 2", "it's"],
        &["ab", "x", "-a", "-b"],
        &["ab", "-z"],
        &[""],
        &["", "x"],
        &["ab:", "-b"],
        // Options and long options.
        &[
            "-o",
            "ab:c::",
            "-l",
            "long,req:,opt::",
            "--",
            "-a",
            "--long",
            "--req=v",
            "--opt",
            "--opt=w",
            "-c",
            "p1",
            "--",
            "-b",
        ],
        &["-o", "ab:", "--", "-x", "-b"],
        &["-q", "-o", "ab:", "--", "-x", "-b"],
        &["-Q", "-o", "ab:", "--", "-a", "-b", "x"],
        &["-Q", "-o", "ab:", "--", "-a", "-z"],
        &["-T"],
        &["-o", "a", "-T"],
        &["-o", "a", "-u", "--", "-a", "p q"],
        &["-o", "+a", "--", "x", "-a"],
        &["-o", "-a", "--", "x", "-a", "y"],
        &["-n", "myprog", "-o", "a", "--", "-z"],
        &["-n", "", "-o", "a", "--", "-z"],
        &["--name=pp", "--options=a", "--", "-a", "-q"],
        &["-o", "ab:", "--", "-b"],
        &["-l", "long", "-o", "", "--", "--lo", "--lon=x"],
        &["-l", "color,count", "-o", "", "--", "--co"],
        &[
            "-l",
            "color,count",
            "-o",
            "",
            "--",
            "--col",
            "--cou=3",
            "--count",
        ],
        &[
            "-l", "x y,z:", "-o", "a", "--", "--y", "--z=1", "--z", "2", "--z",
        ],
        &["-l", "a", "-l", "b:", "-o", "", "--", "--b", "x", "--a"],
        &["-o", "a", "--", "--nope=1", "-a"],
        &["-o", "a", "--", "-a", "--", "x", "-a"],
        &["-o", "a", "--", "-", "-a"],
        &["-o", "a", "--", "--"],
        &["-o", "a", "--", "-a=1"],
        &["-o", "c::", "-u", "--", "-c"],
        &["-o", "c::", "--", "-c", "-cx", "-c", "y"],
        &["-o", "ab", "--", "-ab", "-ba", "-aab"],
        &["-o", "ab", "--", "-a", "-c", "-b"],
        &["--", "ab:", "-a", "-bx", "y"],
        &["-q", "ab", "-z"],
        &[
            "-a", "-l", "long:", "-o", "l", "--", "-lon", "x", "-l", "-long=3",
        ],
        &["-a", "-o", "l", "-l", "lx", "--", "-lz"],
        &[
            "-a",
            "-o",
            "a",
            "-l",
            "color,count",
            "--",
            "-c",
            "-co",
            "-x",
            "-colo",
        ],
        &[
            "-a", "-l", "long", "-o", "", "--", "-long", "--long", "-lo=1",
        ],
        &["-o", "a", "-l", "color,count", "--", "--c"],
        &["--shell", "bash", "-o", "a", "--", "x"],
        &["-s", "sh", "-o", "a", "--", "x'y"],
        &[
            "-s", "csh", "-o", "a", "--", "-a", "it's", "a!b", "x\ny", "x\ty",
        ],
        &["-s", "tcsh", "-o", "b:", "--", "-b", "new\nline", "a'b!"],
        &["-s", "bogus"],
        &[],
        &["-o"],
        &["-x"],
        &["--bogus"],
        &["-q"],
        &["--unquoted", "--quiet-output", "-o", "a", "--", "-a"],
        &[
            "-o", "ab:", "--", "-a", "a b", "$x", "\"", "a\\b", "", "-b", "",
        ],
        &[
            "-o",
            "vhf:",
            "--long",
            "verbose,help,file:",
            "-n",
            "script",
            "--",
            "-v",
            "--file",
            "out.txt",
            "arg1",
            "--help",
        ],
        &["-o", "a", "-l", ":x", "--", "--x"],
        &["-o", ":ab:", "--", "-b"],
        &["-o", "+:a", "--", "-z", "x"],
        &["-o", "-:a", "--", "x", "-z"],
        &[
            "-s", "csh", "-o", "a", "--", "a b", "a\rb", "a\x0bb", "a\x0cb",
        ],
    ];
    let mut v = Vec::new();
    for a in argsets {
        v.push(case(&format!("getopt {}", a.join(" ")), "getopt", a));
    }
    v
}

fn look_cases() -> Vec<Case> {
    let mut v = Vec::new();
    let keys = [
        "", "a", "ab", "Ab", "AB", "abc", "ba", "co", "co-", "co-c", "Co-C", "coco", "d", "d'",
        "d'a", "x", "x1", "_", "_z", "zz", "zzzz", "zzzze", "b", "A", "0", "~", " ",
    ];
    let flagsets: &[&[&str]] = &[
        &[],
        &["-f"],
        &["-d"],
        &["-df"],
        &["-t", "b"],
        &["-f", "-t", "o"],
    ];
    for file in ["dict_c", "dict_f", "words", "lines", "b100", "t13"] {
        for k in keys {
            for f in flagsets {
                let mut a: Vec<&str> = f.to_vec();
                a.push(k);
                a.push(file);
                v.push(case(&format!("look {}", a.join(" ")), "look", &a));
            }
        }
    }
    let argsets: &[&[&str]] = &[
        &["app", "nofile"],
        &["app", "empty"],
        &["app", "subdir"],
        &[],
        &["a", "b", "c"],
        &["-Q", "x"],
        &["-t"],
        &["--alternative", "x", "words"],
        &["--ignore-case", "APP", "words"],
        &["--alphanum", "--terminate=-", "co-op", "words"],
        &["-t", "", "app", "words"],
        // The word lists (both sides read the same host files, present or not).
        &["abc"],
        &["-a", "abc"],
        &["-df", "abc"],
    ];
    for a in argsets {
        v.push(case(&format!("look {}", a.join(" ")), "look", a));
    }
    v
}

/// Inputs for `col`: overstrikes as man pages have them, tabs and spaces, carriage returns,
/// reverse and half line feeds (VT, ESC BEL/BS/TAB), shift in/out, escapes, control and
/// high bytes, missing final newlines, going above the first line.
const COL_INPUTS: &[&[u8]] = &[
    b"N\x08NA\x08AM\x08ME\x08E\n     ls - list directory contents\n\nS\x08SY\x08YN\x08NO\x08OP\x08PS\x08SI\x08IS\x08S\n       l\x08ls\x08s [_\x08O_\x08P_\x08T_\x08I_\x08O_\x08N]... [_\x08F_\x08I_\x08L_\x08E]...\n",
    b"_\x08u_\x08n_\x08d_\x08e_\x08r\tline\n  spaced    out\ttabs\n",
    b"a        b\na         b  c\n        x\n       x\nabcdefg  x\na  \tb\na b\n",
    b"abc",
    b"",
    b"\n\n",
    b"x\n\n\n",
    b"abc  \n\n\nx\n",
    b"ab\rcd\nab\rc\nabc\x08\x08xy\nab\x08\x08\x08c\n",
    b"x\ny\x0bz\n",
    b"\x0bz\n",
    b"\x0bz\nq\n",
    b"a\x0b\x0bz\nq\n",
    b"a\n\x0b\x0bz\nq\n",
    b"x\n\x0bz\n",
    b"a\x1b\x09b\n",
    b"a\x1b\x08b\n",
    b"a\nb\x1b\x07c\n",
    b"a\nb\x1b\x08c\n",
    b"a\x1b\x09\x1b\x09b\n",
    b"a\n\x1b\x08b\n",
    b"a\x1b9b\na\x1bb\n",
    b"a\x1b\x07\x1b\x07\x1b\x07\x1b\x07b\nc\n",
    b"a\x0eb\x0fc\n\x0exyz",
    b"a\x01b\x7fc\x00d\x0ce\n",
    b"a\xe9b\rXYZW\n",
    b"a\r",
    b"a\x08",
    b"\tx\ty\r\t\tz\n",
];

fn col_cases() -> Vec<Case> {
    let mut v = Vec::new();
    let argsets: &[&[&str]] = &[
        &[],
        &["-b"],
        &["-x"],
        &["-f"],
        &["-h"],
        &["-p"],
        &["-bx"],
        &["-bf"],
        &["-bp"],
        &["-l", "1"],
    ];
    for (n, input) in COL_INPUTS.iter().enumerate() {
        for a in argsets {
            v.push(case(&format!("col {} input {n}", a.join(" ")), "col", a).stdin(input));
        }
    }
    // Reverse feeds beyond what is buffered: the warning, and lines already printed.
    let mut long = Vec::new();
    for i in 1..=300 {
        long.extend_from_slice(format!("line {i}\n").as_bytes());
    }
    long.extend_from_slice(b"\x0b\x0b\x0bZ\n");
    for _ in 0..300 {
        long.extend_from_slice(b"\x0b");
    }
    long.extend_from_slice(b"Y\nend\n");
    v.push(case("col long reverse", "col", &[]).stdin(&long));
    v.push(case("col long reverse -l 2", "col", &["-l", "2"]).stdin(&long));
    v.push(case("col long reverse -l 0", "col", &["-l", "0"]).stdin(&long));
    v.push(case("col binary", "col", &[]).stdin(&binary(2000)));
    v.push(case("col -b binary", "col", &["-b"]).stdin(&binary(2000)));
    for a in [&["-p"][..], &["-f"], &["-x"], &["-bp"], &["-pf"]] {
        v.push(case(&format!("col {} binary", a.join(" ")), "col", a).stdin(&binary(6000)));
    }
    for a in [
        &["-l", "x"][..],
        &["-l", "-3"],
        &["-l", "99999999999"],
        &["-l", ""],
        &["-l"],
        &["-Q"],
        &["--bogus"],
    ] {
        v.push(case(&format!("col {}", a.join(" ")), "col", a).stdin(b"x\n"));
    }
    v
}

/// Text with tabs, backspaces, control bytes, long and short lines, no final newline.
const TEXT: &[u8] = b"abcdefghijklmnop\na\tbcdefghij\tklmnop\nab\x08cdefg\nshort\n\n\t\tx\n\x01\x02abc\rdef\nxy\x08\x08\x08zzzzzz\n0123456789012345678901234567890\nend";

fn colrm_cases() -> Vec<Case> {
    let mut v = Vec::new();
    let argsets: &[&[&str]] = &[
        &[],
        &["3"],
        &["3", "5"],
        &["1"],
        &["1", "1"],
        &["5", "3"],
        &["0"],
        &["0", "2"],
        &["20"],
        &["9", "9"],
        &["8", "9"],
        &["2", "12"],
        &["10", "30"],
        &["1", "2", "3"],
        &["2", "3", "nofile"],
        &["+2"],
        &["x"],
        &["3", "y"],
        &["3x"],
        &[""],
        &["0x2"],
        &["-1"],
        &["2", "-5"],
        &["99999999999999999999"],
        &["2", "99999999999999999999"],
        &["-Q"],
    ];
    for a in argsets {
        v.push(case(&format!("colrm {}", a.join(" ")), "colrm", a).stdin(TEXT));
    }
    for a in [&["2", "3"][..], &["4"][..]] {
        v.push(case(&format!("colrm empty {}", a.join(" ")), "colrm", a));
        v.push(
            case(&format!("colrm high bytes {}", a.join(" ")), "colrm", a)
                .stdin(b"abcdef\nab\xe9cdef\nxyz\n"),
        );
        v.push(case(&format!("colrm binary {}", a.join(" ")), "colrm", a).stdin(&binary(300)));
    }
    v
}

const FILES: &[&str] = &[
    "empty", "b1", "b15", "b16", "b17", "b31", "b32", "b33", "b100", "t13", "z40", "z64", "a17",
    "rep", "all",
];

fn hexdump_cases() -> Vec<Case> {
    // From upstream's logs.
    let mut v = vec![
        case("hexdump log -c file", "hexdump", &["-c", "t13"]),
        case("hexdump log -c stdin", "hexdump", &["-c"]).stdin(b"Hello world!\n"),
        case(
            "hexdump log bad -e",
            "hexdump",
            &["-n", "16", "-e", "1/1 %02x", "t13"],
        ),
        case(
            "hexdump log -e",
            "hexdump",
            &["-n", "16", "-e", "1/1 \"%02x\"", "t13"],
        ),
    ];
    for opt in ["", "-C", "-c", "-b", "-d", "-o", "-x", "-v", "-Cv", "-cv"] {
        for f in FILES {
            let mut args = Vec::new();
            if !opt.is_empty() {
                args.push(opt);
            }
            args.push(f);
            v.push(case(&format!("hexdump {opt} {f}"), "hexdump", &args));
        }
    }
    for f in FILES {
        v.push(case(&format!("hd {f}"), "hd", &[f]));
    }
    let argsets: &[&[&str]] = &[
        &["-n", "5", "b33"],
        &["-n", "16", "-C", "b33"],
        &["-n", "0", "b33"],
        &["-n", "0x11", "-C", "b33"],
        &["-n", "010", "-C", "b33"],
        &["-n", "1K", "-C", "b100"],
        &["-n", "1KB", "-C", "b100"],
        &["-n", "-1", "b33"],
        &["-n", "", "b33"],
        &["-n", "3b", "b33"],
        &["-n", "99999999999999999999999", "b33"],
        &["-n"],
        &["--length=7", "-C", "b33"],
        &["-s", "5", "-C", "b33"],
        &["-s", "16", "-C", "b33"],
        &["-s", "33", "-C", "b33"],
        &["-s", "100", "-C", "b33"],
        &["-s", "1x", "b33"],
        &["-s", "3", "-n", "4", "t13", "t13"],
        &["-s", "13", "t13", "t13"],
        &["-s", "14", "-C", "t13", "t13"],
        &["-s", "20", "-n", "20", "-c", "b17", "b17", "b17"],
        &["t13", "t13"],
        &["-C", "b15", "b17", "empty", "b1"],
        &["-C", "z40", "z40"],
        &["-C", "-c", "t13"],
        &["-x", "-b", "t13"],
        &["-c", "-C", "rep"],
        &["-C", "rep"],
        &["rep"],
        &["-v", "rep"],
        &["nofile"],
        &["nofile", "nofile2"],
        &["nofile", "t13"],
        &["t13", "nofile"],
        &["subdir"],
        &["subdir", "t13"],
        &["-Q", "t13"],
        &["--bogus", "t13"],
        &["-C", "--", "t13"],
        &["-L", "-C", "t13"],
        &["--color=never", "-C", "t13"],
        &["--canonical", "t13"],
        &["--one-byte-char", "t13"],
        &["--two-bytes-hex", "t13"],
        &["-f", "nofile", "t13"],
    ];
    for a in argsets {
        v.push(case(&format!("hexdump {}", a.join(" ")), "hexdump", a));
    }
    for n in [0usize, 1, 15, 16, 17, 33, 4096, 5000] {
        let data = binary(n);
        v.push(case(&format!("hexdump stdin {n}"), "hexdump", &[]).stdin(&data));
        v.push(case(&format!("hexdump -C stdin {n}"), "hexdump", &["-C"]).stdin(&data));
        v.push(case(&format!("hd stdin {n}"), "hd", &[]).stdin(&data));
    }
    v.push(case("hexdump stdin dash", "hexdump", &["-C", "-"]).stdin(b"abc"));
    v
}

fn hexdump_format_cases() -> Vec<Case> {
    let formats: &[&[&str]] = &[
        &["-e", r#"16/1 "%02x " "\n""#],
        &["-e", r#"16/1 "%02x\n""#],
        &["-e", r#"2/1 "%02x  " "\n""#],
        &["-e", r#""%07.7_ax " 8/2 "%04x " "\n""#],
        &["-e", r#""%_ad: " 4/8 "%x" "\n""#],
        &["-e", r#"1/8 "%x" "\n""#],
        &["-e", r#""%5.3s|" "\n""#],
        &["-e", r#"4/1 "%-4_c|" "\n""#],
        &["-e", r#"4/1 "%04_c|" "\n""#],
        &["-e", r#""%_ad %_ao %_ax|" 4/1 " %#o" "\n""#],
        &["-e", r#"16/1 "%_u " "\n""#],
        &["-e", r#"16/1 "%_p""#, "-e", r#""\n""#],
        &["-e", r#"4/2 "%6d" "\n""#],
        &["-e", r#"4/2 "%+i" "\n""#],
        &["-e", r#"4/4 "% d" "\n""#],
        &["-e", r#"4/1 "%#x %#X %X" "\n""#],
        &["-e", r#"1/4 "%e " 1/4 "%g " 1/8 "%f" "\n""#],
        &["-e", r#"1/1 "%c" "\n""#],
        &["-e", r#""%_a" 1/1 "%02x""#],
        &["-e", r#""%07_Ad\n""#, "-e", r#"8/1 "%3u" "\n""#],
        &["-e", r#""%_Ao\n""#, "-e", r#"16 "%x" "\n""#],
        &["-e", r#"1/1"%02x""#],
        &["-e", r#"4 "%yab""#],
        &["-e", r#"4/3 "%x""#],
        &["-e", r#""%s""#],
        &["-e", r#"1/2 "%+d %i""#],
        &["-e", r#"2 "%_z""#],
        &["-e", r#"1/1 "%02x"#],
        &["-e", r#""%_Ad\n""#],
        &["-v", "-e", r#"8/1 "%02x" "\n""#],
        &["-e", r#"8/1 "%02x" "\n""#],
        &["-e", r#"/1 "%3.2s:" 4/"%#o ""#],
        &["-e", r#"4/1 "%s|" "\n""#],
        &["-e", r#"/4 "%+d" /4 "%g" 2/4 "%_Ad:" "\n""#],
        &["-e", r#"/1 "%_ad:" /4 "%_Ad " 3/"%3.2s  ""#],
        &["-e", r#"2/4 "%3_c""#],
        &["-e", r#"/2 "%_u""#],
    ];
    let mut v = Vec::new();
    for f in formats {
        for file in ["t13", "b33", "z40", "rep", "all", "empty"] {
            let mut args: Vec<&str> = f.to_vec();
            args.push(file);
            v.push(case(
                &format!("hexdump {} {file}", f.join(" ")),
                "hexdump",
                &args,
            ));
        }
    }
    v
}
