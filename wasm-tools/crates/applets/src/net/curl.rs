//! `curl` 7.81 (Ubuntu 22.04) on a machine without network.
//!
//! Every host name that `/etc/hosts` does not know fails to resolve (exit 6), numeric and
//! `/etc/hosts` addresses fail to connect (exit 7: "Connection refused" on loopback, "Network
//! is unreachable" elsewhere), malformed URLs exit 3 and unknown schemes 1, before any
//! connection. `file://` URLs work. The progress meter goes to stderr unless `-s`, because the
//! sandbox's stdout is never a terminal; its figures are those of a transfer that moved
//! nothing (or, for `file://`, moved everything at once), so they are deterministic. Messages
//! and the order of meter, verbose and error lines follow curl 7.81's sources
//! (`lib/connect.c`, `src/tool_operate.c`, `src/tool_msgs.c`).

use super::world::{self, Family, Reach};
use crate::common::Io;
use crate::common::io::run_main;
use std::ffi::OsString;
use std::net::IpAddr;

pub fn main(args: Vec<OsString>) -> i32 {
    run_main(args, run)
}

/// Exit codes (CURLcode) the sandbox can produce.
const UNSUPPORTED_PROTOCOL: i32 = 1;
const FAILED_INIT: i32 = 2;
const URL_MALFORMAT: i32 = 3;
const COULDNT_RESOLVE_HOST: i32 = 6;
const COULDNT_CONNECT: i32 = 7;
const WRITE_ERROR: i32 = 23;
const FILE_COULDNT_READ_FILE: i32 = 37;

const VERSION: &str = "\
curl 7.81.0 (x86_64-pc-linux-gnu) libcurl/7.81.0 OpenSSL/3.0.2 zlib/1.2.11 brotli/1.0.9 zstd/1.4.8 libidn2/2.3.2 libpsl/0.21.0 (+libidn2/2.3.2) libssh/0.9.6/openssl/zlib nghttp2/1.43.0 librtmp/2.3 OpenLDAP/2.5.14
Release-Date: 2022-01-05
Protocols: dict file ftp ftps gopher gophers http https imap imaps ldap ldaps mqtt pop3 pop3s rtmp rtsp scp sftp smb smbs smtp smtps telnet tftp
Features: alt-svc AsynchDNS brotli GSS-API HSTS HTTP2 HTTPS-proxy IDN IPv6 Kerberos Largefile libz NTLM NTLM_WB PSL SPNEGO SSL TLS-SRP UnixSockets zstd
";

/// `curl --help` of 7.81 (the "important" category it shows by default).
const HELP: &str = "\
Usage: curl [options...] <url>
 -d, --data <data>          HTTP POST data
 -f, --fail                 Fail fast with no output on HTTP errors
 -h, --help <category>      Get help for commands
 -i, --include              Include protocol response headers in the output
 -o, --output <file>        Write to file instead of stdout
 -O, --remote-name          Write output to a file named as the remote file
 -s, --silent               Silent mode
 -T, --upload-file <file>   Transfer local FILE to destination
 -u, --user <user:password> Server user and password
 -A, --user-agent <name>    Send User-Agent <name> to server
 -v, --verbose              Make the operation more talkative
 -V, --version              Show version number and quit

This is not the full help, this menu is stripped into categories.
Use \"--help category\" to get an overview of all categories.
For all options use the manual or \"--help all\".
";

const PROTOCOLS: &[(&str, u16)] = &[
    ("dict", 2628),
    ("file", 0),
    ("ftp", 21),
    ("ftps", 990),
    ("gopher", 70),
    ("gophers", 70),
    ("http", 80),
    ("https", 443),
    ("imap", 143),
    ("imaps", 993),
    ("ldap", 389),
    ("ldaps", 636),
    ("mqtt", 1883),
    ("pop3", 110),
    ("pop3s", 995),
    ("rtmp", 1935),
    ("rtsp", 554),
    ("scp", 22),
    ("sftp", 22),
    ("smb", 445),
    ("smbs", 445),
    ("smtp", 25),
    ("smtps", 465),
    ("telnet", 23),
    ("tftp", 69),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    Silent,
    ShowError,
    Verbose,
    ProgressBar,
    NoProgressMeter,
    Output,
    RemoteName,
    RemoteNameAll,
    WriteOut,
    Url,
    Help,
    Manual,
    Version,
    Next,
    /// Accepted and irrelevant without a network (`-L`, `-H x`, `-X POST`, …).
    Ignored,
    IgnoredArg,
    /// Options taking a number (`-m 5`): checked like curl checks them.
    IgnoredNum,
}

