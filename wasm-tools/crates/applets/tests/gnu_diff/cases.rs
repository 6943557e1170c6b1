//! The differential cases. Paths are relative to the fixture root (the InterCode trees'
//! `/testbed`, `/system`, `/workspace` become `testbed`, `system`, `workspace`).

use super::harness::Case;

macro_rules! c {
    ($name:literal, $tool:literal, [$($a:expr),* $(,)?]) => {
        Case::new($name, $tool, &[$($a),*])
    };
}

pub fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    v.extend(find_cases());
    v.extend(xargs_cases());
    v.extend(grep_cases());
    v.extend(other_cases());
    v
}

fn other_cases() -> Vec<Case> {
    vec![
        // du
        c!("du/default", "du", ["testbed/dir1"]).sorted(),
        c!("du/a", "du", ["-a", "testbed/dir1"]).sorted(),
        c!("du/s", "du", ["-s", "testbed"]),
        c!("du/sh", "du", ["-sh", "testbed"]),
        c!("du/h", "du", ["-h", "testbed/dir2", "testbed/big.bin"]).sorted(),
        c!("du/b", "du", ["-b", "testbed/dir1/a.txt"]),
        c!("du/sb", "du", ["-sb", "testbed/dir1"]),
        c!("du/c", "du", ["-c", "testbed/hello.c", "testbed/big.bin"]),
        c!("du/S", "du", ["-S", "testbed/dir1"]).sorted(),
        // Not the whole testbed: which of two hard links is counted depends on readdir order.
        c!("du/max-depth", "du", ["--max-depth=1", "testbed/dir1", "testbed/dir2"]).sorted(),
        c!("du/d0", "du", ["-d", "0", "testbed/dir2"]),
        c!("du/ah-max", "du", ["testbed/dir2", "-a", "-h", "--max-depth=1"]).sorted(),
        c!("du/apparent", "du", ["--apparent-size", "-s", "testbed/dir1"]),
        c!("du/k-m", "du", ["-m", "testbed/big.bin"]),
        c!("du/BM", "du", ["-BM", "testbed/dir1"]).sorted(),
        c!("du/si", "du", ["--si", "-s", "testbed/dir1"]),
        c!("du/dup-operands", "du", ["-s", "testbed/dir1", "testbed/dir1"]),
        c!("du/nested-operands", "du", ["-s", "testbed/dir1", "testbed/dir1/sub"]),
        c!("du/hardlink", "du", ["-s", "testbed/hello.c", "testbed/dir3/hard.c"]),
        c!("du/missing", "du", ["nope", "testbed/hello.c"]),
        c!("du/exclude", "du", ["-a", "--exclude=*.py", "testbed/dir1"]).sorted(),
        c!("du/null", "du", ["-0", "-s", "testbed/dir2"]),
        c!("du/bad", "du", ["-j"]),
        c!("du/fs3-sh", "du", ["-sh", "workspace"]).fs(3),
        c!("du/fs3-a", "du", ["-a", "workspace"]).fs(3).sorted(),
        c!("du/fs3-ah", "du", ["workspace", "-a", "-h", "--max-depth=1"]).fs(3).sorted(),
        c!("du/fs3-sb", "du", ["-sb", "workspace/dir1/sum.c"]).fs(3),
        // stat
        c!("stat/default-file", "stat", ["testbed/hello.c"]).drop_prefix(&[" Birth:"]),
        c!("stat/default-dir", "stat", ["testbed/dir1"]).drop_prefix(&[" Birth:"]),
        // GNU's readlink updates the link's atime before ours runs: compare without it.
        c!("stat/default-link", "stat", ["testbed/link.c", "testbed/dangling"]).drop_prefix(&[" Birth:", "Access: 2"]),
        c!("stat/default-L", "stat", ["-L", "testbed/link.c"]).drop_prefix(&[" Birth:"]),
        c!("stat/default-space", "stat", ["testbed/dir2/space name.txt", "testbed/empty.txt"]).drop_prefix(&[" Birth:"]),
        c!("stat/c", "stat", ["-c", "%n|%s|%b|%B|%a|%A|%F|%h|%i|%u|%U|%g|%G|%o|%d|%D|%f|%%", "testbed/hello.c", "testbed/dir1", "testbed/link.c", "testbed/dir2/text3"]),
        c!("stat/c-times", "stat", ["-c", "%y|%Y|%z|%Z|%.3Y|%.9Z", "testbed/dir1/a.txt"]),
        c!("stat/c-N", "stat", ["-c", "%N", "testbed/link.c", "testbed/dir2/space name.txt"]),
        c!("stat/c-width", "stat", ["-c", "%10s|%-10s|%010s|%#a|%-8U|", "testbed/hello.c"]),
        c!("stat/printf", "stat", ["--printf", "%n\\t%s\\n", "testbed/hello.c", "testbed/empty.txt"]),
        c!("stat/format", "stat", ["--format=%s %n", "testbed/big.bin"]),
        c!("stat/missing", "stat", ["nope", "testbed/hello.c"]).drop_prefix(&[" Birth:"]),
        c!("stat/no-operand", "stat", []),
        c!("stat/c-missing-arg", "stat", ["-c"]),
        // chmod
        c!("chmod/octal", "chmod", ["-v", "755", "testbed/hello.c"]).mutates(),
        c!("chmod/symbolic", "chmod", ["-v", "u=rw,go=r", "testbed/k2.dat"]).mutates(),
        c!("chmod/a+x", "chmod", ["-c", "a+x", "testbed/hello.c", "testbed/dir2/script.sh"]).mutates(),
        c!("chmod/minus-w", "chmod", ["-w", "testbed/hello.c"]).mutates(),
        c!("chmod/plus-w-umask", "chmod", ["+w", "testbed/three.txt"]).mutates(),
        c!("chmod/minus-x-umask", "chmod", ["-v", "-x", "testbed/k2.dat"]).mutates(),
        c!("chmod/recursive", "chmod", ["-R", "-v", "o-r", "testbed/dir1"]).mutates().sorted(),
        c!("chmod/R-links", "chmod", ["-R", "-v", "700", "testbed/dir1", "testbed/dir2"]).mutates().sorted(),
        c!("chmod/X", "chmod", ["-R", "a+X", "testbed/dir2"]).mutates(),
        c!("chmod/copy", "chmod", ["g=u", "testbed/dir2/script.sh"]).mutates(),
        c!("chmod/reference", "chmod", ["--reference=testbed/dir2/script.sh", "testbed/hello.c"]).mutates(),
        c!("chmod/link-operand", "chmod", ["-v", "600", "testbed/link.c"]).mutates(),
        c!("chmod/missing", "chmod", ["644", "nope"]).mutates(),
        c!("chmod/bad-mode", "chmod", ["zz", "testbed/hello.c"]).mutates(),
        c!("chmod/no-file", "chmod", ["644"]).mutates(),
        c!("chmod/no-args", "chmod", []).mutates(),
        c!("chmod/f", "chmod", ["-f", "644", "nope"]).mutates(),
        c!("chmod/fs1-exec", "find", ["testbed", "-name", "*.php", "-exec", "chmod", "755", "{}", ";", "-exec", "/bin/echo", "{}", ";"]).fs(1).mutates().sorted(),
        // tree (GNU tree 2.1 counts the root directory in its report; see tree.rs)
        c!("tree/default", "tree", ["--noreport", "testbed"]),
        c!("tree/a", "tree", ["-a", "--noreport", "testbed/dir1"]),
        c!("tree/pug-f", "tree", ["-p", "-u", "-g", "-f", "--noreport", "testbed"]),
        c!("tree/d", "tree", ["-d", "--noreport", "testbed"]),
        c!("tree/L", "tree", ["-L", "1", "--noreport", "testbed"]),
        c!("tree/s-h", "tree", ["-s", "--noreport", "testbed/dir2"]),
        c!("tree/h", "tree", ["-h", "--noreport", "testbed/dir1"]),
        c!("tree/i-F", "tree", ["-i", "-F", "--noreport", "testbed"]),
        c!("tree/I", "tree", ["-I", "dir*|*.c", "--noreport", "testbed"]),
        c!("tree/dirsfirst", "tree", ["--dirsfirst", "-L", "1", "--noreport", "testbed"]),
        c!("tree/fs2", "tree", ["--noreport", "system"]).fs(2),
        c!("tree/fs2-a", "tree", ["-a", "--noreport", "system/folder2"]).fs(2),
        c!("tree/fs3-pugf", "tree", ["workspace", "-p", "-u", "-g", "-f", "--noreport"]).fs(3),
        // column
        c!("column/t", "column", ["-t"]).stdin(b"a bb ccc\ndddd e f\n\ng  h\n"),
        c!("column/t-s", "column", ["-t", "-s:"]).stdin(b"a:b:c\nddd::e\n"),
        c!("column/t-o", "column", ["-t", "-s", ":", "-o", "|"]).stdin(b"a:b:c\nddd::e\n"),
        c!("column/t-gold", "column", ["-t"]).stdin(b"1  2  3     4  5\n"),
        c!("column/t-file", "column", ["-t", "testbed/dir2/data.csv", "-s", ","]),
        c!("column/fill", "column", []).stdin(b"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n21\n22\n23\n24\n25\n"),
        c!("column/fill-x", "column", ["-x", "-c", "30"]).stdin(b"a\nbb\nccc\ndddd\ne\n"),
        c!("column/fill-wide", "column", []).stdin(b"short\nlonger item here\nx\n"),
        c!("column/missing", "column", ["nope"]),
        // identity (the test host runs as root, like the sandbox)
        c!("id/default", "id", []),
        c!("id/u", "id", ["-u"]),
        c!("id/un", "id", ["-un"]),
        c!("id/gn", "id", ["-g", "-n"]),
        c!("id/G", "id", ["-G"]),
        c!("id/root", "id", ["root"]),
        c!("id/nouser", "id", ["nouser-xyz"]),
        c!("whoami", "whoami", []),
        c!("hostname", "hostname", []),
        // file
        // rev
        c!("rev/stdin", "rev", []).stdin(b"abc\n987654321\nno newline"),
        c!("rev/file", "rev", ["testbed/dir2/data.csv", "nope"]),
    ]
}

