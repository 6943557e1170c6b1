//! The corpus: every awk program of the InterCode bash golds (as written and as upstream's
//! quoting delivered them), then programs covering the language, mawk's quirks and errors.

use super::Case;

pub const FILES: &[(&str, &str)] = &[
    (
        "emp.data",
        "Beth\t4.00\t0\nDan\t3.75\t0\nKathy\t4.00\t10\nMark\t5.00\t20\nMary\t5.50\t22\nSusie\t4.25\t18\n",
    ),
    (
        "md5.txt",
        "f32a3a97638afeb2ee2a15cfe335ab72  /testbed/Hello.java\n\
         f32a3a97638afeb2ee2a15cfe335ab72  /testbed/Hello1.java\n\
         0c2a9c22cd1e32e4a7c7ef5d6d4c7b35  /testbed/NewClass.java\n",
    ),
    (
        "wc.txt",
        "  5 /testbed/textfile7.txt\n  3 /testbed/dir1/textfile1.txt\n 12 /testbed/dir2/b.txt\n 2500 /testbed/big.txt\n 2520 total\n",
    ),
    (
        "findls.txt",
        "   131075      4 drwxr-xr-x   1 root     root         4096 May 26 09:43 /system\n\
         \x20  131080      4 drwxr-xr-x   2 root     root         4096 May 26 09:43 /system/folder1\n\
         \x20  131090      4 drwxr-xr-x   3 root     root         4096 May 26 09:43 /system/folder3/temp\n",
    ),
    (
        "env.txt",
        "HOSTNAME=abc123\nHOME=/root\nPWD=/\nSHLVL=1\nPATH=/usr/bin:/bin\n_=/usr/bin/env\nTERM=xterm\n",
    ),
    (
        "df.txt",
        "Filesystem     1K-blocks     Used Available Use% Mounted on\noverlay         61255492 16734416  41379060  29% /\n",
    ),
    (
        "grepc.txt",
        "/testbed/dir1/info.php:1\n/testbed/hello.php:1\n",
    ),
    (
        "text.txt",
        "The quick brown fox\n\n   \njumps over the lazy dog.\n\tTabbed line here\nlast line\n",
    ),
    (
        "para.txt",
        "\n\nname: Alice\nage: 30\n\n\n\nname: Bob\nage: 25\ncity: Paris\n\nname: Carol\n",
    ),
    (
        "nums.txt",
        "10\n9\n-3.5\n1e3\n0x10\n0x1A\n.5\n007\n 42 \nabc\n\n2147483648\n",
    ),
    (
        "csv.txt",
        "id,name,score\n1,ann,90\n2,bob,85\n3,cy,\n4,\"d,e\",70\n",
    ),
    (
        "passwd.txt",
        "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\nalice:x:1000:1000:Alice,,,:/home/alice:/bin/bash\nbob:x:1001:1001::/home/bob:/bin/sh\n",
    ),
    ("a.txt", "hello world\n\nfoo  bar\n   \nbaz\n"),
    ("b.txt", "1 one\n2 two\n3 three\n"),
    (
        "prog.awk",
        "# a program file\nfunction twice(x) { return 2 * x }\n{ print twice($1) }\n",
    ),
    (
        "long.txt",
        "first line here\nsecond line\n\nthe final line\n\n",
    ),
    (
        "hosts.txt",
        "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost\n172.17.0.3\tabc123\n",
    ),
    ("files.txt", "a b c\nd e\n"),
    (
        "ls.txt",
        "total 40\n-rw-r--r-- 1 root root   82 May 26 09:43 FooBar.html\n-rw-r--r-- 1 root root  103 May 26 09:43 Hello.java\n-rw-r--r-- 1 root root  103 May 26 09:43 Hello1.java\ndrwxr-xr-x 3 root root 4096 May 26 09:43 dir1\n-rwxr-xr-x 1 root root   32 May 26 09:43 shellscript1.sh\n-rw-r--r-- 1 root root    0 May 31  2023 recent.txt\n-rw-r--r-- 1 bob  staff  12 Jun  1 10:00 notes.txt\n",
    ),
    ("binary.dat", "ab\0cd\nef\u{7f}gh\n\u{e9}t\u{e9}\n"),
];

fn c(name: &'static str, args: &[&'static str], stdin: &'static str) -> Case {
    Case {
        name,
        args: args.to_vec(),
        stdin,
        sorted: false,
        output_file: None,
    }
}

fn writes(mut c: Case, f: &'static str) -> Case {
    c.output_file = Some(f);
    c
}