/// (short, long, key). Options with arguments are the `*Arg`/`Output`/`WriteOut`/`Url` keys.
const OPTIONS: &[(Option<char>, &str, Key)] = &[
    (Some('s'), "silent", Key::Silent),
    (Some('S'), "show-error", Key::ShowError),
    (Some('v'), "verbose", Key::Verbose),
    (Some('#'), "progress-bar", Key::ProgressBar),
    (None, "no-progress-meter", Key::NoProgressMeter),
    (Some('o'), "output", Key::Output),
    (Some('O'), "remote-name", Key::RemoteName),
    (None, "remote-name-all", Key::RemoteNameAll),
    (Some('w'), "write-out", Key::WriteOut),
    (None, "url", Key::Url),
    (Some('h'), "help", Key::Help),
    (Some('M'), "manual", Key::Manual),
    (Some('V'), "version", Key::Version),
    (Some(':'), "next", Key::Next),
    (Some('f'), "fail", Key::Ignored),
    (None, "fail-with-body", Key::Ignored),
    (None, "fail-early", Key::Ignored),
    (Some('I'), "head", Key::Ignored),
    (Some('i'), "include", Key::Ignored),
    (Some('L'), "location", Key::Ignored),
    (None, "location-trusted", Key::Ignored),
    (Some('k'), "insecure", Key::Ignored),
    (Some('l'), "list-only", Key::Ignored),
    (Some('g'), "globoff", Key::Ignored),
    (Some('G'), "get", Key::Ignored),
    (Some('N'), "buffer", Key::Ignored),
    (Some('j'), "junk-session-cookies", Key::Ignored),
    (Some('J'), "remote-header-name", Key::Ignored),
    (Some('R'), "remote-time", Key::Ignored),
    (Some('4'), "ipv4", Key::Ignored),
    (Some('6'), "ipv6", Key::Ignored),
    (Some('0'), "http1.0", Key::Ignored),
    (None, "http1.1", Key::Ignored),
    (None, "http2", Key::Ignored),
    (Some('q'), "disable", Key::Ignored),
    (Some('Z'), "parallel", Key::Ignored),
    (Some('n'), "netrc", Key::Ignored),
    (Some('a'), "append", Key::Ignored),
    (Some('B'), "use-ascii", Key::Ignored),
    (Some('p'), "proxytunnel", Key::Ignored),
    (None, "compressed", Key::Ignored),
    (None, "create-dirs", Key::Ignored),
    (None, "raw", Key::Ignored),
    (None, "tcp-nodelay", Key::Ignored),
    (None, "keepalive", Key::Ignored),
    (None, "path-as-is", Key::Ignored),
    (None, "retry-connrefused", Key::Ignored),
    (None, "retry-all-errors", Key::Ignored),
    (None, "ssl", Key::Ignored),
    (None, "tlsv1.2", Key::Ignored),
    (None, "tlsv1.3", Key::Ignored),
    (None, "trace-time", Key::Ignored),
    (None, "styled-output", Key::Ignored),
    (Some('d'), "data", Key::IgnoredArg),
    (None, "data-raw", Key::IgnoredArg),
    (None, "data-binary", Key::IgnoredArg),
    (None, "data-ascii", Key::IgnoredArg),
    (None, "data-urlencode", Key::IgnoredArg),
    (Some('H'), "header", Key::IgnoredArg),
    (Some('X'), "request", Key::IgnoredArg),
    (Some('A'), "user-agent", Key::IgnoredArg),
    (Some('u'), "user", Key::IgnoredArg),
    (Some('e'), "referer", Key::IgnoredArg),
    (Some('b'), "cookie", Key::IgnoredArg),
    (Some('c'), "cookie-jar", Key::IgnoredArg),
    (Some('x'), "proxy", Key::IgnoredArg),
    (Some('U'), "proxy-user", Key::IgnoredArg),
    (Some('T'), "upload-file", Key::IgnoredArg),
    (Some('F'), "form", Key::IgnoredArg),
    (Some('r'), "range", Key::IgnoredArg),
    (Some('C'), "continue-at", Key::IgnoredArg),
    (Some('K'), "config", Key::IgnoredArg),
    (Some('D'), "dump-header", Key::IgnoredArg),
    (Some('E'), "cert", Key::IgnoredArg),
    (Some('Q'), "quote", Key::IgnoredArg),
    (Some('t'), "telnet-option", Key::IgnoredArg),
    (Some('P'), "ftp-port", Key::IgnoredArg),
    (Some('z'), "time-cond", Key::IgnoredArg),
    (Some('Y'), "speed-limit", Key::IgnoredNum),
    (Some('y'), "speed-time", Key::IgnoredNum),
    (None, "cacert", Key::IgnoredArg),
    (None, "resolve", Key::IgnoredArg),
    (None, "interface", Key::IgnoredArg),
    (None, "trace", Key::IgnoredArg),
    (None, "trace-ascii", Key::IgnoredArg),
    (None, "stderr", Key::IgnoredArg),
    (None, "output-dir", Key::IgnoredArg),
    (None, "unix-socket", Key::IgnoredArg),
    (None, "dns-servers", Key::IgnoredArg),
    (None, "limit-rate", Key::IgnoredArg),
    (None, "max-filesize", Key::IgnoredArg),
    (Some('m'), "max-time", Key::IgnoredNum),
    (None, "connect-timeout", Key::IgnoredNum),
    (None, "retry", Key::IgnoredNum),
    (None, "retry-delay", Key::IgnoredNum),
    (None, "retry-max-time", Key::IgnoredNum),
    (None, "max-redirs", Key::IgnoredNum),
];