fn grep_cases() -> Vec<Case> {
    const W: &str = "testbed/words.txt";
    const A: &str = "testbed/dir1/a.txt";
    const B: &str = "testbed/dir1/b.TXT";
    vec![
        c!("grep/basic", "grep", ["cat", W]),
        c!("grep/no-match", "grep", ["zebra", W]),
        c!("grep/i", "grep", ["-i", "the cat", W]),
        c!("grep/v", "grep", ["-v", "cat", W]),
        c!("grep/c", "grep", ["-c", "cat", W, A]),
        c!("grep/n", "grep", ["-n", "a", A]),
        c!("grep/inr", "grep", ["-inr", "Hello", "testbed/dir1"]).sorted(),
        c!("grep/rnw", "grep", ["-rnw", "testbed", "-e", "foo"]).sorted(),
        c!("grep/r-dot", "grep", ["-r", "hello"]).sorted(),
        c!("grep/r-file", "grep", ["-r", "hello", A]),
        c!("grep/R", "grep", ["-R", "apple", "testbed"]).sorted(),
        c!(
            "grep/l",
            "grep",
            ["-l", "hello", A, B, W, "testbed/hello.c"]
        ),
        c!("grep/L", "grep", ["-L", "hello", A, B, W]),
        c!("grep/o", "grep", ["-o", "cat[a-z]*", W]),
        c!("grep/o-alt", "grep", ["-oE", "ca|cat|catalog", W]),
        c!(
            "grep/o-E-class",
            "grep",
            ["-o", "-E", "[[:alpha:]]{3,6}", W]
        ),
        c!("grep/o-ext", "grep", ["-o", "-E", "\\.[^\\.]+$"]).stdin(b"a.tar.gz\nfile.txt\nnoext\n"),
        c!("grep/ob", "grep", ["-ob", "at", W]),
        c!("grep/b", "grep", ["-b", "cat", W]),
        c!("grep/w", "grep", ["-w", "cat", W]),
        c!("grep/ow", "grep", ["-ow", "foo"]).stdin(b"foo-bar foo_bar xfoo foo\n"),
        c!("grep/x", "grep", ["-x", "concat", W]),
        c!("grep/q", "grep", ["-q", "cat", W]),
        c!("grep/q-missing", "grep", ["-q", "cat", "nope", W]),
        c!("grep/s", "grep", ["-s", "cat", "nope", W]),
        c!("grep/missing", "grep", ["cat", "nope", W]),
        c!("grep/dir", "grep", ["hello", "testbed/dir1"]),
        c!("grep/dir-and-file", "grep", ["hello", "testbed/dir1", A]),
        c!("grep/m", "grep", ["-m", "1", "cat", W]),
        c!("grep/m-context", "grep", ["-m1", "-A2", "cat", W]),
        c!("grep/m0", "grep", ["-m", "0", "cat", W]),
        c!("grep/A", "grep", ["-A1", "a", A]),
        c!("grep/B", "grep", ["-B2", "-n", "foo", A]),
        c!("grep/C", "grep", ["-C1", "banana", A, W]),
        c!("grep/NUM", "grep", ["-1", "split", A]),
        c!("grep/sep", "grep", ["--group-separator=XX", "-A0", "a"]).stdin(b"a\nb\nc\na\n"),
        c!("grep/no-sep", "grep", ["--no-group-separator", "-A0", "a"]).stdin(b"a\nb\nc\na\n"),
        c!("grep/context-files", "grep", ["-A1", "-m1", "a", A, B]),
        c!("grep/h", "grep", ["-h", "a", A, B]),
        c!("grep/H", "grep", ["-H", "apple", B]),
        c!("grep/stdin-H", "grep", ["-H", "x"]).stdin(b"x\n"),
        c!("grep/label", "grep", ["--label=LBL", "-H", "x"]).stdin(b"x\n"),
        c!("grep/stdin-dash", "grep", ["x", "-", A]).stdin(b"x\n"),
        c!("grep/E", "grep", ["-E", "cat|mat", W]),
        c!("grep/egrep", "egrep", ["c(a|o)n", W]),
        c!("grep/fgrep", "fgrep", ["a.b", "-"]).stdin(b"a.b\naxb\n"),
        c!("grep/F", "grep", ["-F", "'single'", W]),
        c!(
            "grep/F-multi",
            "grep",
            ["-F", "-e", "cat", "-e", "pie", W, B]
        ),
        c!(
            "grep/e-multi",
            "grep",
            ["-c", "-e", "apple", "-e", "cherry", B]
        ),
        c!("grep/newline-patterns", "grep", ["apple\ncherry", B]),
        c!("grep/f", "grep", ["-f", "testbed/dir2/foo12", A, W]),
        c!("grep/empty-pattern", "grep", ["-c", "", A]),
        c!("grep/bre-interval", "grep", ["a\\{2\\}"]).stdin(b"a\naa\nbaab\n"),
        c!("grep/bre-literal-plus", "grep", ["a+b"]).stdin(b"aab\na+b\n"),
        c!("grep/bre-plus", "grep", ["a\\+b"]).stdin(b"aab\na+b\n"),
        c!("grep/bre-alt", "grep", ["cat\\|pie", W, B]),
        c!("grep/backref", "grep", ["\\(a\\)\\1"]).stdin(b"aa\nab\n"),
        c!("grep/word-anchors", "grep", ["\\<cat\\>", W]),
        c!("grep/class", "grep", ["^[[:upper:]]", W, B]),
        c!("grep/bad-class", "grep", ["[:alpha:]", W]),
        c!("grep/bad-paren", "grep", ["-E", "(", W]),
        c!("grep/bad-brace", "grep", ["a\\{1", W]),
        c!("grep/bad-backref", "grep", ["\\(a\\)\\2", W]),
        c!("grep/trailing-backslash", "grep", ["x\\", W]),
        c!("grep/P", "grep", ["-oP", "\\d+"]).stdin(b"ab12 c345\n"),
        c!("grep/P-look", "grep", ["-oP", "(?<=X)b"]).stdin(b"aXbXc\n"),
        c!("grep/binary", "grep", ["hello", "testbed/bin.dat"]),
        c!("grep/binary-c", "grep", ["-c", "", "testbed/bin.dat"]),
        c!("grep/binary-a", "grep", ["-a", "def", "testbed/bin.dat"]),
        c!("grep/binary-I", "grep", ["-I", "def", "testbed/bin.dat", A]),
        c!("grep/binary-l", "grep", ["-l", "def", "testbed/bin.dat"]),
        c!("grep/binary-r", "grep", ["-r", "hello", "testbed"]).sorted(),
        c!(
            "grep/include",
            "grep",
            ["-r", "--include=*.txt", "hello", "testbed"]
        )
        .sorted(),
        c!(
            "grep/exclude",
            "grep",
            ["-r", "--exclude=*.txt", "hello", "testbed"]
        )
        .sorted(),
        c!(
            "grep/exclude-dir",
            "grep",
            ["-r", "--exclude-dir=dir1", "hello", "testbed"]
        )
        .sorted(),
        c!("grep/z", "grep", ["-z", "b"]).stdin(b"a\0b\0c"),
        c!("grep/Z", "grep", ["-lZ", "apple", A, B]),
        c!("grep/no-pattern", "grep", []),
        c!("grep/bad-opt", "grep", ["-j", "x"]),
        c!("grep/bad-context", "grep", ["-A", "x", "y"]),
        c!("grep/iH", "grep", ["-iH", "hello"]).stdin(b"HELLO\n"),
        c!(
            "grep/c-multi-m",
            "grep",
            ["-c", "-m1", "a", "testbed/dir1/a.txt", "testbed/dir1/b.TXT"]
        ),
        c!("grep/vc", "grep", ["-vc", "a", "testbed/dir1/a.txt"]),
        c!("grep/o-i", "grep", ["-o", "-i", "l\\+"]).stdin(b"hello\nworld\nhello world\n"),
        c!(
            "grep/x-e",
            "grep",
            ["-x", "-e", "apple", "-e", "cherry", "testbed/dir1/b.TXT"]
        ),
        c!("grep/w-regex", "grep", ["-ow", "[a-z]*at"]).stdin(b"the cat sat on the mat; catalog\n"),
        c!("grep/E-anchors", "grep", ["-E", "^(a|b)|e$"]).stdin(b"apple\nbanana\ncherry\ndate\n"),
        c!("grep/dot-star", "grep", ["-o", "a.*a"]).stdin(b"banana bandana\n"),
        c!("grep/lowercase-class", "grep", ["-c", "[[:lower:]]\\{4\\}"])
            .stdin(b"abcd\nABCD\nab1cd\n"),
        c!("grep/space-class", "grep", ["-c", "^[[:space:]]*$"]).stdin(b"\n  \n\tx\n"),
        c!("grep/L-status", "grep", ["-L", "zzz", "testbed/dir1/a.txt"]),
        c!(
            "grep/L-status-match",
            "grep",
            ["-L", "hello", "testbed/dir1/a.txt", "testbed/dir1/b.TXT"]
        ),
        c!("grep/r-no-name", "grep", ["-rh", "hello", "testbed/dir1"]).sorted(),
        c!("grep/rl", "grep", ["-rl", "hello", "testbed"]).sorted(),
        c!("grep/rc", "grep", ["-rc", "a", "testbed/dir2"]).sorted(),
        c!(
            "grep/d-skip",
            "grep",
            ["-d", "skip", "hello", "testbed/dir1", "testbed/dir1/a.txt"]
        ),
        c!(
            "grep/fs1-l-foo",
            "grep",
            ["-l", "foo", "testbed/FooBar.html", "testbed/hello.php"]
        )
        .fs(1),
        c!("grep/fs1-r", "grep", ["-r", "Hello", "testbed"])
            .fs(1)
            .sorted(),
        c!("grep/fs2-inr", "grep", ["-inr", "Hello", "system/folder1"])
            .fs(2)
            .sorted(),
        c!("grep/fs2-rnw", "grep", ["-rnw", "system", "-e", "foo"])
            .fs(2)
            .sorted(),
        c!(
            "grep/fs3-il",
            "grep",
            [
                "-il",
                "hello",
                "workspace/dir1/a.txt",
                "workspace/dir1/hello.c",
                "workspace/dir1/long.txt"
            ]
        )
        .fs(3),
        c!(
            "grep/fs3-m1",
            "grep",
            ["-m", "1", ".", "workspace/dir1/long.txt"]
        )
        .fs(3),
    ]
}