pub fn cases() -> Vec<Case> {
    let mut v = vec![
        // ---- InterCode golds (fs_1..fs_4), on inputs shaped like the real ones ----
        c("gold/md5-print1", &["{print $1}", "md5.txt"], ""),
        c("gold/wc-mean", &["END { print $1/(NR-1) }", "wc.txt"], ""),
        c(
            "gold/wc-lt2000",
            &["$1 < 2000 {v += $1; c++} END {print v/c}", "wc.txt"],
            "",
        ),
        c(
            "gold/grepc-sum",
            &["{ cnt += $0 } END { print cnt }", "grepc.txt"],
            "",
        ),
        c(
            "gold/grepc-sum-nums",
            &["{ cnt += $0 } END { print cnt }"],
            "3\n4\n",
        ),
        c(
            "gold/print0",
            &["{print $0}"],
            "/testbed/dir1/info.php\n/testbed/hello.php\n",
        ),
        c(
            "gold/print-2-1",
            &["{print $2 $1}"],
            "      1 127.0.0.0\n      2 link-local\n",
        ),
        c(
            "gold/alnum-count",
            &["/[a-zA-Z0-9]/ {i++} END{print i}"],
            "<?php\n\n?>\nx\n",
        ),
        c(
            "gold/alnum-none",
            &["/[a-zA-Z0-9]/ {i++} END{print i}"],
            "\n\n",
        ),
        c(
            "gold/F-slash-NF",
            &["-F/", "{print $NF}"],
            "/testbed/a/file.txt\n/testbed/File.TXT\n/x/\n",
        ),
        c(
            "gold/split-colon",
            &["{split($1, path, \":\"); print path[1]}"],
            "dir1/a.txt:Hello there\nb.txt:Hello\n",
        ),
        c(
            "gold/split-colon-quoted",
            &["{split($1, path, :); print path[1]}"],
            "a:b\n",
        ),
        c("gold/print1-spaces", &["{ print $1 }", "wc.txt"], ""),
        c("gold/braces-print4", &["{print $4}", "df.txt"], ""),
        c("gold/findls", &["{print $4 - 2, $NF}", "findls.txt"], ""),
        c(
            "gold/tac-last-word",
            &["NF{print $NF; exit}"],
            "\n\nthe final line\nsecond line\n",
        ),
        c("gold/print-2-comma-1", &["{print $2,$1}", "md5.txt"], ""),
        c("gold/tolower", &["{print tolower($0)}"], "TXT\nPy\nJaVa\n"),
        c(
            "gold/nonblank",
            &["!/^[[:space:]]*$/{++x} END{print x}", "a.txt"],
            "",
        ),
        c("gold/df-print5", &["{print $5}", "df.txt"], ""),
        c(
            "gold/env-H",
            &["-F=", "{if($1 ~ /H/) print $1}", "env.txt"],
            "",
        ),
        c(
            "gold/ping-print4",
            &["{print $4}"],
            "64 bytes from 192.168.11.1: icmp_seq=1\n",
        ),
        c(
            "gold/who-F-space",
            &["-F ", "{print $1}"],
            "root pts/0 2023\nbob tty1\n",
        ),
        c(
            "gold/w-NF",
            &["{print $NF}"],
            " 10:00:00 up 1 day,  2 users,  load average: 0.01, 0.05, 0.10\n",
        ),
        c("gold/hosts", &["{print $1}", "hosts.txt"], ""),
        c(
            "gold/mount",
            &["{print $3}"],
            "//srv/share on /mnt/smb type smbfs (rw)\n",
        ),
        // ---- fields, NF, $0 ----
        c(
            "fields/nf-loop",
            &[
                "{ for (i = NF; i > 0; i--) printf \"%s%s\", $i, (i > 1 ? OFS : ORS) }",
                "emp.data",
            ],
            "",
        ),
        c(
            "fields/assign-rebuild",
            &["{ $2 = $2 * 2; print; print NF }", "emp.data"],
            "",
        ),
        c(
            "fields/assign-beyond",
            &["{ $6 = \"X\"; print; print NF }"],
            "a b c\n",
        ),
        c("fields/nf-shrink", &["{ NF = 2; print }"], "a b c d\n"),
        c(
            "fields/nf-grow",
            &["{ NF = 5; print; $1 = $1; print }"],
            "a b c\n",
        ),
        c(
            "fields/dollar0-assign",
            &["{ $0 = \"x y z\"; print NF, $2 }"],
            "a\n",
        ),
        c(
            "fields/one-equals-one",
            &["{ $1 = $1; print \"[\" $0 \"]\" }"],
            "  a   b  \n",
        ),
        c(
            "fields/ofs",
            &["-v", "OFS=-", "{ $1 = $1; print; print $1, $2 }"],
            "a b c\n",
        ),
        c("fields/tab-fs", &["-F\\t", "{ print $2 }"], "a\tb c\td\n"),
        c("fields/F-t-is-t", &["-Ft", "{ print $2 }"], "atbtc\n"),
        c("fields/F-dot", &["-F.", "{ print $2, NF }"], "a.b.c\n"),
        c("fields/F-pipe", &["-F|", "{ print $3 }"], "a|b|c\n"),
        c("fields/F-regex", &["-F[:;]+", "{ print $3 }"], "a:;b;c\n"),
        c("fields/F-empty", &["-F", "", "{ print NF, $2 }"], "abc\n"),
        c(
            "fields/F-bracket-space",
            &["-F[ ]", "{ print NF }"],
            "a  b\n",
        ),
        c(
            "fields/fs-change-next-record",
            &["{ FS = \":\"; print $1 }"],
            "a:b c\nd:e f\n",
        ),
        c(
            "fields/fs-begin",
            &["BEGIN { FS = \",\" } { print $2 }", "csv.txt"],
            "",
        ),
        c("fields/negative-index", &["{ print $(-1) }"], "a\n"),
        c(
            "fields/dollar-expr",
            &["{ i = 1; print $i++, i, $NF, $(NF-1) }"],
            "a b c\n",
        ),
        c(
            "fields/nf-in-end",
            &["END { print NF, $0, $1 }"],
            "a b\nc d e\n",
        ),
        c(
            "fields/passwd",
            &["-F:", "$3 >= 1000 { print $1, $6 }", "passwd.txt"],
            "",
        ),
        // ---- patterns ----
        c(
            "pat/regex-and-not",
            &["/a/ && !/x/"],
            "abc\naxe\nbob\nraft\n",
        ),
        c("pat/range", &["/Dan/,/Mark/", "emp.data"], ""),
        c(
            "pat/range-same-line",
            &["/Kathy/,/Kathy/ { print NR }", "emp.data"],
            "",
        ),
        c(
            "pat/range-nr",
            &["NR==2,NR==4 { print $1 }", "emp.data"],
            "",
        ),
        c("pat/expr-only", &["$3 > 15", "emp.data"], ""),
        c(
            "pat/begin-end-multi",
            &[
                "BEGIN { printf \"a\" } BEGIN { print \"b\" } END { print NR } END { print \"z\" }",
                "emp.data",
            ],
            "",
        ),
        c(
            "pat/nr-fnr",
            &["{ print FILENAME, NR, FNR }", "b.txt", "a.txt"],
            "",
        ),
        c(
            "pat/fnr-eq-nr",
            &[
                "FNR == NR { a[$1] = $2; next } $1 in a { print $0, a[$1] }",
                "b.txt",
                "b.txt",
            ],
            "",
        ),
        c(
            "pat/newline-before-brace",
            &["/o/\n{ print \"x\" }"],
            "foo\nbar\n",
        ),
        // ---- comparisons and conversions ----
        c(
            "cmp/strnum-fields",
            &["{ print ($1 < 10), ($1 == $1 + 0) }", "nums.txt"],
            "",
        ),
        c(
            "cmp/string-consts",
            &["BEGIN { print (\"10\" < \"9\"), (10 < 9), (\"abc\" < \"abd\"), (\"\" < \"a\") }"],
            "",
        ),
        c(
            "cmp/uninit",
            &["BEGIN { print (x == 0), (x == \"\"), length(x), x + 0 }"],
            "",
        ),
        c(
            "cmp/split-strnum",
            &["BEGIN { split(\"10 9\", a); print (a[1] < a[2]) }"],
            "",
        ),
        c(
            "cmp/substr-string",
            &["BEGIN { print (substr(\"10\", 1) < 9) }"],
            "",
        ),
        c(
            "cmp/truthiness",
            &["{ for (i = 1; i <= NF; i++) printf \"%s \", ($i ? \"T\" : \"F\"); print \"\" }"],
            "0.0 0 -0 +0 0x0 . a 0x10 1e1\n",
        ),
        c(
            "cmp/nan-inf",
            &["BEGIN { x = log(-1); print x, -log(0), log(0), (x == 1) }"],
            "",
        ),
        c(
            "conv/numbers-out",
            &[
                "BEGIN { print 1e20, 2^53, 1e6, 1e17, 123456789012, 0.1+0.2, -0, 1/3, 100000*100000, 2147483647, 2147483648, -2147483647, -2147483648 }",
            ],
            "",
        ),
        c(
            "conv/convfmt",
            &[
                "BEGIN { CONVFMT = \"%.2g\"; a = 3.14159; b = a \"\"; print b; OFMT = \"%.3f\"; print a, a \"\"; print 17 \"\" }",
            ],
            "",
        ),
        c(
            "conv/convfmt-subscript",
            &[
                "BEGIN { CONVFMT = \"%.2g\"; x[3.14159] = 1; for (k in x) print k; y[2^40]; for (k in y) print k }",
            ],
            "",
        ),
        c(
            "conv/strtod",
            &[
                "BEGIN { print \"0x1A\" + 0, \".5\" + 0, \"+5\" + 0, \"-.5e1x\" + 0, \" \\t 7\" + 0, \"1e\" + 0, \"e5\" + 0 }",
            ],
            "",
        ),
        c(
            "conv/source-literals",
            &["BEGIN { print 010, 1e3, .5, 1.5e-3, 100/3, 1e100, 0x10 }"],
            "",
        ),
        c(
            "conv/int",
            &["BEGIN { print int(3.9), int(-3.9), int(\"4.5abc\"), int(2^31) }"],
            "",
        ),
        // ---- arithmetic ----
        c(
            "arith/ops",
            &["BEGIN { print 7 % 3, -7 % 3, 7.5 % 2, 2 ^ 10, 2 ^ 3 ^ 2, -2 ^ 2, 2 ^ -1, 1 - -1 }"],
            "",
        ),
        c("arith/div0", &["BEGIN { print 1/0, -1/0; print 1%0 }"], ""),
        c(
            "arith/incdec",
            &["BEGIN { i = 5; print i++ + ++i, i-- - --i, i; x += x -= 1; print x }"],
            "",
        ),
        c(
            "arith/assign-ops",
            &["BEGIN { x = 10; x += 5; x -= 3; x *= 2; x /= 4; x %= 4; x ^= 3; print x }"],
            "",
        ),
        c(
            "arith/chain-assign",
            &["BEGIN { a = b = c = 4; print a b c }"],
            "",
        ),
        c(
            "arith/unary-concat",
            &[
                "BEGIN { print 1 - 1 \" \" 2, 2 \" \" -1, 1 \" \" 2 < 3, !2 == 0, -\"3x\", +\"4\", !\"\", !\"a\", - - 2 }",
            ],
            "",
        ),
        c(
            "arith/math",
            &[
                "BEGIN { printf \"%.4f %.4f %.4f %.4f %.4f %.4f\\n\", sin(1), cos(1), atan2(1, 2), exp(1), log(10), sqrt(2) }",
            ],
            "",
        ),
        // ---- strings ----
        c(
            "str/length",
            &["{ print length, length($0), length($1), length() }"],
            "hello world\n",
        ),
        c(
            "str/length-noparen-concat",
            &["{ print length $0 }"],
            "abc\n",
        ),
        c(
            "str/length-array",
            &["BEGIN { a[1]; a[2]; a[\"x\"]; print length(a) }"],
            "",
        ),
        c(
            "str/length-bytes",
            &["BEGIN { print length(\"h\u{e9}llo\"), toupper(\"h\u{e9}llo\") }"],
            "",
        ),
        c(
            "str/substr",
            &[
                "BEGIN { s = \"hello\"; print substr(s, 0, 2) \"|\" substr(s, -1, 3) \"|\" substr(s, 1.5, 2) \"|\" substr(s, 2) \"|\" substr(s, 0) \"|\" substr(s, 2, -1) \"|\" substr(s, 10) \"|\" substr(s, 2.5, 1.5) \"|\" substr(s, -2, 4) }",
            ],
            "",
        ),
        c(
            "str/index",
            &[
                "BEGIN { print index(\"abc\", \"\"), index(\"\", \"a\"), index(\"abcabc\", \"ca\"), index(12345, 34) }",
            ],
            "",
        ),
        c(
            "str/match",
            &[
                "{ if (match($0, /[0-9]+/)) print RSTART, RLENGTH, substr($0, RSTART, RLENGTH); else print RSTART, RLENGTH }",
            ],
            "abc123def\nnone\n",
        ),
        c(
            "str/match-longest",
            &[
                "BEGIN { match(\"abcd\", /ab|abcd/); print RSTART, RLENGTH; match(\"abcd\", /(a|ab)(c|bcd)/); print RSTART, RLENGTH }",
            ],
            "",
        ),
        c(
            "str/sub-gsub",
            &["{ n = gsub(/o/, \"0\"); sub(/l+/, \"L\"); print n, $0 }"],
            "hello world foo\n",
        ),
        c(
            "str/gsub-amp",
            &[
                "BEGIN { t = \"hello\"; gsub(/l/, \"[&|\\\\&]\", t); print t; u = \"aaa\"; sub(\"a\", \"\\\\\\\\&\", u); print u }",
            ],
            "",
        ),
        c(
            "str/gsub-empty-match",
            &[
                "BEGIN { s = \"abc\"; n = gsub(/x*/, \"-\", s); print n, s; t = \"abc\"; gsub(/b*/, \"-\", t); print t }",
            ],
            "",
        ),
        c(
            "str/gsub-field",
            &["{ gsub(/a/, \"A\", $2); print; print NF }"],
            "banana cabana x\n",
        ),
        c(
            "str/gsub-nomatch-keeps-record",
            &["{ gsub(/zzz/, \"y\", $2); print }"],
            "a   b   c\n",
        ),
        c(
            "str/gsub-anchor",
            &["{ gsub(/^a/, \"X\"); print }"],
            "aaa\n",
        ),
        c(
            "str/gsub-dynamic",
            &["{ gsub(\"\\\\.\", \"!\"); print }"],
            "a.b.c\n",
        ),
        c(
            "str/sub-dot-string",
            &["{ sub(\".\", \"X\"); print }"],
            "abc\n",
        ),
        c(
            "str/split-default",
            &["{ n = split($0, w); print n, w[1], w[n] }"],
            "  one two   three  \n",
        ),
        c(
            "str/split-char-regex",
            &[
                "BEGIN { n = split(\"a:b:c\", arr, /:/); print n, arr[3]; n = split(\"a1b22c\", b, /[0-9]+/); print n, b[2], b[3]; n = split(\"\", e); print n, length(e) }",
            ],
            "",
        ),
        c(
            "str/split-single-char",
            &[
                "BEGIN { n = split(\"a.b.c\", x, \".\"); print n, x[2]; n = split(\"abc\", y, \"\"); print n, y[3] }",
            ],
            "",
        ),
        c(
            "str/toupper-tolower",
            &["{ print toupper($1), tolower($2) }"],
            "MiXeD CaSe\n",
        ),
        c(
            "str/concat-number",
            &["BEGIN { x = 0.1; y = x * 3; print y \"\", (y \"\" == \"0.3\") }"],
            "",
        ),
        c(
            "str/escapes",
            &["BEGIN { print \"a\\.b\", \"a\\qb\", \"\\x41\\101\\/\", \"t\\tq\\\"\" }"],
            "",
        ),
        // ---- printf ----
        c(
            "printf/conversions",
            &[
                "BEGIN { printf \"%d %d %i %c %c %5.2f|%-5s|%5s|%x %X %o %u %e %g %%\\n\", 3.9, -3.9, \"12abc\", 65, \"hello\", 3.14159, \"ab\", \"cd\", 255, 255, 8, -1, 12345.678, 0.0001234 }",
            ],
            "",
        ),
        c(
            "printf/flags",
            &[
                "BEGIN { printf \"[%05s][%-5c][%5c][%.1s][%05.1f][%-08.3e][%#x][%#o][%+.3g][% g][%G][%E]\\n\", \"ab\", \"x\", 66, \"xyz\", 3.14159, 1234.5, 255, 8, 0.0001234, 5, 1e-10, 12 }",
            ],
            "",
        ),
        c(
            "printf/star",
            &["BEGIN { printf \"%*d|%-*d|%.*f\\n\", 5, 42, 4, 7, 2, 3.14159 }"],
            "",
        ),
        c(
            "printf/clamps",
            &[
                "BEGIN { printf \"%d %i %x %u %d %d\\n\", 3000000000, -3000000000, 3000000000, 4294967296, 2^53, -1e30 }",
            ],
            "",
        ),
        c(
            "printf/parens-redirect-free",
            &["BEGIN { printf(\"%s-%s\\n\", \"a\", \"b\") }"],
            "",
        ),
        c(
            "printf/s-number-convfmt",
            &["BEGIN { CONVFMT = \"%.2g\"; printf \"%s %d\\n\", 3.14159, \"1e3\" }"],
            "",
        ),
        c(
            "printf/too-few-args",
            &["BEGIN { printf \"%s %s\\n\", \"a\" }"],
            "",
        ),
        c(
            "printf/bad-conversion",
            &["BEGIN { printf \"%z\\n\", 1 }"],
            "",
        ),
        c(
            "printf/table",
            &["{ printf \"%-8s %6.2f %4d\\n\", $1, $2, $3 }", "emp.data"],
            "",
        ),
        c(
            "printf/g-values",
            &[
                "BEGIN { printf \"%g %g %g %g %.3g %.10g\\n\", 100000, 1000000, 0.0001, 0.00001, 1234567, 1/3 }",
            ],
            "",
        ),
        c(
            "sprintf/basic",
            &["BEGIN { s = sprintf(\"%03d-%s\", 7, \"x\"); print s, length(s) }"],
            "",
        ),
        // ---- arrays ----
        c(
            "arr/in-delete",
            &[
                "BEGIN { x[\"a\"]; if (\"a\" in x) print \"in\"; if (!(\"b\" in x)) print \"not in\"; print (\"b\" in x); delete x[\"a\"]; print length(x) }",
            ],
            "",
        ),
        c(
            "arr/multi-subscript",
            &[
                "BEGIN { a[1, 2] = 3; for (k in a) { split(k, p, SUBSEP); print p[1], p[2] }; if ((1, 2) in a) print \"yes\" }",
            ],
            "",
        ),
        c(
            "arr/delete-all",
            &["BEGIN { a[1]; a[2]; delete a; print length(a) }"],
            "",
        ),
        c(
            "arr/word-count",
            &[
                "{ for (i = 1; i <= NF; i++) n[$i]++ } END { for (w in n) print w, n[w] }",
                "text.txt",
            ],
            "",
        ),
        c(
            "arr/reference-creates",
            &["BEGIN { if (a[\"x\"] == \"\") print length(a) }"],
            "",
        ),
        c("arr/uniq", &["!seen[$0]++"], "a\nb\na\nc\nb\n"),
        c(
            "arr/join-files",
            &[
                "NR == FNR { name[$1] = $2; next } { print $1, name[$1] }",
                "b.txt",
                "b.txt",
            ],
            "",
        ),
        c(
            "arr/numeric-keys",
            &["BEGIN { a[1] = \"x\"; print a[\"1\"], a[1.0], (1 in a), (\"01\" in a) }"],
            "",
        ),
        // ---- control flow ----
        c(
            "ctl/if-else-semicolon",
            &[
                "{ if ($1 > 4) print \"big\"; else print \"small\" }",
                "emp.data",
            ],
            "",
        ),
        c(
            "ctl/while-do",
            &[
                "BEGIN { i = 0; while (i < 3) { i++; if (i == 2) continue; print i }; do { print \"do\", i-- } while (i > 1) }",
            ],
            "",
        ),
        c(
            "ctl/for-break",
            &["BEGIN { for (i = 0; ; i++) { if (i > 3) break; printf \"%d \", i }; print \"\" }"],
            "",
        ),
        c("ctl/next", &["/Dan/ { next } { print $1 }", "emp.data"], ""),
        c(
            "ctl/exit-code",
            &[
                "{ print; if (NR == 2) exit 3 } END { print \"end\" }",
                "emp.data",
            ],
            "",
        ),
        c(
            "ctl/exit-in-begin",
            &["BEGIN { exit 4 } END { print \"end ran\" }"],
            "input\n",
        ),
        c(
            "ctl/exit-in-end",
            &["END { print \"a\"; exit 5; print \"b\" }"],
            "x\n",
        ),
        c(
            "ctl/exit-keeps-code",
            &["BEGIN { exit 2 } END { exit }"],
            "",
        ),
        c(
            "ctl/nextfile",
            &[
                "FNR == 2 { nextfile } { print FILENAME, $0 }",
                "b.txt",
                "a.txt",
            ],
            "",
        ),
        c(
            "ctl/ternary",
            &[
                "{ print ($3 > 10 ? \"high\" : $3 > 0 ? \"mid\" : \"zero\") }",
                "emp.data",
            ],
            "",
        ),
        c(
            "ctl/semicolons-newlines",
            &[
                "BEGIN {\n  x = 1 ;\n  if (x)\n    print \"one\"\n  else\n    print \"two\"\n  for (i = 0;\n       i < 2;\n       i++)\n    print i\n}\n",
            ],
            "",
        ),
        c(
            "ctl/comments-continuation",
            &["BEGIN { x = 1 + \\\n 2 # comment }\n print x }"],
            "",
        ),
        // ---- functions ----
        c(
            "fn/recursion",
            &[
                "function fact(n) { return n <= 1 ? 1 : n * fact(n - 1) } BEGIN { print fact(10), fact(20) }",
            ],
            "",
        ),
        c(
            "fn/array-by-ref",
            &[
                "function fill(a, n,   i) { for (i = 1; i <= n; i++) a[i] = i * i } BEGIN { fill(sq, 4); print sq[3], length(sq) }",
            ],
            "",
        ),
        c(
            "fn/local-array",
            &["function f(x,   loc) { loc[1] = x; return loc[1] * 2 } BEGIN { print f(4), f(5) }"],
            "",
        ),
        c(
            "fn/scalar-by-value",
            &["function g(v) { v = 99; return v } BEGIN { v = 1; print g(v), v }"],
            "",
        ),
        c(
            "fn/space-call",
            &["function f(x){return x*2} BEGIN{print f (3)}"],
            "",
        ),
        c(
            "fn/fib",
            &["function fib(n) { return n < 2 ? n : fib(n-1) + fib(n-2) } BEGIN { print fib(20) }"],
            "",
        ),
        c(
            "fn/defined-after",
            &["BEGIN { print h(2) } function h(y) { return y + 1 }"],
            "",
        ),
        c("fn/program-file", &["-f", "prog.awk", "b.txt"], ""),
        c("fn/program-file-is-a-directory", &["-f", ".", "b.txt"], ""),
        c(
            "fn/uninit-return",
            &["function r() { return } BEGIN { x = r(); print length(x), x + 0 }"],
            "",
        ),
        // ---- getline, I/O ----
        c(
            "io/getline-file",
            &[
                "BEGIN { while ((getline line < \"b.txt\") > 0) n++; print n, NR, line; print (getline x < \"/nonexistent\") }",
            ],
            "",
        ),
        c(
            "io/getline-plain",
            &["NR == 1 { getline; print \"got\", $0, NR } END { print NR }"],
            "a\nb\nc\n",
        ),
        c(
            "io/getline-var",
            &["{ getline nxt; print $0 \"+\" nxt, NR }"],
            "1\n2\n3\n4\n",
        ),
        c(
            "io/getline-eof",
            &["{ r = getline; print r, $0 }"],
            "only\n",
        ),
        c(
            "io/cmd-getline",
            &[
                "BEGIN { \"echo hi there\" | getline; print $2, NR; \"echo a; echo b\" | getline x; print x; close(\"echo a; echo b\"); \"echo a; echo b\" | getline x; print x }",
            ],
            "",
        ),
        c(
            "io/cmd-getline-loop",
            &[
                "BEGIN { while ((\"printf '3\\\\n1\\\\n2\\\\n'\" | getline v) > 0) s += v; print s }",
            ],
            "",
        ),
        c(
            "io/system",
            &["BEGIN { r = system(\"exit 3\"); print r; system(\"\") }"],
            "",
        ),
        c(
            "io/system-order",
            &["BEGIN { print \"a\"; system(\"echo sys\"); print \"c\" }"],
            "",
        ),
        c(
            "io/pipe-out",
            &["BEGIN { print \"b\" | \"cat\"; print \"a\" }"],
            "",
        ),
        c(
            "io/pipe-close-status",
            &[
                "BEGIN { print \"x\" | \"cat; exit 3\"; r = close(\"cat; exit 3\"); print \"r=\" r; \"exit 4\" | getline; print close(\"exit 4\"); print close(\"nonexist\") }",
            ],
            "",
        ),
        c(
            "io/pipe-sort",
            &[
                "{ print $1 | \"sort -r\" } END { close(\"sort -r\"); print \"done\" }",
                "emp.data",
            ],
            "",
        ),
        writes(
            c(
                "io/redirect-file",
                &[
                    "{ print $1 > \"out.txt\" } END { close(\"out.txt\"); while ((getline l < \"out.txt\") > 0) print \"read\", l }",
                    "b.txt",
                ],
                "",
            ),
            "out.txt",
        ),
        writes(
            c(
                "io/redirect-append",
                &[
                    "BEGIN { print \"1\" > \"app.txt\"; close(\"app.txt\"); print \"2\" >> \"app.txt\"; print \"3\" >> \"app.txt\" }",
                ],
                "",
            ),
            "app.txt",
        ),
        c(
            "io/dev-stderr",
            &["BEGIN { print \"to err\" > \"/dev/stderr\"; print \"to out\" > \"/dev/stdout\" }"],
            "",
        ),
        c(
            "io/missing-file",
            &["{ print }", "nonexistent.txt", "b.txt"],
            "",
        ),
        c("io/directory-operand", &["{ print }", "."], ""),
        c(
            "io/dash-stdin",
            &["{ print FILENAME \":\" $0 }", "b.txt", "-"],
            "from stdin\n",
        ),
        c(
            "io/filename-stdin",
            &["BEGIN { printf \"[%s]\\n\", FILENAME } { print FILENAME; exit }"],
            "x\n",
        ),
        c(
            "io/binary-bytes",
            &["{ print length($0), $1 }", "binary.dat"],
            "",
        ),
        // ---- RS ----
        c(
            "rs/paragraph",
            &[
                "BEGIN { RS = \"\" } { print NR \": \" $1 \"|\" NF }",
                "para.txt",
            ],
            "",
        ),
        c(
            "rs/paragraph-fs",
            &[
                "BEGIN { RS = \"\"; FS = \":\" } { for (i = 1; i <= NF; i++) printf \"<%s>\", $i; print \"\" }",
                "para.txt",
            ],
            "",
        ),
        c(
            "rs/single-char",
            &["BEGIN { RS = \".\" } { print NR \": \" $0 }"],
            "a.b.c\n",
        ),
        c(
            "rs/regex",
            &["BEGIN { RS = \"[0-9]+\" } { print NR \": [\" $0 \"]\" }"],
            "a12b3c\n",
        ),
        c(
            "rs/ors-ofs",
            &[
                "BEGIN { ORS = \"|\"; OFS = \"-\" } { print $1, $2 } END { printf \"\\n\" }",
                "b.txt",
            ],
            "",
        ),
        c("rs/no-trailing-newline", &["{ print NR \":\" $0 }"], "a\nb"),
        // ---- command line ----
        c(
            "cli/v-assign",
            &["-v", "x=a\\tb", "-v", "n=010", "BEGIN { print x, n + 1 }"],
            "",
        ),
        c(
            "cli/operand-assign",
            &["{ print v, $0 }", "v=1", "b.txt", "v=2", "b.txt"],
            "",
        ),
        c(
            "cli/argv",
            &[
                "BEGIN { for (i = 0; i < ARGC; i++) print i, ARGV[i] }",
                "x",
                "y=1",
                "z",
            ],
            "",
        ),
        c(
            "cli/argv-modify",
            &[
                "BEGIN { ARGV[1] = \"b.txt\"; ARGC = 2 } { print }",
                "nonexistent",
            ],
            "",
        ),
        c("cli/double-dash", &["--", "BEGIN { print \"dd\" }"], ""),
        c(
            "cli/environ",
            &["BEGIN { print ENVIRON[\"HOME\"], ENVIRON[\"TZ\"] }"],
            "",
        ),
        c("cli/F-missing", &["-F"], ""),
        c("cli/v-bad", &["-v", "x", "BEGIN { }"], ""),
        c("cli/unknown-option", &["-x", "BEGIN { }"], ""),
        c(
            "cli/only-begin-no-read",
            &["BEGIN { print \"no input read\" }", "nonexistent"],
            "",
        ),
        // ---- regex dialect ----
        c("re/no-intervals", &["/x{2}/ { print \"m\" }"], "xx\nx{2}\n"),
        c(
            "re/brackets",
            &[
                "{ print match($0, /[]a]/), match($0, /[^]a]/), match($0, /[a-]/), match($0, /[[:digit:]]+/) }",
            ],
            "]ab-12\n",
        ),
        c(
            "re/escapes",
            &["{ print match($0, /\\./), match($0, /\\//), match($0, /\\d/), match($0, /a\\+/) }"],
            "x/.d a+\n",
        ),
        c(
            "re/dot-newline",
            &["BEGIN { print match(\"a\\nb\", /a.b/) }"],
            "",
        ),
        c(
            "re/quantifier-stack",
            &["{ print match($0, /a+?/), RLENGTH, match($0, /a**/), RLENGTH }"],
            "baaa\n",
        ),
        c(
            "re/dynamic-string",
            &["{ print ($0 ~ \"^a.c$\"), ($0 ~ \"b\"), ($0 !~ /z/) }"],
            "abc\n",
        ),
        c(
            "re/slash-in-bracket",
            &["/[/]/ { print \"slash\" }"],
            "a/b\n",
        ),
        c("re/bad-dynamic", &["{ print match($0, \"(\") }"], "x\n"),
        c(
            "re/anchors-middle",
            &["{ print match($0, /a^b/), match($0, /a$b/) }"],
            "a^b a$b\n",
        ),
        // ---- errors ----
        c("err/syntax-brace", &["BEGIN { x = }"], ""),
        // A for-in variable used as an array (from upstream's logs): mawk names line 1.
        c(
            "err/scalar-as-array-line",
            &["{a[$0]++} END{for(i in a) print i[0]\"-\"a[i]}"],
            "x\n",
        ),
        c("err/missing-brace", &["{ print $1"], ""),
        c("err/missing-paren", &["BEGIN { print (1 }"], ""),
        c("err/runaway-string", &["BEGIN { print \"abc }"], ""),
        c("err/runaway-regex", &["/abc { print }"], ""),
        c("err/unexpected-char", &["{ print $1 @ 2 }"], ""),
        c("err/next-in-begin", &["BEGIN { next }"], ""),
        c("err/return-outside", &["BEGIN { return }"], ""),
        c("err/break-outside", &["BEGIN { break }"], ""),
        c("err/undefined-function", &["BEGIN { f(1) }"], ""),
        c("err/array-as-scalar", &["BEGIN { x[1] = 1; x = 2 }"], ""),
        c("err/double-star", &["BEGIN { print 2 ** 3 }"], ""),
        c(
            "err/func-keyword",
            &["func f(x) { return x } BEGIN { print f(1) }"],
            "",
        ),
        c("err/regex-compile", &["/a(/"], "x\n"),
        c("err/printf-no-args", &["BEGIN { printf }"], ""),
        c("err/dup-param", &["function f(a, a) { } BEGIN { }"], ""),
        c(
            "err/syntax-line-number",
            &["BEGIN {\n\nx = 1;\n y = = 2 }"],
            "",
        ),
        c(
            "err/quote-stripped-printf",
            &["{ printf %s\\n, $1 }"],
            "a\n",
        ),
        c("err/quote-stripped-comma", &["BEGIN { FS = : }"], ""),
        c("err/extra-brace", &["{ print $1 }}"], "a\n"),
        // ---- misc programs people write ----
        c(
            "misc/sum-column",
            &[
                "{ s += $2 } END { printf \"%.2f %d\\n\", s, NR }",
                "emp.data",
            ],
            "",
        ),
        c(
            "misc/max",
            &[
                "$2 > max { max = $2; who = $1 } END { print who, max }",
                "emp.data",
            ],
            "",
        ),
        c(
            "misc/reverse-lines",
            &[
                "{ line[NR] = $0 } END { for (i = NR; i > 0; i--) print line[i] }",
                "b.txt",
            ],
            "",
        ),
        c(
            "misc/csv-columns",
            &["-F,", "NR > 1 && $3 != \"\" { print $2, $3 }", "csv.txt"],
            "",
        ),
        c(
            "misc/count-lines-words-chars",
            &[
                "{ c += length($0) + 1; w += NF } END { print NR, w, c }",
                "text.txt",
            ],
            "",
        ),
        c("misc/print-paren-list", &["{ print($1, $2) }", "b.txt"], ""),
        c(
            "misc/print-gt-comparison-in-parens",
            &["{ print ($1 > 1) }", "b.txt"],
            "",
        ),
        c(
            "misc/getline-concat",
            &["BEGIN { getline x y; print \"[\" x \"]\" }"],
            "in\n",
        ),
        c(
            "misc/regex-as-value",
            &["{ x = /b/; print x, /a/ + /b/ }"],
            "abc\nxyz\n",
        ),
        c(
            "misc/in-precedence",
            &["BEGIN { a[\"x\"]; print \"x\" in a, !(\"y\" in a) }"],
            "",
        ),
        c(
            "misc/srand-rand-range",
            &["BEGIN { srand(1); r = rand(); print (r >= 0 && r < 1) }"],
            "",
        ),
        c(
            "misc/srand-returns-prev",
            &["BEGIN { srand(5); print srand(7) }"],
            "",
        ),
        c(
            "misc/long-pipeline-like",
            &[
                "NF > 1 { gsub(/[^[:alnum:] ]/, \"\"); print toupper(substr($1, 1, 1)) substr($1, 2), NF }",
                "text.txt",
            ],
            "",
        ),
        c(
            "misc/hex-field-compare",
            &["{ print ($1 == 16), ($1 == 26), ($1 > 25) }"],
            "0x10\n0x1A\n",
        ),
        c(
            "misc/uninit-field-compare",
            &["{ print ($5 == 0), ($5 == \"\"), length($5) }"],
            "a b\n",
        ),
        c(
            "misc/assign-field-number-type",
            &["{ $2 = 10; print ($2 < 9) }"],
            "a b\n",
        ),
        c(
            "misc/nr-assign",
            &["NR == 2 { NR = 10 } { print NR }"],
            "a\nb\nc\n",
        ),
        c(
            "time/strftime-fixed",
            &[
                "BEGIN { print strftime(\"%c|%x|%X|%D|%e|%j|%U|%W|%u|%w|%C|%g|%G|%V|%h|%I|%p|%Z|%z|%s|%k|%l\", 1685622896); print strftime(\"%Y-%m-%d\", 0, 1) }",
            ],
            "",
        ),
        c(
            "time/mktime",
            &[
                "BEGIN { print mktime(\"2023 06 01 12 34 56\"), mktime(\"bad\"), mktime(\"2023 13 45 0 0 0\"), mktime(\"1999 12 31 23 59 60\") }",
            ],
            "",
        ),
        c(
            "time/systime",
            &["BEGIN { t = systime(); print (t > 1600000000), (systime() - t < 5) }"],
            "",
        ),
        c(
            "time/iso-weeks",
            &[
                "BEGIN { for (d = 0; d < 14; d++) { t = mktime(\"2020 12 \" (26 + d) \" 12 0 0\"); printf \"%s \", strftime(\"%G-%V-%u %U %W\", t) }; print \"\" }",
            ],
            "",
        ),
        c("err/bad-F-regex", &["-F[/\\]", "{ print $1 }"], "a/b\n"),
        c(
            "err/bad-FS-assign",
            &["BEGIN { FS = \"[/\\\\]\" } { print $1 }"],
            "a/b\n",
        ),
        c("cli/no-program-with-options", &["-F", ":"], "x\n"),
        c(
            "order/int-keys",
            &[
                "BEGIN { for (i = 1; i <= 20; i++) a[i]; for (k in a) printf \"%s \", k; print \"\" }",
            ],
            "",
        ),
        c(
            "order/int-keys-desc",
            &[
                "BEGIN { for (i = 20; i >= 1; i--) a[i]; for (k in a) printf \"%s \", k; print \"\" }",
            ],
            "",
        ),
        c(
            "order/string-keys",
            &[
                "BEGIN { for (i = 0; i < 40; i++) b[\"k\" i]; for (k in b) printf \"%s \", k; print \"\" }",
            ],
            "",
        ),
        c(
            "order/mixed-keys",
            &[
                "BEGIN { a[\"b\"]; a[\"a\"]; a[10]; a[9]; a[\"zz\"]; a[2^40]; a[0.5]; a[-3]; for (k in a) printf \"%s \", k; print \"\" }",
            ],
            "",
        ),
        c(
            "order/split",
            &[
                "BEGIN { for (n = 1; n <= 12; n++) { s = \"\"; for (i = 1; i <= n; i++) s = s \" x\" i; split(s, b); for (k in b) printf \"%s \", k; print \"\" } }",
            ],
            "",
        ),
        c(
            "order/move-to-front",
            &["{ c[$1]++ } END { for (k in c) print k, c[k] }"],
            "a\nb\na\nc\nq\nb\nb\nzz\na\n",
        ),
        c(
            "order/big-table",
            &[
                "BEGIN { for (i = 0; i < 2000; i++) a[\"w\" (i * 7919 % 3001)]; n = 0; for (k in a) { if (n++ < 25) printf \"%s \", k }; print \"\"; for (i = 0; i < 1500; i++) delete a[\"w\" (i * 7919 % 3001)]; for (k in a) { if (n++ < 50) printf \"%s \", k }; print length(a) }",
            ],
            "",
        ),
        c(
            "order/big-int-table",
            &[
                "BEGIN { for (i = 3000; i > 0; i -= 3) a[i]; n = 0; for (k in a) if (n++ < 30) printf \"%s \", k; print \"\" }",
            ],
            "",
        ),
        c(
            "order/delete-in-loop",
            &[
                "BEGIN { a[1]; a[2]; a[3]; for (k in a) { print k, (k in a); delete a[3] }; for (k in a) { print k; delete a }; print length(a) }",
            ],
            "",
        ),
        c(
            "order/loop-var-is-string",
            &["BEGIN { a[9]; a[10]; for (k in a) print k, (k < 10), (k + 0 < 10) }"],
            "",
        ),
        c(
            "order/in-moves-to-front",
            &[
                "BEGIN { for (i = 0; i < 200; i++) a[\"q\" i]; for (i = 0; i < 200; i += 3) if ((\"q\" i) in a) x++; for (k in a) printf \"%s \", k; print x }",
            ],
            "",
        ),
        c(
            "order/environ",
            &["BEGIN { for (k in ENVIRON) if (k != \"APPLET_UNDER_TEST\") print k }"],
            "",
        ),
        c(
            "order/fields-counted",
            &[
                "{ for (i = 1; i <= NF; i++) w[$i]++ } END { for (k in w) print k, w[k] }",
                "text.txt",
            ],
            "",
        ),
        c("agentlike/00", &["{$1=$1}1", "ls.txt"], ""),
        c("agentlike/01", &["NR>1", "ls.txt"], ""),
        c(
            "agentlike/02",
            &["NR==FNR{a[$1];next}($1 in a)", "ls.txt"],
            "",
        ),
        c("agentlike/03", &["{ORS=NR%2?\" \":\"\\n\"}1", "ls.txt"], ""),
        c("agentlike/04", &["length>10", "ls.txt"], ""),
        c("agentlike/05", &["$0=toupper($0)", "ls.txt"], ""),
        c(
            "agentlike/06",
            &[
                "{sum[$3]+=$5} END {for (k in sum) printf \"%s %d\\n\", k, sum[k] | \"sort\"}",
                "ls.txt",
            ],
            "",
        ),
        c("agentlike/07", &["/java/,/php/", "ls.txt"], ""),
        c("agentlike/08", &["{ $3 = \"\"; print }", "ls.txt"], ""),
        c(
            "agentlike/09",
            &["{print substr($0, index($0,$3))}", "ls.txt"],
            "",
        ),
        c("agentlike/10", &["END{print NR}", "ls.txt"], ""),
        c(
            "agentlike/11",
            &["{a[NR]=$0} END{for(i=NR;i>0;i--) print a[i]}", "ls.txt"],
            "",
        ),
        c(
            "agentlike/12",
            &["{printf \"%-10s|%5d|\\n\", $9, $5}", "ls.txt"],
            "",
        ),
        c(
            "agentlike/13",
            &["{gsub(/^[ \\t]+|[ \\t]+$/, \"\"); print}", "ls.txt"],
            "",
        ),
        c(
            "agentlike/14",
            &["!($0 in seen){seen[$0]; print}", "ls.txt"],
            "",
        ),
        c(
            "agentlike/15",
            &["BEGIN { printf \"%.2f\\n\", 10/3 }", "ls.txt"],
            "",
        ),
        c("agentlike/16", &["{ print length() }", "ls.txt"], ""),
        c("agentlike/17", &["$2 ~ /^[0-9]+$/", "ls.txt"], ""),
        c(
            "agentlike/18",
            &[
                "BEGIN{x=\"a b c\"; n=split(x, arr); for(i=n;i>0;i--) printf arr[i] \" \"; print \"\"}",
                "ls.txt",
            ],
            "",
        ),
        c("agentlike/19", &["{$2=\"\"; print $0}", "ls.txt"], ""),
        c("agentlike/20", &["NF > 0 && $1 !~ /^#/", "ls.txt"], ""),
        c("agentlike/21", &["{print $1 | \"sort -u\"}", "ls.txt"], ""),
        c(
            "agentlike/22",
            &["{ n = split($0, c, \"\"); print n, c[1], c[n] }", "ls.txt"],
            "",
        ),
        c(
            "agentlike/23",
            &[
                "{ if ($5 > max) { max = $5; f = $9 } } END { print f, max }",
                "ls.txt",
            ],
            "",
        ),
        c(
            "agentlike/24",
            &[
                "{ printf \"%s%s\", (NR > 1 ? \",\" : \"\"), $1 } END { print \"\" }",
                "ls.txt",
            ],
            "",
        ),
        c(
            "agentlike/25",
            &["{ x = $5 / 1024; printf \"%.1fK %s\\n\", x, $9 }", "ls.txt"],
            "",
        ),
        c(
            "agentlike/26",
            &["{ $1 = $1; print NF \":\" $0 }", "ls.txt"],
            "",
        ),
        c(
            "agentlike/27",
            &["BEGIN { FS = \"/\" } { print $2 }", "ls.txt"],
            "",
        ),
        c(
            "agentlike/28",
            &["{ print $NF > \"/dev/stderr\" }", "ls.txt"],
            "",
        ),
        c(
            "agentlike/29",
            &["{ c = gsub(/o/, \"&\"); t += c } END { print t }", "ls.txt"],
            "",
        ),
        c(
            "agentlike/30",
            &["{ sub(/\\.[^.]*$/, \"\", $9); print $9 }", "ls.txt"],
            "",
        ),
        c(
            "agentlike/31",
            &[
                "{ print toupper(substr($9,1,1)) tolower(substr($9,2)) }",
                "ls.txt",
            ],
            "",
        ),
        c("agentlike/32", &["NR % 2 == 0", "ls.txt"], ""),
        c(
            "agentlike/33",
            &[
                "{ s = s $1 } END { print length(s), substr(s, 1, 20) }",
                "ls.txt",
            ],
            "",
        ),
        c(
            "agentlike/34",
            &["{ printf(\"%s\\t%s\\n\", NR, $0) }", "ls.txt"],
            "",
        ),
        c("agentlike/35", &["$5 > 50 { print $9, $5 }", "ls.txt"], ""),
        c(
            "agentlike/36",
            &[
                "{ for (i = NF; i > 0; i--) printf \"%s \", $i; print \"\" }",
                "ls.txt",
            ],
            "",
        ),
        c(
            "agentlike/37",
            &[
                "BEGIN { printf \"%5s|%-5s|%05.1f|%x|%o|%e|%c\\n\", \"ab\", \"cd\", 3.14159, 255, 8, 12345.678, 65 }",
                "ls.txt",
            ],
            "",
        ),
        c(
            "misc/big-loop",
            &["BEGIN { for (i = 0; i < 200000; i++) s += i; print s }"],
            "",
        ),
    ];
    // The same program text through upstream's quoting accident, fs_1 #55, is above
    // (gold/split-colon-quoted); fs_2 #36's `{'print $4'}` reaches awk as `{print $4}`.
    v.shrink_to_fit();
    v
}