fn takes_arg(k: Key) -> bool {
    matches!(
        k,
        Key::Output | Key::WriteOut | Key::Url | Key::IgnoredArg | Key::IgnoredNum
    )
}

/// One URL with its output, as curl's "getout" nodes pair `-o`/`-O` with URLs in order.
#[derive(Debug, Default, Clone)]
struct Node {
    url: Option<String>,
    outfile: Option<String>,
    remote_name: bool,
}

impl Node {
    fn has_output(&self) -> bool {
        self.outfile.is_some() || self.remote_name
    }
}

#[derive(Debug, Default)]
struct Config {
    silent: bool,
    show_error: bool,
    verbose: bool,
    no_meter: bool,
    remote_name_all: bool,
    write_out: Option<String>,
    nodes: Vec<Node>,
    help: bool,
    manual: bool,
    version: bool,
}

impl Config {
    fn add_url(&mut self, url: String) {
        match self.nodes.iter_mut().find(|n| n.url.is_none()) {
            Some(n) => n.url = Some(url),
            None => self.nodes.push(Node {
                url: Some(url),
                ..Node::default()
            }),
        }
    }

    fn output_node(&mut self) -> &mut Node {
        let i = match self.nodes.iter().position(|n| !n.has_output()) {
            Some(i) => i,
            None => {
                self.nodes.push(Node::default());
                self.nodes.len() - 1
            }
        };
        &mut self.nodes[i]
    }

    fn meter(&self) -> bool {
        !self.silent && !self.no_meter
    }

    fn errors_shown(&self) -> bool {
        !self.silent || self.show_error
    }
}