fn xargs_cases() -> Vec<Case> {
    vec![
        c!("xargs/default-echo", "xargs", []).stdin(b"a b\n\"c d\" e\\ f\n'g  h'\n"),
        c!("xargs/empty-input", "xargs", []).stdin(b""),
        c!("xargs/empty-r", "xargs", ["-r", "echo", "x"]).stdin(b""),
        c!("xargs/n1", "xargs", ["-n1", "echo"]).stdin(b"1 2 3\n4\n"),
        c!("xargs/n2-t", "xargs", ["-n", "2", "-t", "echo"]).stdin(b"1 2 3 4 5\n"),
        c!("xargs/t-quote", "xargs", ["-t", "-I{}", "echo", "{}"]).stdin(b"a b\nc'd\n"),
        c!("xargs/I", "xargs", ["-I{}", "echo", "[{}]"]).stdin(b"  a b  \nc\n\nd\n"),
        c!("xargs/I-space", "xargs", ["-I", "{}", "echo", "<{}>", "{}"]).stdin(b"x\ny\n"),
        c!("xargs/i", "xargs", ["-i", "echo", "[{}]"]).stdin(b"p q\n"),
        c!("xargs/L1", "xargs", ["-L", "1", "echo"]).stdin(b"a b \nc\nd e\n"),
        c!("xargs/null", "xargs", ["-0", "-n1", "echo"]).stdin(b"a\0b c\0\0d"),
        c!("xargs/r0", "xargs", ["-r0", "printf", "[%s]\\n"]).stdin(b"x y\0z\0"),
        c!("xargs/delim", "xargs", ["-d:", "-n1", "echo"]).stdin(b"a:b:c"),
        c!("xargs/delim-nl", "xargs", ["-d", "\\n", "printf", "<%s>"]).stdin(b"a b\n\nc\n"),
        c!("xargs/eof", "xargs", ["-E", "b", "echo"]).stdin(b"a\nb\nc\n"),
        c!("xargs/cr", "xargs", ["printf", "[%s]\\n"]).stdin(b"Icon\r\n"),
        c!("xargs/unmatched-single", "xargs", ["echo"]).stdin(b"a 'b\n"),
        c!("xargs/unmatched-double", "xargs", ["echo"]).stdin(b"a \"b\n"),
        c!("xargs/status-123", "xargs", ["sh", "-c", "exit 3"]).stdin(b"a\n"),
        c!("xargs/status-124", "xargs", ["sh", "-c", "exit 255"]).stdin(b"a\nb\n"),
        c!("xargs/status-126", "xargs", ["-n1", "testbed"]).stdin(b"a\n"),
        c!("xargs/status-127", "xargs", ["nocmd-xyz"]).stdin(b"a\n"),
        c!("xargs/bin-echo", "xargs", ["/bin/echo", "X"]).stdin(b"a\n"),
        c!("xargs/s-too-long", "xargs", ["-s", "5", "echo"]).stdin(b"aaaaaa\n"),
        c!("xargs/s-split", "xargs", ["-s", "12", "echo"]).stdin(b"a b c d e f g\n"),
        c!("xargs/x", "xargs", ["-x", "-s", "8", "echo"]).stdin(b"a\n"),
        c!("xargs/P", "xargs", ["-P10", "-n1", "echo"])
            .stdin(b"a\n")
            .sorted(),
        c!("xargs/bad-opt", "xargs", ["-z"]),
        c!("xargs/bad-num", "xargs", ["-n", "x"]),
        c!("xargs/bad-delim", "xargs", ["-d", "ab"]),
        c!(
            "xargs/arg-file",
            "xargs",
            ["-a", "testbed/dir2/data.csv", "echo"]
        ),
        c!("xargs/arg-file-missing", "xargs", ["-a", "nope", "echo"]),
        c!("xargs/p", "xargs", ["-p", "echo"]).stdin(b"a b\n"),
        c!("xargs/wc", "xargs", ["wc", "-l"]).stdin(b"testbed/dir1/a.txt testbed/dir1/b.TXT\n"),
        c!("xargs/md5sum-0", "xargs", ["-r0", "md5sum"])
            .stdin(b"testbed/hello.c\0testbed/dir2/space name.txt\0"),
        c!("xargs/grep-l", "xargs", ["grep", "-l", "hello"])
            .stdin(b"testbed/dir1/a.txt testbed/words.txt testbed/hello.c\n"),
        c!("xargs/rm", "xargs", ["rm"])
            .stdin(b"testbed/three.txt\ntestbed/k2.dat\n")
            .mutates(),
        c!("xargs/mkdir-I", "xargs", ["-I{}", "mkdir", "-p", "new/{}"])
            .stdin(b"a\nb/c\n")
            .mutates(),
        c!("xargs/touch-cr", "xargs", ["touch"])
            .stdin(b"Icon\r\n")
            .mutates(),
        c!(
            "xargs/stdin-null",
            "xargs",
            ["sh", "-c", "cat; echo \"$@\"", "sh"]
        )
        .stdin(b"a b\n"),
        c!("xargs/I-multi", "xargs", ["-I", "X", "echo", "X-X", "[X]"]).stdin(b"one\ntwo three\n"),
        c!("xargs/L2", "xargs", ["-L2", "echo"]).stdin(b"a\nb\nc\n"),
        c!("xargs/n-L-last-wins", "xargs", ["-L1", "-n2", "echo"]).stdin(b"a b c\nd\n"),
        c!("xargs/0-empty-items", "xargs", ["-0", "printf", "[%s]"]).stdin(b"a\0\0b\0"),
        c!("xargs/e", "xargs", ["-e", "echo"]).stdin(b"_\na\n"),
        c!("xargs/eof-opt", "xargs", ["-eSTOP", "echo"]).stdin(b"a STOP b\n"),
        c!("xargs/dirname", "xargs", ["-I{}", "dirname", "{}"]).stdin(b"/a/b/c\nd/e\n"),
        c!("xargs/warn-n-after-I", "xargs", ["-I{}", "-n2", "echo"]).stdin(b"a b\nc\n"),
        c!(
            "xargs/warn-I-after-n",
            "xargs",
            ["-n2", "-I{}", "echo", "<{}>"]
        )
        .stdin(b"a b\nc\n"),
        c!("xargs/n-after-i", "xargs", ["-i", "-n1", "echo", "<{}>"]).stdin(b"a b\nc\n"),
        c!("xargs/warn-L-after-I", "xargs", ["-I{}", "-L1", "echo"]).stdin(b"a b\nc\n"),
    ]
}

