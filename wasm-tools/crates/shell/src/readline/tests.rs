//! Expected texts are bash 5.1.16's answers in upstream's image (`scripts/ubuntu-reference`).

use super::*;

fn bind(b: &mut Bindings, mode: EditingMode, args: &[&str]) -> Outcome {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    b.run(mode, &args, |_| Err("No such file or directory".into()))
}

fn stdout(o: &Outcome) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

const OFF: EditingMode = EditingMode {
    vi: false,
    enabled: false,
};

#[test]
fn without_line_editing_bind_warns_and_still_answers() {
    let o = bind(&mut Bindings::default(), OFF, &["-q", "abort"]);
    assert_eq!(o.errors, ["warning: line editing not enabled"]);
    assert_eq!(
        stdout(&o),
        "abort can be invoked via \"\\C-g\", \"\\C-x\\C-g\", \"\\M-\\C-g\".\n"
    );
    assert_eq!(o.status, 0);
    let mut on = OFF;
    on.set(false, true);
    assert!(bind(&mut Bindings::default(), on, &[]).errors.is_empty());
    // `set +o vi` leaves emacs editing on; `set +o emacs` turns it off.
    on.set(true, false);
    assert!(on.enabled);
    on.set(false, false);
    assert!(!on.enabled);
}

#[test]
fn listings_derive_from_the_recorded_tables() {
    let o = bind(&mut Bindings::default(), OFF, &["-P"]);
    let text = stdout(&o);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "");
    assert_eq!(
        lines[1],
        "abort can be found on \"\\C-g\", \"\\C-x\\C-g\", \"\\M-\\C-g\"."
    );
    assert_eq!(lines[3], "alias-expand-line is not bound to any keys");
    assert!(lines.contains(
        &"digit-argument can be found on \"\\M--\", \"\\M-0\", \"\\M-1\", \"\\M-2\", \"\\M-3\", ..."
    ));
    // 169 functions, one line each, after the empty line.
    assert_eq!(lines.len(), 170);
    let l = stdout(&bind(&mut Bindings::default(), OFF, &["-l"]));
    assert_eq!(l.lines().count(), 169);
    assert_eq!(l.lines().last(), Some("yank-pop"));
    let p = bind(&mut Bindings::default(), OFF, &["-p"]).stdout;
    assert!(p.starts_with(b"\n\"\\C-g\": abort\n"));
    assert!(p.ends_with(b"\"\\M-y\": yank-pop\n"));
}

#[test]
fn variables_follow_the_editing_mode_and_keymap() {
    let v = stdout(&bind(&mut Bindings::default(), OFF, &["-V"]));
    assert!(v.contains("comment-begin is set to `#'\n"));
    assert!(v.contains("keymap is set to `emacs'\n"));
    let vi = EditingMode {
        vi: true,
        enabled: true,
    };
    let v = stdout(&bind(&mut Bindings::default(), vi, &["-v"]));
    assert!(v.contains("set editing-mode vi\n"));
    assert!(v.contains("set keymap vi-insert\n"));
}

#[test]
fn bindings_made_by_an_action_show_in_later_listings() {
    let mut b = Bindings::default();
    bind(&mut b, OFF, &["\"\\C-x\": abort"]);
    assert_eq!(
        stdout(&bind(&mut b, OFF, &["-q", "abort"])),
        "abort can be invoked via \"\\C-g\", \"\\C-x\\C-g\", \"\\C-x\", \"\\M-\\C-g\".\n"
    );
    bind(&mut b, OFF, &["-r", "\\C-a"]);
    assert_eq!(
        stdout(&bind(&mut b, OFF, &["-q", "beginning-of-line"])),
        "beginning-of-line can be invoked via \"\\M-OH\", \"\\M-[1~\", \"\\M-[H\".\n"
    );
    bind(&mut b, OFF, &["-u", "beginning-of-line"]);
    let o = bind(&mut b, OFF, &["-q", "beginning-of-line"]);
    assert_eq!(stdout(&o), "beginning-of-line is not bound to any keys.\n");
    assert_eq!(o.status, 1);
    bind(&mut b, OFF, &["-x", "\"\\C-y\": echo"]);
    assert_eq!(stdout(&bind(&mut b, OFF, &["-X"])), "\"\\C-y\": \"echo\"\n");
}

#[test]
fn bad_usage_is_reported_as_bash_does() {
    let o = bind(&mut Bindings::default(), OFF, &["-z"]);
    assert_eq!(o.errors[1], "-z: invalid option");
    assert!(o.usage);
    assert_eq!(o.status, 2);
    let o = bind(&mut Bindings::default(), OFF, &["-q"]);
    assert_eq!(o.errors[1], "-q: option requires an argument");
    let o = bind(&mut Bindings::default(), OFF, &["-q", "foo"]);
    assert_eq!(o.errors[1], "`foo': unknown function name");
    assert_eq!(o.status, 1);
    let o = bind(&mut Bindings::default(), OFF, &["-m", "foo", "-p"]);
    assert_eq!(o.errors[1], "`foo': invalid keymap name");
    let o = bind(&mut Bindings::default(), OFF, &["-f", "x"]);
    assert_eq!(o.errors[1], "x: cannot read: No such file or directory");
    let o = bind(&mut Bindings::default(), OFF, &["-x", "\\C-y: echo"]);
    assert_eq!(
        o.errors[1],
        "\\C-y: echo: first non-whitespace character is not `\"'"
    );
}

#[test]
fn key_sequences_decode_and_order_as_readline_lists_them() {
    assert_eq!(keyseq::decode(b"\\M-\\C-g"), [0x1b, 0x07]);
    assert_eq!(keyseq::decode(b"\\C-?"), [0x7f]);
    assert_eq!(keyseq::decode(b"\\e[A"), [0x1b, b'[', b'A']);
    assert_eq!(keyseq::decode(b"\\200"), [0x80]);
    assert_eq!(keyseq::display(&[0x18, 0x07]), b"\\C-x\\C-g");
    assert!(keyseq::order(b"\x18\x07", b"\x18").is_lt());
    assert!(keyseq::order(b"\x18", b"\x1b\x07").is_lt());
}