/// A command-line problem: curl's `param2text` reason.
struct ParamError(&'static str);

fn apply(cfg: &mut Config, key: Key, arg: Option<String>, negated: bool) -> Result<(), ParamError> {
    match key {
        Key::Silent => cfg.silent = !negated,
        Key::ShowError => cfg.show_error = !negated,
        Key::Verbose => cfg.verbose = !negated,
        Key::ProgressBar => {}
        Key::NoProgressMeter => cfg.no_meter = !negated,
        Key::Output => cfg.output_node().outfile = arg,
        Key::RemoteName => cfg.output_node().remote_name = true,
        Key::RemoteNameAll => cfg.remote_name_all = !negated,
        Key::WriteOut => cfg.write_out = arg,
        Key::Url => cfg.add_url(arg.unwrap_or_default()),
        Key::Help => cfg.help = true,
        Key::Manual => cfg.manual = true,
        Key::Version => cfg.version = true,
        Key::Next | Key::Ignored | Key::IgnoredArg => {}
        Key::IgnoredNum => {
            let a = arg.unwrap_or_default();
            let ok = !a.is_empty() && a.bytes().all(|b| b.is_ascii_digit() || b == b'.');
            if a.starts_with('-') {
                return Err(ParamError("expected a positive numerical parameter"));
            }
            if !ok {
                return Err(ParamError("expected a proper numerical parameter"));
            }
        }
    }
    Ok(())
}

fn find_long(name: &str) -> Result<(Key, bool), ParamError> {
    // `--no-FLAG` turns a boolean off.
    let (name, negated) = match name.strip_prefix("no-") {
        Some(rest) if OPTIONS.iter().all(|o| o.1 != name) => (rest, true),
        _ => (name, false),
    };
    if let Some(o) = OPTIONS.iter().find(|o| o.1 == name) {
        return check_negation(o.2, negated);
    }
    let mut hits = OPTIONS.iter().filter(|o| o.1.starts_with(name));
    match (hits.next(), hits.next()) {
        (Some(o), None) => check_negation(o.2, negated),
        (Some(_), Some(_)) => Err(ParamError("is ambiguous")),
        _ => Err(ParamError("is unknown")),
    }
}

fn check_negation(k: Key, negated: bool) -> Result<(Key, bool), ParamError> {
    if negated && takes_arg(k) {
        return Err(ParamError(
            "the given option can't be reversed with a --no- prefix",
        ));
    }
    Ok((k, negated))
}

/// Parses the command line; on error, the argument curl names and the reason.
fn parse(args: &[String]) -> Result<Config, (String, ParamError)> {
    let mut cfg = Config::default();
    let mut i = 1;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if let Some(name) = a.strip_prefix("--").filter(|n| !n.is_empty()) {
            let (key, negated) = find_long(name).map_err(|e| (a.clone(), e))?;
            let arg = if takes_arg(key) {
                match args.get(i) {
                    Some(v) => {
                        i += 1;
                        Some(v.clone())
                    }
                    None => return Err((a.clone(), ParamError("requires parameter"))),
                }
            } else {
                None
            };
            apply(&mut cfg, key, arg, negated).map_err(|e| (a.clone(), e))?;
        } else if a.len() > 1 && a.starts_with('-') {
            let letters: Vec<char> = a[1..].chars().collect();
            let mut k = 0;
            while k < letters.len() {
                let c = letters[k];
                k += 1;
                let Some(o) = OPTIONS.iter().find(|o| o.0 == Some(c)) else {
                    return Err((a.clone(), ParamError("is unknown")));
                };
                let arg = if takes_arg(o.2) {
                    let rest: String = letters[k..].iter().collect();
                    k = letters.len();
                    if !rest.is_empty() {
                        Some(rest)
                    } else if let Some(v) = args.get(i) {
                        i += 1;
                        Some(v.clone())
                    } else {
                        return Err((a.clone(), ParamError("requires parameter")));
                    }
                } else {
                    None
                };
                apply(&mut cfg, o.2, arg, false).map_err(|e| (a.clone(), e))?;
            }
        } else {
            cfg.add_url(a.clone());
        }
    }
    Ok(cfg)
}

fn helpf(io: &mut Io, msg: Option<&str>) {
    if let Some(m) = msg {
        let _ = writeln!(io.err, "curl: {m}");
    }
    let _ = writeln!(
        io.err,
        "curl: try 'curl --help' or 'curl --manual' for more information"
    );
}