fn find_cases() -> Vec<Case> {
    vec![
        c!("find/all", "find", ["testbed"]).sorted(),
        c!("find/dot", "find", []).sorted(),
        c!("find/trailing-slash", "find", ["testbed/", "testbed//dir1"]).sorted(),
        c!("find/name", "find", ["testbed", "-name", "*.txt"]).sorted(),
        c!("find/iname", "find", ["testbed", "-iname", "*.txt"]).sorted(),
        c!(
            "find/name-bracket",
            "find",
            ["testbed", "-name", "text[2-4]"]
        )
        .sorted(),
        c!("find/name-qq", "find", ["testbed/", "-name", "foo??"]).sorted(),
        c!("find/path", "find", ["testbed", "-path", "*dir1/*"]).sorted(),
        c!("find/ipath", "find", ["testbed", "-ipath", "*/DIR1/S*"]).sorted(),
        c!(
            "find/regex",
            "find",
            ["testbed", "-regex", ".*/\\(a\\|b\\)\\.[tT].*"]
        )
        .sorted(),
        c!(
            "find/regex-ere",
            "find",
            [
                "testbed",
                "-regextype",
                "posix-extended",
                "-regex",
                ".*/[a-c]+\\.(txt|c)"
            ]
        )
        .sorted(),
        c!("find/iregex", "find", ["testbed", "-iregex", ".*\\.txt"]).sorted(),
        c!("find/type-f", "find", ["testbed", "-type", "f"]).sorted(),
        c!("find/type-d", "find", ["testbed", "-type", "d"]).sorted(),
        c!("find/type-l", "find", ["testbed", "-type", "l"]).sorted(),
        c!("find/type-list", "find", ["testbed", "-type", "l,d"]).sorted(),
        c!("find/xtype", "find", ["testbed", "-xtype", "f"]).sorted(),
        c!("find/L-type", "find", ["-L", "testbed", "-type", "f"]).sorted(),
        c!(
            "find/H",
            "find",
            ["-H", "testbed/linkdir", "-maxdepth", "1"]
        )
        .sorted(),
        c!("find/size-plus-1k", "find", ["testbed", "-size", "+1k"]).sorted(),
        c!(
            "find/size-minus-c",
            "find",
            ["testbed", "-size", "-32000c", "-size", "+1000c"]
        )
        .sorted(),
        c!("find/size-eq-c", "find", ["testbed", "-size", "3c"]).sorted(),
        c!("find/size-blocks", "find", ["testbed", "-size", "-2"]).sorted(),
        c!("find/size-2k", "find", ["testbed", "-size", "2k"]).sorted(),
        c!("find/size-M", "find", ["testbed", "-size", "-1M"]).sorted(),
        c!("find/empty", "find", ["testbed", "-empty"]).sorted(),
        c!(
            "find/not-empty",
            "find",
            ["testbed", "-not", "-empty", "-type", "f"]
        )
        .sorted(),
        c!("find/mtime-plus", "find", ["testbed", "-mtime", "+7"]).sorted(),
        c!("find/mtime-minus", "find", ["testbed", "-mtime", "-3"]).sorted(),
        c!("find/mtime-eq", "find", ["testbed", "-mtime", "2"]).sorted(),
        c!("find/mtime-0", "find", ["testbed", "-mtime", "0"]).sorted(),
        c!(
            "find/daystart",
            "find",
            ["testbed", "-daystart", "-type", "f", "-mtime", "-30"]
        )
        .sorted(),
        c!("find/mmin", "find", ["testbed", "-mmin", "+5"]).sorted(),
        c!("find/mmin-minus", "find", ["testbed", "-mmin", "-60"]).sorted(),
        c!("find/cmin", "find", ["testbed", "-cmin", "-60"]).sorted(),
        c!(
            "find/amin",
            "find",
            ["testbed", "-amin", "-60", "-type", "d"]
        )
        .sorted(),
        c!(
            "find/atime",
            "find",
            ["testbed", "-atime", "+1", "-type", "f"]
        )
        .sorted(),
        c!(
            "find/newer",
            "find",
            ["testbed", "-newer", "testbed/dir1/b.TXT"]
        )
        .sorted(),
        c!("find/newer-missing", "find", ["testbed", "-newer", "nope"]).sorted(),
        c!("find/perm-exact", "find", ["testbed", "-perm", "400"]).sorted(),
        c!(
            "find/perm-777",
            "find",
            ["testbed", "-perm", "777", "-type", "f"]
        )
        .sorted(),
        c!("find/perm-553", "find", ["testbed", "-perm", "553"]).sorted(),
        c!(
            "find/perm-all-sym",
            "find",
            [
                "testbed", "-type", "f", "(", "-iname", "*.txt", "-not", "-perm", "-o=w", ")"
            ]
        )
        .sorted(),
        c!(
            "find/perm-all",
            "find",
            ["testbed", "-perm", "-u+x", "-type", "f"]
        )
        .sorted(),
        c!("find/perm-any", "find", ["testbed", "-perm", "/g=w,o=x"]).sorted(),
        c!("find/perm-suid", "find", ["testbed", "-perm", "-4000"]).sorted(),
        c!("find/perm-bad", "find", ["testbed", "-perm", "u+q"]),
        c!(
            "find/user",
            "find",
            ["testbed", "-user", "root", "-name", "*.c"]
        )
        .sorted(),
        c!(
            "find/user-bad",
            "find",
            ["testbed", "-user", "nosuchuserxx"]
        ),
        c!(
            "find/group-bad",
            "find",
            ["testbed", "-group", "nosuchgroupxx"]
        ),
        c!("find/nouser", "find", ["testbed", "-nouser"]).sorted(),
        c!("find/nogroup", "find", ["testbed", "-nogroup"]).sorted(),
        c!(
            "find/uid",
            "find",
            ["testbed", "-uid", "0", "-name", "*.sh"]
        )
        .sorted(),
        c!(
            "find/links",
            "find",
            ["testbed", "-links", "2", "-type", "f"]
        )
        .sorted(),
        c!(
            "find/samefile",
            "find",
            ["testbed", "-samefile", "testbed/hello.c"]
        )
        .sorted(),
        c!(
            "find/readable",
            "find",
            ["testbed", "-readable", "-name", "*.txt"]
        )
        .sorted(),
        c!(
            "find/executable",
            "find",
            ["testbed", "-executable", "-type", "f"]
        )
        .sorted(),
        c!(
            "find/writable",
            "find",
            ["testbed", "-writable", "-type", "f"]
        )
        .sorted(),
        c!("find/maxdepth", "find", ["testbed", "-maxdepth", "1"]).sorted(),
        c!("find/maxdepth-0", "find", ["testbed", "-maxdepth", "0"]),
        c!(
            "find/mindepth",
            "find",
            ["testbed", "-mindepth", "2", "-type", "d"]
        )
        .sorted(),
        c!(
            "find/maxdepth-after",
            "find",
            ["testbed", "-name", "*.txt", "-maxdepth", "1"]
        )
        .sorted(),
        c!("find/depth", "find", ["testbed/dir3", "-depth"]),
        c!(
            "find/prune",
            "find",
            [
                "testbed", "-name", "dir1", "-prune", "-o", "-type", "f", "-print"
            ]
        )
        .sorted(),
        c!("find/prune-root", "find", ["testbed", "-prune"]),
        c!(
            "find/or",
            "find",
            ["testbed", "-name", "*.c", "-or", "-name", "*.sh"]
        )
        .sorted(),
        c!(
            "find/parens",
            "find",
            [
                "testbed", "(", "-name", "*.c", "-o", "-name", "*.csv", ")", "-type", "f"
            ]
        )
        .sorted(),
        c!(
            "find/not-bang",
            "find",
            [
                "testbed",
                "-type",
                "f",
                "!",
                "-name",
                "*.txt",
                "-maxdepth",
                "1"
            ]
        )
        .sorted(),
        c!(
            "find/comma",
            "find",
            [
                "testbed/dir2",
                "-name",
                "*.sh",
                "-print",
                ",",
                "-name",
                "*.csv",
                "-print"
            ]
        )
        .sorted(),
        c!(
            "find/true-false",
            "find",
            ["testbed", "-false", "-o", "-true", "-name", "*.py"]
        )
        .sorted(),
        c!("find/print0", "find", ["testbed", "-type", "f", "-print0"]).sorted_nul(),
        c!(
            "find/printf-depth",
            "find",
            ["testbed", "-type", "d", "-printf", "%d\\t%P\\n"]
        )
        .sorted(),
        c!(
            "find/printf-many",
            "find",
            [
                "testbed",
                "-printf",
                "%p|%f|%h|%H|%s|%k|%b|%m|%#m|%M|%u|%g|%U|%G|%n|%y|%Y|%l|%i\\n"
            ]
        )
        .sorted(),
        c!(
            "find/printf-times",
            "find",
            [
                "testbed",
                "-printf",
                "%T@ %t %c %TY-%Tm-%Td %TT %T+ %Ck %Tc %TD\\n"
            ]
        )
        .sorted(),
        c!(
            "find/printf-width",
            "find",
            [
                "testbed",
                "-maxdepth",
                "1",
                "-printf",
                "[%10s][%-6m][%.3f][%+d]\\n"
            ]
        )
        .sorted(),
        c!(
            "find/printf-escapes",
            "find",
            ["testbed", "-maxdepth", "0", "-printf", "a\\101\\0b\\c tail"]
        ),
        c!(
            "find/printf-warn",
            "find",
            ["testbed", "-maxdepth", "0", "-printf", "%Q \\q\\n"]
        ),
        c!(
            "find/printf-sparse",
            "find",
            ["testbed", "-type", "f", "-printf", "%S %p\\n"]
        )
        .sorted(),
        c!("find/ls", "find", ["testbed", "-ls"]).sorted(),
        c!("find/ls-dirs", "find", ["testbed", "-type", "d", "-ls"]).sorted(),
        c!(
            "find/exec-semicolon",
            "find",
            ["testbed", "-name", "*.csv", "-exec", "cat", "{}", ";"]
        ),
        c!(
            "find/exec-plus",
            "find",
            [
                "testbed", "-type", "f", "-name", "*.txt", "-exec", "echo", "X", "{}", "+"
            ]
        )
        .words(),
        c!(
            "find/exec-embedded",
            "find",
            [
                "testbed",
                "-maxdepth",
                "1",
                "-name",
                "*.c",
                "-exec",
                "echo",
                "file={}.bak",
                ";"
            ]
        )
        .sorted(),
        c!(
            "find/exec-as-test",
            "find",
            [
                "testbed", "-type", "f", "-exec", "grep", "-q", "hello", "{}", ";", "-print"
            ]
        )
        .sorted(),
        c!(
            "find/exec-bin-path",
            "find",
            ["testbed", "-name", "*.sh", "-exec", "/bin/echo", "{}", ";"]
        ),
        c!(
            "find/exec-missing-cmd",
            "find",
            ["testbed", "-maxdepth", "0", "-exec", "nocmd-xyz", ";"]
        ),
        c!(
            "find/exec-missing-cmd-plus",
            "find",
            ["testbed", "-maxdepth", "0", "-exec", "nocmd-xyz", "{}", "+"]
        ),
        c!(
            "find/exec-false-plus",
            "find",
            ["testbed", "-maxdepth", "0", "-exec", "false", "{}", "+"]
        ),
        c!(
            "find/exec-print-order",
            "find",
            ["testbed/dir2", "-print", "-exec", "echo", "X", "{}", ";"]
        )
        .sorted(),
        c!(
            "find/execdir",
            "find",
            ["testbed/dir1", "-execdir", "echo", "{}", ";"]
        )
        .sorted(),
        c!(
            "find/exec-quit",
            "find",
            [
                "testbed",
                "-maxdepth",
                "0",
                "-exec",
                "echo",
                "{}",
                "+",
                "-quit"
            ]
        ),
        c!(
            "find/ok-no",
            "find",
            ["testbed", "-maxdepth", "0", "-ok", "echo", "{}", ";"]
        ),
        c!(
            "find/quit",
            "find",
            ["testbed", "-maxdepth", "0", "-print", "-quit"]
        ),
        c!("find/missing", "find", ["nonexistent", "testbed/hello.c"]),
        c!("find/err-unknown", "find", ["testbed", "-foo"]),
        c!("find/err-missing-arg", "find", ["testbed", "-name"]),
        c!(
            "find/err-paths",
            "find",
            ["testbed", "-name", "*.c", "hello.c"]
        ),
        c!(
            "find/err-paths-hint",
            "find",
            ["testbed", "-name", "hello.c", "testbed"]
        ),
        c!("find/err-type", "find", ["testbed", "-type", "q"]),
        c!("find/err-size", "find", ["testbed", "-size", "1.5k"]),
        c!("find/err-paren", "find", ["testbed", "(", "-name", "x"]),
        c!("find/err-paren2", "find", ["testbed", "-name", "x", ")"]),
        c!("find/err-exec", "find", ["testbed", "-exec", "echo", "{}"]),
        c!("find/err-maxdepth", "find", ["testbed", "-maxdepth", "x"]),
        c!(
            "find/delete",
            "find",
            ["testbed", "-name", "*.txt", "-delete"]
        )
        .mutates(),
        c!(
            "find/delete-nonempty",
            "find",
            ["testbed/dir3", "-name", "x", "-delete"]
        )
        .mutates(),
        c!(
            "find/delete-print",
            "find",
            ["testbed/dir1", "-delete", "-print"]
        )
        .mutates()
        .sorted(),
        c!(
            "find/exec-rm",
            "find",
            [
                "testbed", "-type", "f", "-size", "+1k", "-exec", "rm", "{}", "+"
            ]
        )
        .mutates(),
        c!(
            "find/exec-chmod",
            "find",
            [
                "testbed", "-name", "*.sh", "-exec", "chmod", "700", "{}", ";"
            ]
        )
        .mutates(),
        c!(
            "find/fprint",
            "find",
            ["testbed", "-name", "*.c", "-fprint", "out.list"]
        )
        .mutates(),
        // InterCode gold commands (paths relative to the fixture root).
        c!("find/fs1-java", "find", ["testbed", "-name", "*.java"])
            .fs(1)
            .sorted(),
        c!(
            "find/fs1-exec-md5",
            "find",
            [
                "testbed/dir1/subdir1",
                "-type",
                "f",
                "-name",
                "*.py",
                "-exec",
                "md5sum",
                "{}",
                "+"
            ]
        )
        .fs(1)
        .sorted(),
        c!("find/fs1-perm553", "find", ["testbed/dir1", "-perm", "553"])
            .fs(1)
            .sorted(),
        c!(
            "find/fs1-grep-q",
            "find",
            [
                "testbed", "-name", "*.php", "-exec", "grep", "-iq", "world", "{}", ";", "-print"
            ]
        )
        .fs(1)
        .sorted(),
        c!(
            "find/fs1-exec-or",
            "find",
            [
                "testbed", "-name", "*.txt", "(", "-exec", "echo", "{}", ";", "-o", "-exec",
                "true", ";", ")", "-exec", "grep", "banana", "{}", ";"
            ]
        )
        .fs(1)
        .sorted(),
        c!(
            "find/fs2-size10c",
            "find",
            ["system", "-size", "10c", "-print"]
        )
        .fs(2)
        .sorted(),
        c!("find/fs2-ls", "find", ["system", "-type", "d", "-ls"])
            .fs(2)
            .sorted(),
        c!("find/fs2-nouser", "find", ["system", "-nouser"])
            .fs(2)
            .sorted(),
        c!(
            "find/fs2-mmin",
            "find",
            [
                "system/folder1",
                "-maxdepth",
                "1",
                "-mmin",
                "+5",
                "-type",
                "f",
                "-name",
                "*.txt",
                "!",
                "-name",
                "keep.txt"
            ]
        )
        .fs(2)
        .sorted(),
        c!(
            "find/fs3-printf",
            "find",
            ["workspace", "-type", "d", "-printf", "%d\\t%P\\n"]
        )
        .fs(3)
        .sorted(),
        c!(
            "find/fs3-perm-o-w",
            "find",
            [
                "workspace",
                "-type",
                "f",
                "(",
                "-iname",
                "*.txt",
                "-not",
                "-perm",
                "-o=w",
                ")"
            ]
        )
        .fs(3)
        .sorted(),
        c!(
            "find/fs3-size",
            "find",
            ["workspace", "-size", "+1000c", "-size", "-32000c", "-print"]
        )
        .fs(3)
        .sorted(),
        c!(
            "find/fs3-daystart",
            "find",
            ["workspace", "-daystart", "-type", "f", "-mtime", "-30"]
        )
        .fs(3)
        .sorted(),
        c!("find/fs3-empty", "find", ["workspace", "-empty"])
            .fs(3)
            .sorted(),
        c!("find/fs3-prune", "find", ["workspace", "-prune"]).fs(3),
        c!(
            "find/fs3-ls-exec",
            "find",
            [
                "workspace",
                "-perm",
                "400",
                "-type",
                "f",
                "-exec",
                "ls",
                "-l",
                "{}",
                ";"
            ]
        )
        .fs(3),
        c!(
            "find/fs3-delete",
            "find",
            ["workspace", "-type", "f", "-size", "+1k", "-delete"]
        )
        .fs(3)
        .mutates(),
    ]
}