pub fn run(args: &[String], io: &mut Io) -> i32 {
    let cfg = match parse(args) {
        Ok(c) => c,
        Err((opt, ParamError(reason))) => {
            helpf(io, Some(&format!("option {opt}: {reason}")));
            return FAILED_INIT;
        }
    };
    if cfg.help {
        let _ = io.out.write_all(HELP.as_bytes());
        return 0;
    }
    if cfg.manual {
        let _ = writeln!(io.out, "curl: built-in manual was disabled at build-time!");
        return 0;
    }
    if cfg.version {
        let _ = io.out.write_all(VERSION.as_bytes());
        return 0;
    }
    let urls: Vec<Node> = cfg
        .nodes
        .iter()
        .filter(|n| n.url.is_some())
        .cloned()
        .collect();
    if urls.is_empty() {
        helpf(io, Some("no URL specified!"));
        return FAILED_INIT;
    }
    let mut status = 0;
    for node in &urls {
        status = transfer(&cfg, node, io);
    }
    status
}

/// A URL taken apart as far as curl needs: scheme, host, port, path.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Url {
    scheme: String,
    host: String,
    port: u16,
    path: String,
}

impl Url {
    /// What `%{url_effective}` prints: the normalised URL.
    fn effective(&self) -> String {
        if self.scheme == "file" {
            return format!("file://{}", self.path);
        }
        let default = PROTOCOLS
            .iter()
            .find(|p| p.0 == self.scheme)
            .map_or(0, |p| p.1);
        let host = if self.host.contains(':') {
            format!("[{}]", self.host)
        } else {
            self.host.clone()
        };
        let port = if self.port == default {
            String::new()
        } else {
            format!(":{}", self.port)
        };
        format!("{}://{host}{port}{}", self.scheme, self.path)
    }
}

/// Why a URL is rejected before any connection: (exit code, message).
type UrlError = (i32, String);

fn bad_url() -> UrlError {
    (
        URL_MALFORMAT,
        "URL using bad/illegal format or missing URL".to_string(),
    )
}

/// Parses a URL like libcurl's `curl_url` with scheme guessing: no scheme means `http`
/// (`ftp` for hosts starting `ftp.`).
fn parse_url(raw: &str) -> Result<Url, UrlError> {
    let (scheme, rest) = match raw.find("://") {
        Some(p)
            if p > 0
                && raw[..p]
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b)) =>
        {
            (raw[..p].to_ascii_lowercase(), &raw[p + 3..])
        }
        _ => {
            let guess = if raw.to_ascii_lowercase().starts_with("ftp.") {
                "ftp"
            } else {
                "http"
            };
            (guess.to_string(), raw)
        }
    };
    let Some(&(_, default_port)) = PROTOCOLS.iter().find(|p| p.0 == scheme) else {
        return Err((
            UNSUPPORTED_PROTOCOL,
            format!(
                "Protocol \"{}\" not supported or disabled in libcurl",
                &raw[..raw.find("://").unwrap_or(0)]
            ),
        ));
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let path = match tail.split(['?', '#']).next() {
        Some(p) if !p.is_empty() => p.to_string(),
        _ => "/".to_string(),
    };
    if scheme == "file" {
        if !authority.is_empty() && !authority.eq_ignore_ascii_case("localhost") {
            return Err(bad_url());
        }
        return Ok(Url {
            scheme,
            host: String::new(),
            port: 0,
            path,
        });
    }
    let hostport = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let (host, port) = if let Some(v6) = hostport.strip_prefix('[') {
        let Some((h, after)) = v6.split_once(']') else {
            return Err(bad_url());
        };
        if h.parse::<std::net::Ipv6Addr>().is_err() {
            return Err(bad_url());
        }
        (h.to_string(), after.strip_prefix(':'))
    } else {
        match hostport.split_once(':') {
            Some((h, p)) => (h.to_string(), Some(p)),
            None => (hostport.to_string(), None),
        }
    };
    let port = match port {
        None | Some("") => default_port,
        Some(p) => match p.parse::<u32>() {
            Ok(n) if p.bytes().all(|b| b.is_ascii_digit()) && n <= 65535 => n as u16,
            _ => return Err(bad_url()),
        },
    };
    let host_ok = !host.is_empty()
        && !host
            .bytes()
            .any(|b| b <= b' ' || b"\"<>\\^`{|}/?#@".contains(&b) || b == 0x7f);
    if !host_ok {
        return Err(bad_url());
    }
    Ok(Url {
        scheme,
        host,
        port,
        path,
    })
}

/// The file name `-O` derives from a URL: what follows its last `/` (query included, as in
/// 7.81).
fn remote_file_name(raw: &str) -> String {
    let rest = raw.find("://").map_or(raw, |p| &raw[p + 3..]);
    match rest.rfind(['/', '\\']) {
        Some(p) => rest[p + 1..].to_string(),
        None => String::new(),
    }
}

const METER_HEADER: &str = "  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current\n                                 Dload  Upload   Total   Spent    Left  Speed\n";

/// One progress-meter line (leading `\r`, no newline), curl's column layout.
fn meter_line(total: u64, got: u64, speed: u64) -> String {
    let pct = |part: u64| (part * 100).checked_div(total).unwrap_or(0);
    format!(
        "\r{:>3} {:>5}  {:>3} {:>5}    0     0  {:>5}      0 --:--:-- --:--:-- --:--:-- {:>5}",
        pct(got),
        size5(total),
        pct(got),
        size5(got),
        size5(speed),
        size5(speed)
    )
}

/// curl's 5-column size: bytes below 100000, then whole `k`, `M` with one decimal below
/// 100, whole `M`, and so on.
fn size5(n: u64) -> String {
    const K: u64 = 1024;
    const M: u64 = K * K;
    const G: u64 = M * K;
    if n < 100_000 {
        n.to_string()
    } else if n < 10_000 * K {
        format!("{}k", n / K)
    } else if n < 100 * M {
        format!("{}.{}M", n / M, n % M / (M / 10))
    } else if n < 10_000 * M {
        format!("{}M", n / M)
    } else if n < 100 * G {
        format!("{}.{}G", n / G, n % G / (G / 10))
    } else if n < 10_000 * G {
        format!("{}G", n / G)
    } else {
        format!("{}T", n / (G * K))
    }
}

/// What one transfer ended with, for the error line and `--write-out`.
struct Outcome {
    code: i32,
    message: String,
    url_effective: String,
    size: u64,
    filename: String,
}

fn transfer(cfg: &Config, node: &Node, io: &mut Io) -> i32 {
    let raw = node.url.clone().unwrap_or_default();
    let mut outfile = node.outfile.clone();
    if outfile.is_none() && (node.remote_name || cfg.remote_name_all) {
        let name = remote_file_name(&raw);
        if name.is_empty() {
            if !cfg.silent {
                let _ = writeln!(io.err, "curl: Remote file name has no length!");
            }
            return finish(
                cfg,
                io,
                Outcome {
                    code: WRITE_ERROR,
                    message: "Failed writing received data to disk/application".into(),
                    url_effective: raw,
                    size: 0,
                    filename: String::new(),
                },
                false,
            );
        }
        outfile = Some(name);
    }
    let outcome = match parse_url(&raw) {
        Err((code, message)) => Outcome {
            code,
            message,
            url_effective: raw.clone(),
            size: 0,
            filename: outfile.clone().unwrap_or_default(),
        },
        Ok(url) if url.scheme == "file" => {
            return file_transfer(cfg, &url, outfile.as_deref(), io);
        }
        Ok(url) => {
            let o = network_transfer(cfg, &url, io);
            Outcome {
                filename: outfile.clone().unwrap_or_default(),
                ..o
            }
        }
    };
    finish(cfg, io, outcome, false)
}

/// Prints the error line and `--write-out`; returns the exit code.
fn finish(cfg: &Config, io: &mut Io, o: Outcome, meter_open: bool) -> i32 {
    if meter_open {
        let _ = writeln!(io.err);
    }
    if o.code != 0 && cfg.errors_shown() {
        let _ = writeln!(io.err, "curl: ({}) {}", o.code, o.message);
    }
    if let Some(fmt) = &cfg.write_out {
        write_out(fmt, &o, io);
    }
    o.code
}

/// The refused/unreachable transfer: resolve, then try each address.
fn network_transfer(cfg: &Config, url: &Url, io: &mut Io) -> Outcome {
    let meter = cfg.meter();
    if meter {
        let _ = write!(io.err, "{METER_HEADER}{}", meter_line(0, 0, 0));
    }
    let fail = |code, message: String| Outcome {
        code,
        message,
        url_effective: url.effective(),
        size: 0,
        filename: String::new(),
    };
    // curl answers `localhost` itself (loopback, IPv6 first); other names go to the resolver.
    let addrs: Vec<IpAddr> = if url.host.eq_ignore_ascii_case("localhost")
        || url.host.to_ascii_lowercase().ends_with(".localhost")
    {
        vec![world::LOOPBACK_V6, world::LOOPBACK_V4]
    } else {
        world::resolve(&url.host, Family::Any)
    };
    if addrs.is_empty() {
        let message = format!("Could not resolve host: {}", url.host);
        if cfg.verbose {
            let _ = writeln!(io.err, "* {message}\n* Closing connection 0");
        }
        return fail(COULDNT_RESOLVE_HOST, message);
    }
    let mut last = Reach::Unreachable;
    for a in &addrs {
        last = world::reach(a);
        if cfg.verbose {
            let shown = match a {
                IpAddr::V6(v6) => v6.to_string(),
                IpAddr::V4(v4) => v4.to_string(),
            };
            let _ = writeln!(io.err, "*   Trying {shown}:{}...", url.port);
            let why = world::reach_error(last);
            match last {
                Reach::Unreachable => {
                    let _ = writeln!(io.err, "* Immediate connect fail for {shown}: {why}");
                }
                Reach::Refused => {
                    let _ = writeln!(
                        io.err,
                        "* connect to {shown} port {} failed: {why}",
                        url.port
                    );
                }
            }
        }
    }
    let message = format!(
        "Failed to connect to {} port {} after 0 ms: {}",
        url.host,
        url.port,
        world::reach_error(last)
    );
    if cfg.verbose {
        let _ = writeln!(io.err, "* {message}");
    }
    if meter {
        let _ = writeln!(io.err, "{}", meter_line(0, 0, 0));
    }
    if cfg.verbose {
        let _ = writeln!(io.err, "* Closing connection 0");
    }
    fail(COULDNT_CONNECT, message)
}

/// `file://`: the one scheme that works offline.
fn file_transfer(cfg: &Config, url: &Url, outfile: Option<&str>, io: &mut Io) -> i32 {
    let data = std::fs::read(&url.path);
    let mut o = Outcome {
        code: 0,
        message: String::new(),
        url_effective: url.effective(),
        size: 0,
        filename: outfile.unwrap_or_default().to_string(),
    };
    let data = match data {
        Ok(d) => d,
        Err(_) => {
            o.code = FILE_COULDNT_READ_FILE;
            o.message = format!("Couldn't open file {}", url.path);
            return finish(cfg, io, o, false);
        }
    };
    let n = data.len() as u64;
    o.size = n;
    if cfg.meter() {
        // A local read takes no measurable time; report it as one millisecond's worth.
        let _ = write!(
            io.err,
            "{METER_HEADER}{}{}",
            meter_line(0, 0, 0),
            meter_line(n, n, n * 1000)
        );
    }
    let written = match outfile {
        Some(path) if path != "-" => std::fs::write(path, &data).is_ok(),
        _ => io.out.write_all(&data).is_ok(),
    };
    if cfg.meter() {
        let _ = writeln!(io.err);
    }
    if !written {
        o.code = WRITE_ERROR;
        o.message = "Failed writing body".into();
        if cfg.errors_shown() {
            let _ = writeln!(io.err, "curl: (23) Failed writing body");
        }
        if let Some(fmt) = &cfg.write_out {
            write_out(fmt, &o, io);
        }
        return o.code;
    }
    finish(cfg, io, o, false)
}

/// `--write-out`: curl's `%{variable}` and backslash escapes.
fn write_out(fmt: &str, o: &Outcome, io: &mut Io) {
    let mut to_err = false;
    let mut out = Vec::new();
    let mut err = Vec::new();
    let bytes = fmt.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let sink = if to_err { &mut err } else { &mut out };
        let c = bytes[i];
        if c == b'%' && i + 1 < bytes.len() {
            if bytes[i + 1] == b'%' {
                sink.push(b'%');
                i += 2;
            } else if bytes[i + 1] == b'{' {
                let Some(close) = fmt[i..].find('}') else {
                    sink.extend_from_slice(b"%{");
                    i += 2;
                    continue;
                };
                let name = &fmt[i + 2..i + close];
                i += close + 1;
                match name.to_ascii_lowercase().as_str() {
                    "stderr" => to_err = true,
                    "stdout" => to_err = false,
                    "onerror" => {
                        if o.code == 0 {
                            break;
                        }
                    }
                    v => match variable(v, o) {
                        Some(s) => sink.extend_from_slice(s.as_bytes()),
                        None => {
                            let _ = io.out.write_all(&out);
                            out.clear();
                            let _ =
                                writeln!(io.err, "curl: unknown --write-out variable: '{name}'");
                        }
                    },
                }
            } else {
                sink.extend_from_slice(&bytes[i..i + 2]);
                i += 2;
            }
        } else if c == b'\\' && i + 1 < bytes.len() {
            match bytes[i + 1] {
                b'n' => sink.push(b'\n'),
                b'r' => sink.push(b'\r'),
                b't' => sink.push(b'\t'),
                other => sink.extend_from_slice(&[b'\\', other]),
            }
            i += 2;
        } else {
            sink.push(c);
            i += 1;
        }
    }
    let _ = io.out.write_all(&out);
    let _ = io.err.write_all(&err);
}

fn variable(name: &str, o: &Outcome) -> Option<String> {
    Some(match name {
        "http_code" | "response_code" | "http_connect" => "000".into(),
        "exitcode" => o.code.to_string(),
        "errormsg" => o.message.clone(),
        "url_effective" => o.url_effective.clone(),
        "url" => o.url_effective.clone(),
        "filename_effective" => o.filename.clone(),
        "size_download" => o.size.to_string(),
        "speed_download" => (o.size * 1000).to_string(),
        "size_upload"
        | "size_header"
        | "size_request"
        | "speed_upload"
        | "num_connects"
        | "num_redirects"
        | "num_headers"
        | "ssl_verify_result"
        | "proxy_ssl_verify_result"
        | "remote_port"
        | "local_port" => "0".into(),
        "content_type" | "remote_ip" | "local_ip" | "redirect_url" | "referer"
        | "ftp_entry_path" | "scheme" | "method" => String::new(),
        "http_version" => "0".into(),
        "urlnum" => "0".into(),
        "time_total" | "time_namelookup" | "time_connect" | "time_appconnect"
        | "time_pretransfer" | "time_starttransfer" | "time_redirect" => "0.000000".into(),
        "json" => format!(
            "{{\"exitcode\":{},\"errormsg\":\"{}\",\"http_code\":0,\"url_effective\":\"{}\"}}",
            o.code, o.message, o.url_effective
        ),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(args: &[&str]) -> (i32, String, String) {
        let argv: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        crate::common::io::capture_text(run, &argv, b"")
    }

    #[test]
    fn url_parsing() {
        let u = parse_url("example.com").unwrap();
        assert_eq!(
            (u.scheme.as_str(), u.port, u.path.as_str()),
            ("http", 80, "/")
        );
        assert_eq!(parse_url("https://[::1]:8443/x?y").unwrap().port, 8443);
        assert_eq!(parse_url("ftp.gnu.org/x").unwrap().scheme, "ftp");
        assert_eq!(parse_url("http://").unwrap_err().0, URL_MALFORMAT);
        assert_eq!(parse_url("http://a:99999/").unwrap_err().0, URL_MALFORMAT);
        assert_eq!(parse_url("foo://bar").unwrap_err().0, UNSUPPORTED_PROTOCOL);
        assert_eq!(remote_file_name("http://example.com/a/b.txt"), "b.txt");
        assert_eq!(remote_file_name("http://example.com"), "");
    }

    #[test]
    fn sizes_like_curl() {
        assert_eq!(size5(1256), "1256");
        assert_eq!(size5(115_000), "112k");
        assert_eq!(size5(3_000_000), "2929k");
    }

    #[test]
    fn usage_errors() {
        assert_eq!(
            call(&["curl"]),
            (
                2,
                String::new(),
                "curl: no URL specified!\ncurl: try 'curl --help' or 'curl --manual' for more information\n".into()
            )
        );
        assert_eq!(
            call(&["curl", "-sW"]).2.lines().next(),
            Some("curl: option -sW: is unknown")
        );
    }
}
