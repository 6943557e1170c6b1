//! The executor: lists, and-or lists, pipelines, simple and compound commands, redirections.
//!
//! There is no fork on WASI. Wherever bash forks a copy of itself (a pipeline stage that is a
//! builtin, function or compound command, `( )`, `$( )`, `&`), we start a fresh shell instance
//! through the host and hand it a prelude script that recreates our variables, functions,
//! options and positional parameters, followed by the command's text. External commands are
//! started directly with their stdio wired to host pipes and files.

use crate::dialect::Dialect;
use crate::error::{ExpandError, error_text};
use crate::state::{Flow, MAX_DEPTH, Shell};
use brush_parser::ast::{self, Command, CompoundCommand, IoFileRedirectKind, IoRedirect};
use hostcalls::{Handle, OpenFlags, SpawnRequest};
use std::rc::Rc;

/// Restores the descriptor table after a command whose redirections were temporary.
pub struct Saved {
    entries: Vec<(i32, Option<Handle>)>,
    opened: Vec<Handle>,
}

/// Where a stage's command ends up running.
enum Resolved {
    Builtin,
    Function(Rc<ast::FunctionDefinition>),
    External(Vec<String>),
    NotFound(i32, String),
}

impl Shell {
    pub fn run_program(&mut self, program: &ast::Program) -> i32 {
        // Only the script bash was started with ends in a command run in bash's own place.
        let tail_allowed = std::mem::take(&mut self.oneshot_allowed);
        let n = program.complete_commands.len();
        for (i, cc) in program.complete_commands.iter().enumerate() {
            self.run_list_at(cc, tail_allowed && i + 1 == n);
            if self.flow == Flow::Discard {
                self.last_status = 1;
                // bash's reader drops the command and goes on with the next one; a subshell
                // (a pipeline stage, `( … )`, a substitution) ends instead.
                if !self.in_subshell {
                    self.flow = Flow::Normal;
                    continue;
                }
            }
            if self.flow != Flow::Normal {
                break;
            }
        }
        self.last_status
    }

    pub fn run_list(&mut self, list: &ast::CompoundList) -> i32 {
        self.run_list_at(list, false)
    }

    /// `tail`: this list ends the script, so its last command is the script's last.
    fn run_list_at(&mut self, list: &ast::CompoundList, tail: bool) -> i32 {
        let n = list.0.len();
        for (i, item) in list.0.iter().enumerate() {
            let ast::CompoundListItem(and_or, sep) = item;
            if matches!(sep, ast::SeparatorOperator::Async) {
                self.run_background(and_or);
            } else {
                self.run_and_or(and_or, tail && i + 1 == n);
                self.reap_finished_jobs();
            }
            if self.flow != Flow::Normal {
                break;
            }
        }
        self.last_status
    }

    fn run_background(&mut self, and_or: &ast::AndOrList) {
        let text = crate::script_text::and_or(and_or);
        let stdio = [
            self.fd(0).unwrap_or(0),
            self.fd(1).unwrap_or(1),
            self.fd(2).unwrap_or(2),
        ];
        // One simple command runs as the job itself, not in a subshell that waits for it:
        // bash's forked child execs it, so `$!` is the command's pid and `kill $!` ends it.
        if and_or.additional.is_empty()
            && !and_or.first.bang
            && let [stage @ Command::Simple(_)] = and_or.first.seq.as_slice()
        {
            let (pid, _) = self.start_stage(stage, stdio);
            if let Some(pid) = pid {
                self.last_bg_pid = Some(pid);
                self.add_job(pid, text);
            }
            self.last_status = 0;
            return;
        }
        match self.spawn_subshell(&text, stdio) {
            Ok(pid) => {
                self.last_bg_pid = Some(pid);
                self.add_job(pid, text);
                self.last_status = 0;
            }
            Err(e) => {
                self.error(&format!("fork: {}", error_text(&e)));
                self.last_status = 254;
            }
        }
    }

    fn run_and_or(&mut self, ao: &ast::AndOrList, tail: bool) -> i32 {
        // `set -e` and the `ERR` trap ignore failures of all but the last pipeline of an
        // and-or list: `false && true` fails quietly.
        let has_more = !ao.additional.is_empty();
        let mut suppressed = has_more;
        if suppressed {
            self.errexit_suppressed += 1;
        }
        let mut status = self.run_pipeline_at(&ao.first, tail && !has_more);
        let mut final_run = (!has_more).then_some(&ao.first);
        for (i, next) in ao.additional.iter().enumerate() {
            if self.flow != Flow::Normal {
                break;
            }
            let (pipeline, runs) = match next {
                ast::AndOr::And(p) => (p, status == 0),
                ast::AndOr::Or(p) => (p, status != 0),
            };
            if !runs {
                continue;
            }
            let last = i + 1 == ao.additional.len();
            if last {
                self.errexit_suppressed -= 1;
                suppressed = false;
                final_run = Some(pipeline);
            }
            status = self.run_pipeline_at(pipeline, tail && last);
        }
        if suppressed {
            self.errexit_suppressed -= 1;
        }
        if let Some(last) = final_run {
            // The trap runs for a simple command's failure, not a negated one's.
            if status != 0
                && self.errexit_suppressed == 0
                && self.flow == Flow::Normal
                && !last.bang
                && matches!(last.seq.last(), Some(Command::Simple(_)))
            {
                self.run_err_trap(status);
            }
            if !last.bang {
                self.check_errexit(status);
            }
        }
        status
    }

    fn check_errexit(&mut self, status: i32) {
        if status != 0
            && self.options.errexit
            && self.errexit_suppressed == 0
            && self.flow == Flow::Normal
        {
            self.flow = Flow::Exit;
            self.exit_code = Some(status);
        }
    }

    /// `tail`: the pipeline is the script's last; a lone simple command there is one bash
    /// runs in its own place (see [`Shell::oneshot`]).
    fn run_pipeline_at(&mut self, p: &ast::Pipeline, tail: bool) -> i32 {
        let Some(timed) = &p.timed else {
            return self.run_untimed_pipeline(p, tail);
        };
        let started = std::time::Instant::now();
        // bash stays to report the time: the last command does not replace it.
        let status = self.run_untimed_pipeline(p, false);
        let format = match (self.get_scalar("TIMEFORMAT"), timed) {
            (_, ast::PipelineTimed::TimedWithPosixOutput(_)) => {
                crate::timing::POSIX_FORMAT.to_string()
            }
            (Some(format), _) => format,
            (None, _) => crate::timing::DEFAULT_FORMAT.to_string(),
        };
        // An empty TIMEFORMAT reports nothing.
        if !format.is_empty() {
            self.err(&crate::timing::report(&format, started.elapsed()));
        }
        status
    }

    fn run_untimed_pipeline(&mut self, p: &ast::Pipeline, tail: bool) -> i32 {
        if p.bang {
            self.errexit_suppressed += 1;
        }
        let status = if p.seq.len() == 1 {
            self.oneshot = tail && !p.bang && matches!(p.seq[0], Command::Simple(_));
            let s = self.run_command(&p.seq[0]);
            self.oneshot = false;
            self.pipestatus = vec![s];
            s
        } else {
            self.run_multi_stage(&p.seq)
        };
        if p.bang {
            self.errexit_suppressed -= 1;
        }
        let status = if p.bang { (status == 0) as i32 } else { status };
        self.last_status = status;
        status
    }

    /// Runs every stage concurrently, each in its own instance, connected by host pipes.
    fn run_multi_stage(&mut self, stages: &[Command]) -> i32 {
        let n = stages.len();
        let mut pids: Vec<Option<u32>> = Vec::with_capacity(n);
        let mut early: Vec<i32> = vec![0; n];
        let mut prev_read: Option<Handle> = None;
        for (i, stage) in stages.iter().enumerate() {
            let (read_end, write_end) = if i + 1 < n {
                match hostcalls::pipe() {
                    Ok((r, w)) => (Some(r), Some(w)),
                    Err(e) => {
                        self.error(&format!("pipe error: {}", error_text(&e)));
                        break;
                    }
                }
            } else {
                (None, None)
            };
            let stdin = prev_read.unwrap_or_else(|| self.fd(0).unwrap_or(0));
            let stdout = write_end.unwrap_or_else(|| self.fd(1).unwrap_or(1));
            let stderr = self.fd(2).unwrap_or(2);
            let (pid, status) = self.start_stage(stage, [stdin, stdout, stderr]);
            pids.push(pid);
            early[i] = status;
            if let Some(r) = prev_read {
                let _ = hostcalls::close(r);
            }
            if let Some(w) = write_end {
                let _ = hostcalls::close(w);
            }
            prev_read = read_end;
        }
        if let Some(r) = prev_read {
            let _ = hostcalls::close(r);
        }
        let mut statuses = Vec::with_capacity(n);
        for (i, pid) in pids.iter().enumerate() {
            let s = match pid {
                Some(pid) => hostcalls::wait(*pid).unwrap_or(127),
                None => early[i],
            };
            statuses.push(s);
        }
        // Stages are expanded here, in the parent: their `<( )` files and `>( )` readers are
        // this shell's to finish once every stage has ended.
        if !self.pending_cleanup.is_empty() || !self.pending_writers.is_empty() {
            self.finish_process_substitutions();
        }
        let status = if self.options.pipefail {
            statuses
                .iter()
                .rev()
                .find(|s| **s != 0)
                .copied()
                .unwrap_or(0)
        } else {
            statuses.last().copied().unwrap_or(0)
        };
        self.pipestatus = statuses;
        status
    }

    /// Starts one pipeline stage with the given stdio; returns its pid, or the status of a
    /// stage that ended before starting (command not found, redirection error).
    fn start_stage(&mut self, stage: &Command, stdio: [Handle; 3]) -> (Option<u32>, i32) {
        // The stage's subshell counts its lines from this one.
        if let Command::Simple(sc) = stage
            && let Some(line) = command_line(sc, self.dialect)
        {
            self.line = line;
        }
        if let Command::Simple(sc) = stage
            && self.names_external_command(sc)
        {
            // Expand in the parent; external commands are started directly.
            let saved_fds = self.fds.clone();
            self.fds.insert(0, stdio[0]);
            self.fds.insert(1, stdio[1]);
            self.fds.insert(2, stdio[2]);
            let result = self.prepare_simple(sc, false);
            let out = match result {
                Ok(Prepared {
                    argv,
                    assignments,
                    redirects,
                }) if !argv.is_empty() => match self.resolve(&argv) {
                    Resolved::External(real_argv) => match self.apply_redirects(&redirects) {
                        Ok(saved) => {
                            self.trace_command(&argv);
                            let env = self.child_env(&assignments_env(&assignments));
                            // bash forks a subshell for the stage, which then runs the
                            // program in its own place: the program sees SHLVL one lower.
                            self.oneshot = true;
                            let r = self.spawn_external(real_argv, env);
                            self.oneshot = false;
                            self.restore(saved);
                            match r {
                                Ok(pid) => (Some(pid), 0),
                                Err(status) => (None, status),
                            }
                        }
                        Err(status) => (None, status),
                    },
                    // The error goes where the stage's own redirections send stderr
                    // (`missing 2>/dev/null` prints nothing), as in bash.
                    Resolved::NotFound(status, msg) => match self.apply_redirects(&redirects) {
                        Ok(saved) => {
                            self.error(&msg);
                            self.restore(saved);
                            (None, status)
                        }
                        Err(s) => (None, s),
                    },
                    _ => self.fork_stage(stage, stdio),
                },
                Ok(_) => self.fork_stage(stage, stdio),
                Err(status) => (None, status),
            };
            self.fds = saved_fds;
            // bash expands a stage in its forked child: a command dropped there ends that
            // child alone, with status 1.
            if self.flow == Flow::Discard {
                self.flow = Flow::Normal;
                return (None, 1);
            }
            return out;
        }
        self.fork_stage(stage, stdio)
    }

    /// A stage is expanded here and its program started directly only when its command
    /// name, as written, can name nothing but a program: a stage that turns out to be a
    /// builtin, a function or assignments runs in a subshell that expands it itself, and
    /// expanding it here too would run its command substitutions twice.
    fn names_external_command(&self, sc: &ast::SimpleCommand) -> bool {
        let Some(name) = &sc.word_or_name else {
            return false;
        };
        let literal = !name.value.is_empty()
            && !name
                .value
                .contains(['$', '`', '\'', '"', '\\', '*', '?', '[', '{', '~', '(', '=']);
        literal
            && !(crate::builtins::is_builtin(&name.value) && self.dialect.has_builtin(&name.value))
            && !self.functions.contains_key(&name.value)
    }

    fn fork_stage(&mut self, stage: &Command, stdio: [Handle; 3]) -> (Option<u32>, i32) {
        match self.spawn_subshell(&crate::script_text::command(stage), stdio) {
            Ok(pid) => (Some(pid), 0),
            Err(e) => {
                self.error(&format!("fork: {}", error_text(&e)));
                (None, 254)
            }
        }
    }

    pub fn run_command(&mut self, cmd: &Command) -> i32 {
        let status = match cmd {
            Command::Simple(sc) => self.run_simple(sc),
            Command::Compound(cc, redirects) => {
                let redirects: Vec<IoRedirect> =
                    redirects.as_ref().map(|r| r.0.clone()).unwrap_or_default();
                match self.apply_redirects(&redirects) {
                    Ok(saved) => {
                        let s = self.run_compound(cc);
                        self.restore(saved);
                        s
                    }
                    Err(s) => s,
                }
            }
            Command::Function(def) => {
                let name = def.fname.value.clone();
                let source = match (&self.function_source, &self.definition_source) {
                    (Some(inside), _) => inside.clone(),
                    (None, Some(top)) => top.clone(),
                    (None, None) => self.name.as_str().into(),
                };
                self.function_sources.insert(name.clone(), source);
                self.function_line_base.insert(name.clone(), self.line_base);
                match self.definition_text(def) {
                    Some(text) => self.function_texts.insert(name.clone(), text),
                    None => self.function_texts.remove(&name),
                };
                self.functions.insert(name, Rc::new(def.clone()));
                0
            }
            Command::ExtendedTest(test, redirects) => {
                let redirects: Vec<IoRedirect> =
                    redirects.as_ref().map(|r| r.0.clone()).unwrap_or_default();
                match self.apply_redirects(&redirects) {
                    Ok(saved) => {
                        let s = match self.eval_extended_test(&test.expr) {
                            Ok(true) => 0,
                            Ok(false) => 1,
                            Err(e) => {
                                self.error(&e.0);
                                2
                            }
                        };
                        self.restore(saved);
                        s
                    }
                    Err(s) => s,
                }
            }
        };
        self.last_status = status;
        status
    }

    fn run_compound(&mut self, cc: &CompoundCommand) -> i32 {
        let is_loop = matches!(
            cc,
            CompoundCommand::ForClause(_)
                | CompoundCommand::ArithmeticForClause(_)
                | CompoundCommand::WhileClause(_)
                | CompoundCommand::UntilClause(_)
        );
        if !is_loop {
            return self.run_compound_inner(cc);
        }
        self.loop_depth += 1;
        let status = self.run_compound_inner(cc);
        self.loop_depth -= 1;
        // `break 5` in two loops leaves both, and no more.
        if self.loop_depth == 0 && matches!(self.flow, Flow::Break(_) | Flow::Continue(_)) {
            self.flow = Flow::Normal;
        }
        status
    }

    fn run_compound_inner(&mut self, cc: &CompoundCommand) -> i32 {
        match cc {
            CompoundCommand::BraceGroup(g) => self.run_list(&g.list),
            CompoundCommand::Subshell(s) => {
                let stdio = [
                    self.fd(0).unwrap_or(0),
                    self.fd(1).unwrap_or(1),
                    self.fd(2).unwrap_or(2),
                ];
                let (text, first_line) = self.subshell_text(s);
                match self.spawn_subshell_at(&text, stdio, first_line) {
                    Ok(pid) => hostcalls::wait(pid).unwrap_or(127),
                    Err(e) => {
                        self.error(&format!("fork: {}", error_text(&e)));
                        254
                    }
                }
            }
            CompoundCommand::IfClause(c) => {
                self.errexit_suppressed += 1;
                let cond = self.run_list(&c.condition);
                self.errexit_suppressed -= 1;
                if self.flow != Flow::Normal {
                    return self.last_status;
                }
                if cond == 0 {
                    return self.run_list(&c.then);
                }
                for e in c.elses.iter().flatten() {
                    match &e.condition {
                        Some(cond) => {
                            self.errexit_suppressed += 1;
                            let s = self.run_list(cond);
                            self.errexit_suppressed -= 1;
                            if self.flow != Flow::Normal {
                                return self.last_status;
                            }
                            if s == 0 {
                                return self.run_list(&e.body);
                            }
                        }
                        None => return self.run_list(&e.body),
                    }
                }
                self.last_status = 0;
                0
            }
            CompoundCommand::ForClause(f) => {
                let values = match &f.values {
                    Some(words) => {
                        let raw: Vec<String> = words.iter().map(|w| w.value.clone()).collect();
                        match self.expand_words(&raw) {
                            Ok(v) => v,
                            Err(e) => return self.expansion_failed(e),
                        }
                    }
                    None => self.positional.clone(),
                };
                let mut status = 0;
                // `set -x` shows the words as written, before each pass.
                let header = f.values.as_ref().map(|words| {
                    let raw: Vec<&str> = words.iter().map(|w| w.value.as_str()).collect();
                    format!("for {} in {}", f.variable_name, raw.join(" "))
                });
                for v in values {
                    if let Some(header) = &header {
                        self.trace(header);
                    }
                    if let Err(e) = self.set_value(&f.variable_name, crate::state::Value::Scalar(v))
                    {
                        self.error(&e);
                        return 1;
                    }
                    status = self.run_list(&f.body.list);
                    if self.loop_control() {
                        break;
                    }
                }
                status
            }
            CompoundCommand::ArithmeticForClause(f) => {
                // Like `(( ))`, an error fails the loop with `((: …`, not the script.
                let failed = |shell: &mut Self, e: ExpandError| {
                    shell.error(&format!("((: {}", e.0));
                    1
                };
                if let Some(init) = &f.initializer
                    && let Err(e) = self.eval_arith_command(&init.value)
                {
                    return failed(self, e);
                }
                let mut status = 0;
                loop {
                    if let Some(cond) = &f.condition {
                        match self.eval_arith_command(&cond.value) {
                            Ok(0) => break,
                            Ok(_) => {}
                            Err(e) => return failed(self, e),
                        }
                    }
                    status = self.run_list(&f.body.list);
                    if self.loop_control() {
                        break;
                    }
                    if let Some(up) = &f.updater
                        && let Err(e) = self.eval_arith_command(&up.value)
                    {
                        return failed(self, e);
                    }
                }
                status
            }
            CompoundCommand::WhileClause(w) | CompoundCommand::UntilClause(w) => {
                let until = matches!(cc, CompoundCommand::UntilClause(_));
                let mut status = 0;
                loop {
                    self.errexit_suppressed += 1;
                    let c = self.run_list(&w.0);
                    self.errexit_suppressed -= 1;
                    if self.flow != Flow::Normal {
                        break;
                    }
                    if (c == 0) == until {
                        break;
                    }
                    status = self.run_list(&w.1.list);
                    if self.loop_control() {
                        break;
                    }
                }
                self.last_status = status;
                status
            }
            CompoundCommand::CaseClause(c) => {
                self.trace(&format!("case {} in", c.value.value));
                let value = match self.expand_single(&c.value.value) {
                    Ok(v) => v,
                    Err(e) => return self.expansion_failed(e),
                };
                let mut status = 0;
                let mut fall_through = false;
                for item in &c.cases {
                    let mut matched = fall_through;
                    if !matched {
                        for p in &item.patterns {
                            match self.expand_pattern(&p.value) {
                                Ok(pat) if crate::glob::matches(&pat, &value) => {
                                    matched = true;
                                    break;
                                }
                                Ok(_) => {}
                                Err(e) => return self.expansion_failed(e),
                            }
                        }
                    }
                    if !matched {
                        continue;
                    }
                    if let Some(cmd) = &item.cmd {
                        status = self.run_list(cmd);
                    }
                    match item.post_action {
                        ast::CaseItemPostAction::ExitCase => break,
                        ast::CaseItemPostAction::UnconditionallyExecuteNextCaseItem => {
                            fall_through = true
                        }
                        ast::CaseItemPostAction::ContinueEvaluatingCases => fall_through = false,
                    }
                }
                self.last_status = status;
                status
            }
            // An error in `(( ))` fails the command, not the shell, as bash's `((: …` does.
            CompoundCommand::Arithmetic(a) => {
                match self.eval_arith_command(&self.arithmetic_text(a)) {
                    Ok(v) => (v == 0) as i32,
                    Err(e) if self.unset_parameter_failed => self.expansion_failed(e),
                    Err(e) => {
                        self.error(&format!("((: {}", e.0));
                        1
                    }
                }
            }
            CompoundCommand::Coprocess(_) => {
                self.error("coproc: not supported in this sandbox");
                1
            }
        }
    }

    /// Writes `set -x`'s line for `text` (PS4 first) when the option is on.
    pub fn trace(&self, text: &str) {
        if self.options.xtrace && !self.in_prelude {
            let ps4 = self.get_scalar("PS4").unwrap_or_else(|| "+ ".into());
            let deeper: String = ps4.chars().take(1).cycle().take(self.trace_level).collect();
            self.err(&format!("{deeper}{ps4}{text}\n"));
        }
    }

    /// `set -x`'s line for a command about to run, its words quoted where needed.
    fn trace_command(&self, argv: &[String]) {
        if self.options.xtrace {
            let line: Vec<String> = argv.iter().map(|a| crate::quote::xtrace_quote(a)).collect();
            self.trace(&line.join(" "));
        }
    }

    /// Starts a substitution's subshell one `set -x` level deeper.
    fn spawn_substitution(&mut self, script: &str, stdio: [Handle; 3]) -> std::io::Result<u32> {
        self.trace_level += 1;
        let started = self.spawn_subshell(script, stdio);
        self.trace_level -= 1;
        started
    }

    /// The text between `((` and `))` as written, spaces kept (bash's `set -x` shows them);
    /// the parser's trimmed text when the source cannot be cut.
    fn arithmetic_text(&self, a: &ast::ArithmeticCommand) -> String {
        let parsed = a.expr.value.clone();
        let Some(source) = &self.source else {
            return parsed;
        };
        let (start, end) = (a.loc.start.index, a.loc.end.index);
        let cut: String = source
            .chars()
            .skip(start)
            .take(end.saturating_sub(start))
            .collect();
        match cut.strip_prefix("((").and_then(|c| c.strip_suffix("))")) {
            Some(inner) if inner.trim() == parsed.trim() => inner.to_string(),
            _ => parsed,
        }
    }

    /// `(( text ))` and the parts of `for (( ; ; ))`: under `set -x` the expression is
    /// expanded once, shown (`+ (( x=4, y=2 ))`), then evaluated.
    fn eval_arith_command(&mut self, text: &str) -> Result<i64, ExpandError> {
        if !self.options.xtrace {
            return self.eval_arith_str(text);
        }
        let expanded = if text.contains('$') || text.contains('`') {
            self.expand_single(text)?
        } else {
            text.to_string()
        };
        self.trace(&format!("(( {expanded} ))"));
        self.eval_arith_str(&expanded)
    }

    /// After a loop body: consumes `break`/`continue` aimed at this loop. True = leave it.
    fn loop_control(&mut self) -> bool {
        match self.flow.clone() {
            Flow::Break(n) => {
                self.flow = if n > 1 {
                    Flow::Break(n - 1)
                } else {
                    Flow::Normal
                };
                true
            }
            Flow::Continue(n) => {
                if n > 1 {
                    self.flow = Flow::Continue(n - 1);
                    true
                } else {
                    self.flow = Flow::Normal;
                    false
                }
            }
            Flow::Normal => false,
            Flow::Return | Flow::Exit | Flow::Discard => true,
        }
    }

    pub fn expansion_failed(&mut self, e: ExpandError) -> i32 {
        if self.flow == Flow::Discard {
            // Reported where the substitution was read; the command is dropped.
            self.last_status = 1;
            return 1;
        }
        // dash words a bad substitution without the word, and ends the script with 2.
        let (msg, status) = match self.dialect {
            Dialect::Bash => (e.0.as_str(), 1),
            Dialect::Dash if e.0.ends_with("bad substitution") => ("Bad substitution", 2),
            Dialect::Dash => (e.0.as_str(), 2),
        };
        self.error(msg);
        let unset = std::mem::take(&mut self.unset_parameter_failed);
        // A non-interactive bash leaves with 127 when `set -u` or `${x?}` meets an unset
        // parameter in the shell itself, unless `set -e` is on (then 1, measured on bash
        // 5.1); a subshell ends with the error's status.
        let status =
            if unset && !self.in_subshell && !self.options.errexit && self.dialect == Dialect::Bash
            {
                127
            } else {
                status
            };
        self.last_status = status;
        // Like a non-interactive bash, an expansion error ends a `-c` script.
        if !self.in_subshell || unset {
            self.flow = Flow::Exit;
            self.exit_code = Some(status);
        }
        status
    }

    /// The value `name` gets from `value`: for a `declare -i` variable the arithmetic result
    /// (added to the current value with `+=`), otherwise the text (appended with `+=`).
    pub fn integer_value(
        &mut self,
        name: &str,
        value: String,
        append: bool,
    ) -> Result<String, ExpandError> {
        if !self.is_integer(name) {
            return Ok(if append {
                self.get_scalar(name).unwrap_or_default() + &value
            } else {
                value
            });
        }
        // An empty expression is 0, as in `$(( ))`.
        fn eval(shell: &mut Shell, text: &str) -> Result<i64, ExpandError> {
            match text.trim() {
                "" => Ok(0),
                _ => shell.eval_arith_str(text),
            }
        }
        let mut n = eval(self, &value)?;
        if append {
            let current = self.get_scalar(name).unwrap_or_default();
            n = n.wrapping_add(eval(self, &current)?);
        }
        Ok(n.to_string())
    }

    /// Reports an assignment that did not happen; the status of the command.
    fn assignment_failed(&mut self, failure: AssignFailure) -> i32 {
        let e = match failure {
            AssignFailure::Subscript(e) => return self.expansion_failed(e),
            AssignFailure::Refused(e) => e,
        };
        self.error(&e);
        if e.ends_with(": readonly variable") {
            // bash, not interactive, ends the script there.
            self.flow = crate::state::Flow::Exit;
            self.exit_code = Some(1);
        }
        1
    }

    /// Expands a simple command's words and assignment values. `in_this_shell`: the command
    /// runs here (not as a pipeline stage), so assignments without a command are made here.
    fn prepare_simple(
        &mut self,
        sc: &ast::SimpleCommand,
        in_this_shell: bool,
    ) -> Result<Prepared, i32> {
        let mut words: Vec<String> = Vec::new();
        let mut assignments_raw: Vec<&ast::Assignment> = Vec::new();
        let mut redirects: Vec<IoRedirect> = Vec::new();
        let mut psubs: Vec<(usize, ast::ProcessSubstitutionKind, ast::SubshellCommand)> =
            Vec::new();
        if let Some(prefix) = &sc.prefix {
            for item in &prefix.0 {
                match item {
                    ast::CommandPrefixOrSuffixItem::AssignmentWord(a, _) => assignments_raw.push(a),
                    ast::CommandPrefixOrSuffixItem::IoRedirect(r) => redirects.push(r.clone()),
                    ast::CommandPrefixOrSuffixItem::Word(w) => words.push(w.value.clone()),
                    ast::CommandPrefixOrSuffixItem::ProcessSubstitution(k, s) => {
                        psubs.push((words.len(), k.clone(), s.clone()));
                        words.push(String::new());
                    }
                }
            }
        }
        if let Some(line) = command_line(sc, self.dialect) {
            self.line = line;
        }
        if let Some(w) = &sc.word_or_name {
            words.push(w.value.clone());
        }
        // `declare`, `local`, `export`… take their assignments as bash reads assignments: a
        // value is not split or globbed (`export x=$y`), and `a=(1 "b c")` reaches the builtin
        // whole, to be assigned there.
        let declaration = sc.word_or_name.as_ref().is_some_and(|w| {
            matches!(
                w.value.as_str(),
                "declare" | "local" | "typeset" | "readonly" | "export"
            )
        }) && self.dialect == Dialect::Bash;
        let mut assignment_args: Vec<(usize, bool)> = Vec::new();
        if let Some(suffix) = &sc.suffix {
            for item in &suffix.0 {
                match item {
                    ast::CommandPrefixOrSuffixItem::IoRedirect(r) => redirects.push(r.clone()),
                    ast::CommandPrefixOrSuffixItem::Word(w) => words.push(w.value.clone()),
                    ast::CommandPrefixOrSuffixItem::AssignmentWord(a, w) => {
                        if declaration {
                            let compound = matches!(a.value, ast::AssignmentValue::Array(_));
                            assignment_args.push((words.len(), compound));
                        }
                        words.push(w.value.clone())
                    }
                    ast::CommandPrefixOrSuffixItem::ProcessSubstitution(k, s) => {
                        psubs.push((words.len(), k.clone(), s.clone()));
                        words.push(String::new());
                    }
                }
            }
        }
        // Expand word by word so process substitutions keep their position.
        let mut argv = Vec::new();
        for (i, w) in words.iter().enumerate() {
            if let Some((_, kind, sub)) = psubs.iter().find(|(pos, _, _)| *pos == i) {
                match self.process_substitution(kind, sub) {
                    Ok(path) => argv.push(path),
                    Err(status) => return Err(status),
                }
                continue;
            }
            let expanded = match assignment_args.iter().find(|(pos, _)| *pos == i) {
                Some((_, true)) => Ok(vec![w.clone()]),
                Some((_, false)) => self.expand_single(w).map(|v| vec![v]),
                None => self.expand_words(std::slice::from_ref(w)),
            };
            match expanded {
                Ok(v) => argv.extend(v),
                Err(e) => return Err(self.expansion_failed(e)),
            }
        }
        let mut assignments = Vec::new();
        // With no command, bash expands and makes the assignments one after the other:
        // `IFS=, joined="${a[*]}"` joins with the new IFS, `a=1 b=$a` sees the new `a`.
        let apply_now = in_this_shell && argv.is_empty();
        for a in assignments_raw {
            let evaluated = self.eval_assignment(a);
            if let (Ok(v), true) = (&evaluated, self.options.xtrace) {
                self.trace_assignment(a, v);
            }
            match evaluated {
                Ok(v) if apply_now => {
                    if let Err(failure) = self.apply_assignment(&v) {
                        return Err(self.assignment_failed(failure));
                    }
                }
                Ok(v) => assignments.push(v),
                Err(e) => return Err(self.expansion_failed(e)),
            }
        }
        Ok(Prepared {
            argv,
            assignments,
            redirects,
        })
    }

    /// `set -x`'s line for an assignment, made as bash makes them, one line each: the value
    /// expanded and quoted (`+ y='a b'`), an array as it was written (`+ a=(1 "2 3")`).
    fn trace_assignment(&self, a: &ast::Assignment, v: &AssignValue) {
        let text = match &v.value {
            AssignKind::Scalar(value) => {
                let index = v
                    .index
                    .as_ref()
                    .map(|i| format!("[{i}]"))
                    .unwrap_or_default();
                // The variable still holds what `+=` appends to.
                let (op, added) = match (a.append, v.index.is_none()) {
                    (true, true) => {
                        let before = self.get_scalar(&v.name).unwrap_or_default();
                        ("+=", value.strip_prefix(before.as_str()).unwrap_or(value))
                    }
                    (true, false) => ("+=", value.as_str()),
                    (false, _) => ("=", value.as_str()),
                };
                format!("{}{index}{op}{}", v.name, crate::quote::xtrace_quote(added))
            }
            AssignKind::Array(..) => a.to_string(),
        };
        self.trace(&text);
    }

    /// The value of an assignment word, expanded (arrays flattened to `name=(…)` later).
    fn eval_assignment(&mut self, a: &ast::Assignment) -> Result<AssignValue, ExpandError> {
        let (name, index) = match &a.name {
            ast::AssignmentName::VariableName(n) => (n.clone(), None),
            ast::AssignmentName::ArrayElementName(n, i) => (n.clone(), Some(i.clone())),
        };
        let value = match &a.value {
            ast::AssignmentValue::Scalar(w) => {
                let mut v = self.expand_single_assignment(&w.value)?;
                if index.is_none() && self.is_integer(&name) {
                    v = self.integer_value(&name, v, a.append)?;
                } else if a.append {
                    let cur = match &index {
                        None => self.get_scalar(&name).unwrap_or_default(),
                        Some(_) => String::new(),
                    };
                    v = cur + &v;
                }
                AssignKind::Scalar(v)
            }
            ast::AssignmentValue::Array(items) => {
                let mut out = Vec::new();
                for (k, w) in items {
                    let key = match k {
                        Some(k) => Some(self.expand_single(&k.value)?),
                        None => None,
                    };
                    let vals = self.expand_words(std::slice::from_ref(&w.value))?;
                    for v in vals {
                        out.push((key.clone(), v));
                    }
                }
                AssignKind::Array(out, a.append)
            }
        };
        let index = match index {
            Some(i) => Some(self.expand_single(&i)?),
            None => None,
        };
        Ok(AssignValue { name, index, value })
    }

    /// Assignment values get tilde expansion after `=` and `:` but no splitting or globbing.
    fn expand_single_assignment(&mut self, w: &str) -> Result<String, ExpandError> {
        self.expand_single(w)
    }

    /// Assigns `a`; an error in its subscript's arithmetic is an expansion error (which ends a
    /// bash script), anything else the assignment's own failure.
    pub fn apply_assignment(&mut self, a: &AssignValue) -> Result<(), AssignFailure> {
        match (&a.value, &a.index) {
            (AssignKind::Scalar(v), None) => self
                .set_value(&a.name, crate::state::Value::Scalar(v.clone()))
                .map_err(AssignFailure::Refused),
            (AssignKind::Scalar(v), Some(i)) => {
                let idx = match self.get_var(&a.name).map(|v| &v.value) {
                    Some(crate::state::Value::Assoc(_)) => i.clone(),
                    _ => self
                        .eval_arith_str(i)
                        .map_err(AssignFailure::Subscript)?
                        .to_string(),
                };
                self.set_element(&a.name, &idx, v.clone())
                    .map_err(AssignFailure::Refused)
            }
            (AssignKind::Array(items, append), _) => self
                .assign_array(&a.name, items, *append)
                .map_err(AssignFailure::Refused),
        }
    }

    /// `name=(…)` or `name+=(…)`, indexed or associative as `name` already is.
    fn assign_array(
        &mut self,
        name: &str,
        items: &[(Option<String>, String)],
        append: bool,
    ) -> Result<(), String> {
        let is_assoc = matches!(
            self.get_var(name).map(|v| &v.value),
            Some(crate::state::Value::Assoc(_))
        );
        if is_assoc {
            let mut m = match (append, self.get_var(name).map(|v| v.value.clone())) {
                (true, Some(crate::state::Value::Assoc(m))) => m,
                _ => Default::default(),
            };
            for (k, v) in items {
                m.insert(k.clone().unwrap_or_default(), v.clone());
            }
            return self.set_value(name, crate::state::Value::Assoc(m));
        }
        let mut m = match (append, self.get_var(name).map(|v| v.value.clone())) {
            (true, Some(crate::state::Value::Indexed(m))) => m,
            (true, Some(crate::state::Value::Scalar(s))) => {
                std::collections::BTreeMap::from([(0, s)])
            }
            _ => Default::default(),
        };
        let mut next = m.keys().next_back().map(|k| k + 1).unwrap_or(0);
        for (k, v) in items {
            let idx = match k {
                Some(k) => crate::arith::parse_number(k).unwrap_or(0),
                None => next,
            };
            m.insert(idx, v.clone());
            next = idx + 1;
        }
        self.set_value(name, crate::state::Value::Indexed(m))
    }

    fn run_simple(&mut self, sc: &ast::SimpleCommand) -> i32 {
        let status = self.run_simple_inner(sc);
        if !self.pending_cleanup.is_empty() || !self.pending_writers.is_empty() {
            self.finish_process_substitutions();
        }
        status
    }

    fn run_simple_inner(&mut self, sc: &ast::SimpleCommand) -> i32 {
        let substitutions_before = self.command_substitutions;
        let Prepared {
            argv,
            assignments,
            redirects,
        } = match self.prepare_simple(sc, true) {
            Ok(p) => p,
            Err(status) => {
                self.last_status = status;
                return status;
            }
        };
        if !argv.is_empty() {
            self.trace_command(&argv);
        }
        if argv.is_empty() {
            // Assignments only (made while preparing), and redirections, which still create
            // files.
            return match self.apply_redirects(&redirects) {
                Ok(saved) => {
                    self.restore(saved);
                    // The status is that of the last command substitution, if any.
                    if self.command_substitutions == substitutions_before {
                        0
                    } else {
                        self.last_status
                    }
                }
                Err(s) => s,
            };
        }
        match self.resolve(&argv) {
            Resolved::Builtin => match self.apply_redirects(&redirects) {
                Ok(saved) => {
                    // Prefix assignments before a builtin affect the shell (as for special
                    // builtins in POSIX mode); rare in practice.
                    for a in &assignments {
                        match self.apply_assignment(a) {
                            Ok(()) => {}
                            Err(AssignFailure::Subscript(ExpandError(e)))
                            | Err(AssignFailure::Refused(e)) => self.error(&e),
                        }
                    }
                    let s = self.run_builtin(&argv);
                    if argv.len() == 1 && argv[0] == "exec" {
                        // `exec >file`: the redirections stay for the rest of the script.
                        self.keep(saved);
                    } else {
                        self.restore(saved);
                    }
                    s
                }
                Err(s) => s,
            },
            Resolved::Function(def) => match self.apply_redirects(&redirects) {
                Ok(saved) => {
                    let s = self.call_function(&def, &argv, &assignments);
                    self.restore(saved);
                    s
                }
                Err(s) => s,
            },
            Resolved::External(real) => match self.apply_redirects(&redirects) {
                Ok(saved) => {
                    self.remember_program(&argv[0]);
                    let env = self.child_env(&assignments_env(&assignments));
                    let s = match self.spawn_external(real, env) {
                        Ok(pid) => hostcalls::wait(pid).unwrap_or(127),
                        Err(s) => s,
                    };
                    self.restore(saved);
                    s
                }
                Err(s) => s,
            },
            Resolved::NotFound(status, msg) => {
                // Redirections are performed first (files get created), and the error goes
                // to the redirected stderr (`missing 2>/dev/null` prints nothing).
                match self.apply_redirects(&redirects) {
                    Ok(saved) => {
                        self.error(&msg);
                        self.restore(saved);
                        status
                    }
                    Err(s) => s,
                }
            }
        }
    }

    fn call_function(
        &mut self,
        def: &Rc<ast::FunctionDefinition>,
        argv: &[String],
        assignments: &[AssignValue],
    ) -> i32 {
        // The function's own commands are not the script's last.
        self.oneshot = false;
        if self.func_depth >= MAX_DEPTH {
            self.error(&format!(
                "{}: maximum function nesting level exceeded ({MAX_DEPTH})",
                argv[0]
            ));
            self.flow = Flow::Exit;
            self.exit_code = Some(1);
            return 1;
        }
        let saved_pos = std::mem::replace(&mut self.positional, argv[1..].to_vec());
        self.locals.push(Default::default());
        for a in assignments {
            if let Some(scope) = self.locals.last_mut() {
                scope.insert(a.name.clone(), None);
            }
            let _ = self.apply_assignment(a);
            self.export(&a.name);
        }
        self.func_depth += 1;
        let outer_frames = self.enter_frame(&argv[0]);
        let outer_line_base = self.line_base;
        if let Some(base) = self.function_line_base.get(&argv[0]) {
            self.line_base = *base;
        }
        let outer_loops = std::mem::take(&mut self.loop_depth);
        let outer_source = std::mem::replace(
            &mut self.function_source,
            self.function_sources.get(&argv[0]).cloned(),
        );
        let ast::FunctionBody(body, redirects) = &def.body;
        let redirects: Vec<IoRedirect> =
            redirects.as_ref().map(|r| r.0.clone()).unwrap_or_default();
        let status = match self.apply_redirects(&redirects) {
            Ok(saved) => {
                let s = self.run_compound(body);
                self.restore(saved);
                s
            }
            Err(s) => s,
        };
        self.func_depth -= 1;
        self.leave_frame(outer_frames);
        self.line_base = outer_line_base;
        self.loop_depth = outer_loops;
        self.function_source = outer_source;
        self.locals.pop();
        self.positional = saved_pos;
        if self.flow == Flow::Return {
            self.flow = Flow::Normal;
            return self.last_status;
        }
        status
    }

    /// Builtins, then functions, then applets, then paths — bash's order for a plain name.
    fn resolve(&mut self, argv: &[String]) -> Resolved {
        let name = argv[0].as_str();
        if !name.contains('/') {
            if crate::builtins::is_builtin(name) && self.dialect.has_builtin(name) {
                return Resolved::Builtin;
            }
            if let Some(f) = self.functions.get(name) {
                return Resolved::Function(f.clone());
            }
            if self.applets.iter().any(|a| a == name) && !name.is_empty() {
                return Resolved::External(argv.to_vec());
            }
            return Resolved::NotFound(127, self.dialect.not_found(name));
        }
        let path = self.absolute(name);
        let base = path.rsplit('/').next().unwrap_or_default().to_string();
        let dir = &path[..path.len() - base.len()];
        let system_dirs = [
            "/bin/",
            "/usr/bin/",
            "/sbin/",
            "/usr/sbin/",
            "/usr/local/bin/",
        ];
        if system_dirs.contains(&dir) && self.applets.contains(&base) {
            let mut real = argv.to_vec();
            real[0] = base;
            return Resolved::External(real);
        }
        let st = match hostcalls::stat(&path, true) {
            Ok(st) => st,
            Err(_) => {
                return Resolved::NotFound(127, format!("{name}: No such file or directory"));
            }
        };
        if st.is_dir() {
            return Resolved::NotFound(126, format!("{name}: Is a directory"));
        }
        if st.permissions() & 0o111 == 0 {
            return Resolved::NotFound(126, format!("{name}: Permission denied"));
        }
        let head = read_head(&path);
        if head.starts_with(b"\x7fELF") {
            return Resolved::NotFound(
                126,
                format!("{name}: cannot execute binary file: Exec format error"),
            );
        }
        let interp = if head.starts_with(b"#!") {
            let line = String::from_utf8_lossy(&head[2..]);
            let line = line.lines().next().unwrap_or_default().trim().to_string();
            let mut parts = line.split_whitespace();
            let prog = parts.next().unwrap_or_default().to_string();
            let prog_base = prog.rsplit('/').next().unwrap_or_default().to_string();
            let (prog_base, extra): (String, Vec<String>) = if prog_base == "env" {
                let mut rest: Vec<String> = parts.map(String::from).collect();
                if rest.is_empty() {
                    (String::new(), vec![])
                } else {
                    let p = rest.remove(0);
                    (p, rest)
                }
            } else {
                (prog_base, parts.map(String::from).collect())
            };
            if !self.applets.contains(&prog_base) {
                return Resolved::NotFound(
                    126,
                    format!("{name}: {prog}: bad interpreter: No such file or directory"),
                );
            }
            Some((prog_base, extra))
        } else {
            None
        };
        // A script without `#!` runs in a copy of the shell that starts it (bash runs it with
        // bash, dash with dash).
        let (prog, extra) = interp.unwrap_or_else(|| (self.program.clone(), vec![]));
        let mut real = vec![prog];
        real.extend(extra);
        real.push(name.to_string());
        real.extend(argv[1..].iter().cloned());
        Resolved::External(real)
    }

    fn spawn_external(
        &mut self,
        argv: Vec<String>,
        env: Vec<(String, String)>,
    ) -> Result<u32, i32> {
        let env = exec_environment(env, &argv[0], self.oneshot);
        let req = SpawnRequest {
            argv,
            env,
            cwd: self.cwd.clone(),
            stdio: [
                self.fd(0).unwrap_or(0),
                self.fd(1).unwrap_or(1),
                self.fd(2).unwrap_or(2),
            ],
        };
        hostcalls::spawn(&req).map_err(|e| {
            self.error(&format!("fork: retry: {}", error_text(&e)));
            254
        })
    }

    /// A `( … )` subshell's commands as written, with the line its `(` is on, when they can
    /// be cut from the running program's text; otherwise as the tree prints them, on the
    /// current line. A program run from another text (a function defined elsewhere) is
    /// recognised by parsing the cut text back to the same commands.
    fn subshell_text(&self, sub: &ast::SubshellCommand) -> (String, usize) {
        let printed = sub.list.to_string();
        let fallback = (printed.clone(), self.line);
        let Some(source) = &self.source else {
            return fallback;
        };
        let (start, end) = (sub.loc.start.index, sub.loc.end.index);
        if end < start + 2 {
            return fallback;
        }
        let cut: String = source.chars().skip(start).take(end - start).collect();
        let Some(inner) = cut.strip_prefix('(').and_then(|c| c.strip_suffix(')')) else {
            return fallback;
        };
        // The cut text must parse back to this very subshell.
        let same = self.parses_to_one(&cut, |command| match command {
            Command::Compound(CompoundCommand::Subshell(again), None) => {
                again.list.to_string() == printed
            }
            _ => false,
        });
        if !same {
            return fallback;
        }
        (inner.to_string(), sub.loc.start.line)
    }

    /// A function's definition cut from the running program's text, when it parses back to
    /// the same function (the `function` keyword is not in the parser's span: it is tried).
    fn definition_text(&self, def: &ast::FunctionDefinition) -> Option<Rc<str>> {
        use brush_parser::ast::SourceLocation;
        let source = self.source.as_ref()?;
        let span = def.location()?;
        let (start, end) = (span.start.index, span.end.index);
        let cut: String = source
            .chars()
            .skip(start)
            .take(end.checked_sub(start)?)
            .collect();
        let printed = def.to_string();
        [cut.clone(), format!("function {cut}")]
            .into_iter()
            .find(|text| {
                self.parses_to_one(text, |command| {
                    matches!(command, Command::Function(again) if again.to_string() == printed)
                })
            })
            .map(Rc::from)
    }

    /// Whether `text` parses to a single command that `same` accepts: how text cut from the
    /// running program is checked to be what the tree holds.
    fn parses_to_one(&self, text: &str, same: impl Fn(&Command) -> bool) -> bool {
        crate::syntax::parse(text, self.dialect)
            .ok()
            .is_some_and(|program| match program.complete_commands.as_slice() {
                [list] => match list.0.as_slice() {
                    [item] => match item.0.first.seq.as_slice() {
                        [command] => same(command),
                        _ => false,
                    },
                    _ => false,
                },
                _ => false,
            })
    }

    /// Starts a copy of this shell running `script` (see the module docs).
    pub fn spawn_subshell(&mut self, script: &str, stdio: [Handle; 3]) -> std::io::Result<u32> {
        self.spawn_subshell_at(script, stdio, self.line)
    }

    /// [`Self::spawn_subshell`] for a script whose first line is `first_line` of this one.
    fn spawn_subshell_at(
        &mut self,
        script: &str,
        stdio: [Handle; 3],
        first_line: usize,
    ) -> std::io::Result<u32> {
        if self.subst_depth >= MAX_DEPTH {
            return Err(std::io::Error::other("maximum nesting level exceeded"));
        }
        // The prelude travels apart from the script so that the script's lines count from the
        // parent's current line.
        let mut env = self.child_env(&[]);
        env.push((
            "INTERCODE_SUBSHELL_DEPTH".into(),
            (self.subst_depth + 1).to_string(),
        ));
        env.push(("INTERCODE_PRELUDE".into(), self.prelude()));
        let definition_source = self.definition_source.as_deref().unwrap_or(&self.name);
        env.push((
            "INTERCODE_DEFINITION_SOURCE".into(),
            definition_source.to_string(),
        ));
        // A subshell of a function's body names what the function does.
        if let Some(inside) = &self.function_source {
            env.push(("INTERCODE_FUNCTION_SOURCE".into(), inside.to_string()));
        }
        if self.trace_level > 0 {
            env.push(("INTERCODE_TRACE_LEVEL".into(), self.trace_level.to_string()));
        }
        env.push((
            "INTERCODE_LINE_BASE".into(),
            self.shifted(first_line).saturating_sub(1).to_string(),
        ));
        let req = SpawnRequest {
            argv: vec![
                self.program.clone(),
                "--intercode-subshell".into(),
                script.to_string(),
                self.name.clone(),
            ],
            env,
            cwd: self.cwd.clone(),
            stdio,
        };
        hostcalls::spawn(&req)
    }

    /// `$(cmd)`: runs in a subshell, output with trailing newlines removed.
    pub fn command_substitution(&mut self, cmd: &str) -> String {
        if self.dialect == Dialect::Bash
            && let Some(word) = lone_input_redirection(cmd)
        {
            return self.file_substitution(&word);
        }
        let (r, w) = match hostcalls::pipe() {
            Ok(p) => p,
            Err(e) => {
                self.error(&format!("pipe error: {}", error_text(&e)));
                return String::new();
            }
        };
        let stdio = [self.fd(0).unwrap_or(0), w, self.fd(2).unwrap_or(2)];
        let pid = self.spawn_substitution(cmd, stdio);
        self.command_substitutions += 1;
        let _ = hostcalls::close(w);
        let mut out = Vec::new();
        let _ = hostcalls::read_to_end(r, &mut out);
        let _ = hostcalls::close(r);
        match pid {
            Ok(pid) => self.last_status = hostcalls::wait(pid).unwrap_or(127),
            Err(e) => {
                self.error(&format!("fork: {}", error_text(&e)));
                self.last_status = 254;
            }
        }
        if out.contains(&0) {
            // bash drops NUL bytes (a C string cannot hold them) and says so; dash drops them
            // silently.
            if self.dialect == crate::dialect::Dialect::Bash {
                self.error("warning: command substitution: ignored null byte in input");
            }
            out.retain(|&b| b != 0);
        }
        let mut s = String::from_utf8_lossy(&out).into_owned();
        while s.ends_with('\n') {
            s.pop();
        }
        s
    }

    /// bash's `$(< file)`: the file's contents, read by the shell itself (in a subshell the
    /// lone redirection would print nothing).
    fn file_substitution(&mut self, word: &str) -> String {
        self.command_substitutions += 1;
        let read = self.expand_redirect_target(word).and_then(|target| {
            let path = self.absolute(&target);
            let h = hostcalls::open(&path, OpenFlags::READ)
                .map_err(|e| format!("{target}: {}", error_text(&e)))?;
            let mut out = Vec::new();
            let read = hostcalls::read_to_end(h, &mut out);
            let _ = hostcalls::close(h);
            read.map_err(|e| format!("{target}: {}", error_text(&e)))?;
            Ok(out)
        });
        let mut out = match read {
            Ok(out) => {
                self.last_status = 0;
                out
            }
            Err(message) => {
                self.error(&message);
                self.last_status = 1;
                return String::new();
            }
        };
        if out.contains(&0) {
            self.error("warning: command substitution: ignored null byte in input");
            out.retain(|&b| b != 0);
        }
        let mut s = String::from_utf8_lossy(&out).into_owned();
        while s.ends_with('\n') {
            s.pop();
        }
        s
    }

    /// `<(cmd)` runs to completion into a temporary file whose path replaces the word;
    /// `>(cmd)` gets a file that is fed to `cmd` when the command finishes. WASI cannot open
    /// `/dev/fd/N`, so the streaming form is not possible; results are the same for the
    /// commands the benchmark uses (`diff`, `comm`, `join`, `tee`).
    fn process_substitution(
        &mut self,
        kind: &ast::ProcessSubstitutionKind,
        sub: &ast::SubshellCommand,
    ) -> Result<String, i32> {
        let text = sub.list.to_string();
        let (path, h) = match fd_file() {
            Some(made) => made,
            None => {
                let path = self.next_temp_path("psub");
                match hostcalls::open(&path, OpenFlags::WRITE_TRUNCATE) {
                    Ok(h) => (path, h),
                    Err(e) => {
                        self.error(&format!("{path}: {}", error_text(&e)));
                        return Err(1);
                    }
                }
            }
        };
        match kind {
            ast::ProcessSubstitutionKind::Read => {
                let stdio = [self.fd(0).unwrap_or(0), h, self.fd(2).unwrap_or(2)];
                let pid = self.spawn_substitution(&text, stdio);
                let _ = hostcalls::close(h);
                if let Ok(pid) = pid {
                    let _ = hostcalls::wait(pid);
                }
                self.pending_cleanup.push(path.clone());
            }
            ast::ProcessSubstitutionKind::Write => {
                let _ = hostcalls::close(h);
                self.pending_writers.push((path.clone(), text));
            }
        }
        Ok(path)
    }

    /// Runs the deferred `>(cmd)` readers and removes temporary files.
    pub fn finish_process_substitutions(&mut self) {
        for (path, text) in std::mem::take(&mut self.pending_writers) {
            if let Ok(h) = hostcalls::open(&path, OpenFlags::READ) {
                let stdio = [h, self.fd(1).unwrap_or(1), self.fd(2).unwrap_or(2)];
                if let Ok(pid) = self.spawn_substitution(&text, stdio) {
                    let _ = hostcalls::close(h);
                    let _ = hostcalls::wait(pid);
                } else {
                    let _ = hostcalls::close(h);
                }
            }
            self.pending_cleanup.push(path);
        }
        for path in std::mem::take(&mut self.pending_cleanup) {
            let _ = std::fs::remove_file(&path);
        }
    }

    /// Applies redirections in order; the returned [`Saved`] undoes them.
    pub fn apply_redirects(&mut self, redirects: &[IoRedirect]) -> Result<Saved, i32> {
        let mut saved = Saved {
            entries: Vec::new(),
            opened: Vec::new(),
        };
        for r in redirects {
            if let Err(msg) = self.apply_redirect(r, &mut saved) {
                self.error(&msg);
                self.restore(saved);
                // dash fails a command whose redirection fails with 2, bash with 1.
                return Err(match self.dialect {
                    Dialect::Bash => 1,
                    Dialect::Dash => 2,
                });
            }
        }
        Ok(saved)
    }

    fn set_fd(&mut self, fd: i32, h: Option<Handle>, saved: &mut Saved) {
        if !saved.entries.iter().any(|(f, _)| *f == fd) {
            saved.entries.push((fd, self.fds.get(&fd).copied()));
        }
        match h {
            Some(h) => {
                self.fds.insert(fd, h);
            }
            None => {
                self.fds.remove(&fd);
            }
        }
    }

    fn open_target(
        &mut self,
        word: &str,
        flags: OpenFlags,
        saved: &mut Saved,
    ) -> Result<Handle, String> {
        let target = self.expand_redirect_target(word)?;
        let path = if target.starts_with("/dev/") {
            target.clone()
        } else {
            self.absolute(&target)
        };
        let h = hostcalls::open(&path, flags).map_err(|e| match self.dialect {
            Dialect::Bash => format!("{target}: {}", error_text(&e)),
            Dialect::Dash => dash_open_error(&target, flags, &e),
        })?;
        saved.opened.push(h);
        Ok(h)
    }

    fn expand_redirect_target(&mut self, word: &str) -> Result<String, String> {
        let fields = self.expand_words(&[word.to_string()]).map_err(|e| e.0)?;
        match fields.as_slice() {
            [one] => Ok(one.clone()),
            _ => Err(format!("{word}: ambiguous redirect")),
        }
    }

    fn apply_redirect(&mut self, r: &IoRedirect, saved: &mut Saved) -> Result<(), String> {
        match r {
            IoRedirect::File(fd, kind, target) => {
                let default_fd = match kind {
                    IoFileRedirectKind::Read
                    | IoFileRedirectKind::ReadAndWrite
                    | IoFileRedirectKind::DuplicateInput => 0,
                    _ => 1,
                };
                let fd = fd.unwrap_or(default_fd);
                let word = match target {
                    ast::IoFileRedirectTarget::Filename(w) => w.value.clone(),
                    ast::IoFileRedirectTarget::Duplicate(w) => w.value.clone(),
                    ast::IoFileRedirectTarget::Fd(n) => n.to_string(),
                    ast::IoFileRedirectTarget::ProcessSubstitution(kind, sub) => {
                        let path = self
                            .process_substitution(kind, sub)
                            .map_err(|_| "process substitution failed".to_string())?;
                        crate::quote::shell_quote(&path)
                    }
                };
                match kind {
                    IoFileRedirectKind::Read => {
                        let h = self.open_target(&word, OpenFlags::READ, saved)?;
                        self.set_fd(fd, Some(h), saved);
                    }
                    IoFileRedirectKind::Write | IoFileRedirectKind::Clobber => {
                        let h = self.open_target(&word, OpenFlags::WRITE_TRUNCATE, saved)?;
                        self.set_fd(fd, Some(h), saved);
                    }
                    IoFileRedirectKind::Append => {
                        let h = self.open_target(&word, OpenFlags::APPEND, saved)?;
                        self.set_fd(fd, Some(h), saved);
                    }
                    IoFileRedirectKind::ReadAndWrite => {
                        let flags = OpenFlags {
                            read: true,
                            write: true,
                            create: true,
                            ..OpenFlags::default()
                        };
                        let h = self.open_target(&word, flags, saved)?;
                        self.set_fd(fd, Some(h), saved);
                    }
                    IoFileRedirectKind::DuplicateInput | IoFileRedirectKind::DuplicateOutput => {
                        let target = self.expand_single(&word).map_err(|e| e.0)?;
                        if target == "-" {
                            self.set_fd(fd, None, saved);
                        } else if let Ok(n) = target.trim_end_matches('-').parse::<i32>() {
                            let src = self
                                .fds
                                .get(&n)
                                .copied()
                                .ok_or_else(|| format!("{n}: Bad file descriptor"))?;
                            let h = hostcalls::dup(src)
                                .map_err(|e| format!("{n}: {}", error_text(&e)))?;
                            saved.opened.push(h);
                            self.set_fd(fd, Some(h), saved);
                            if target.ends_with('-') {
                                self.set_fd(n, None, saved);
                            }
                        } else if matches!(kind, IoFileRedirectKind::DuplicateOutput) {
                            // `>& file` is `&> file`.
                            let h = self.open_target(&word, OpenFlags::WRITE_TRUNCATE, saved)?;
                            let h2 = hostcalls::dup(h).map_err(|e| error_text(&e))?;
                            saved.opened.push(h2);
                            self.set_fd(1, Some(h), saved);
                            self.set_fd(2, Some(h2), saved);
                        } else {
                            return Err(format!("{target}: ambiguous redirect"));
                        }
                    }
                }
            }
            IoRedirect::OutputAndError(w, append) => {
                let flags = if *append {
                    OpenFlags::APPEND
                } else {
                    OpenFlags::WRITE_TRUNCATE
                };
                let h = self.open_target(&w.value, flags, saved)?;
                let h2 = hostcalls::dup(h).map_err(|e| error_text(&e))?;
                saved.opened.push(h2);
                self.set_fd(1, Some(h), saved);
                self.set_fd(2, Some(h2), saved);
            }
            IoRedirect::HereDocument(fd, doc) => {
                let body = if doc.requires_expansion {
                    self.expand_heredoc(&doc.doc.value).map_err(|e| e.0)?
                } else {
                    doc.doc.value.clone()
                };
                let h = self.feed(&body, saved)?;
                self.set_fd(fd.unwrap_or(0), Some(h), saved);
            }
            IoRedirect::HereString(fd, w) => {
                let mut body = self.expand_single(&w.value).map_err(|e| e.0)?;
                body.push('\n');
                let h = self.feed(&body, saved)?;
                self.set_fd(fd.unwrap_or(0), Some(h), saved);
            }
        }
        Ok(())
    }

    fn expand_heredoc(&mut self, body: &str) -> Result<String, ExpandError> {
        let pieces = brush_parser::word::parse_heredoc(body, &self.dialect.parser_options())
            .map_err(|e| ExpandError(format!("here-document: {e}")))?;
        // Re-assemble as a double-quoted context: only $, ` and \ are special.
        let mut out = String::new();
        for p in pieces {
            let text = &body[p.start_index..p.end_index];
            match p.piece {
                brush_parser::word::WordPiece::Text(t) => out.push_str(&t),
                _ => out.push_str(&self.expand_single(&format!("\"{text}\""))?),
            }
        }
        Ok(out)
    }

    /// A readable handle holding `body` (here-documents). Small bodies go through a pipe;
    /// larger ones through a temporary file, so nothing blocks on a full pipe.
    fn feed(&mut self, body: &str, saved: &mut Saved) -> Result<Handle, String> {
        if body.len() < 32 * 1024 {
            let (r, w) = hostcalls::pipe().map_err(|e| error_text(&e))?;
            let _ = hostcalls::write_all(w, body.as_bytes());
            let _ = hostcalls::close(w);
            saved.opened.push(r);
            return Ok(r);
        }
        let path = self.next_temp_path("heredoc");
        let h = hostcalls::open(&path, OpenFlags::WRITE_TRUNCATE).map_err(|e| error_text(&e))?;
        let _ = hostcalls::write_all(h, body.as_bytes());
        let _ = hostcalls::close(h);
        let r = hostcalls::open(&path, OpenFlags::READ).map_err(|e| error_text(&e))?;
        let _ = std::fs::remove_file(&path);
        saved.opened.push(r);
        Ok(r)
    }

    pub fn restore(&mut self, saved: Saved) {
        for (fd, old) in saved.entries.into_iter().rev() {
            match old {
                Some(h) => {
                    self.fds.insert(fd, h);
                }
                None => {
                    self.fds.remove(&fd);
                }
            }
        }
        for h in saved.opened {
            if !self.fds.values().any(|v| *v == h) {
                let _ = hostcalls::close(h);
            }
        }
    }

    /// Makes the redirections of `exec` permanent: the opened handles stay with the shell.
    pub fn keep(&mut self, saved: Saved) {
        drop(saved);
    }
}

pub struct Prepared {
    pub argv: Vec<String>,
    pub assignments: Vec<AssignValue>,
    pub redirects: Vec<IoRedirect>,
}

/// Why an assignment did not happen.
pub enum AssignFailure {
    /// Its subscript's arithmetic failed: an expansion error.
    Subscript(ExpandError),
    /// The variable refused the value (readonly, …), in the shell's words.
    Refused(String),
}

#[derive(Debug, Clone)]
pub struct AssignValue {
    pub name: String,
    pub index: Option<String>,
    pub value: AssignKind,
}

#[derive(Debug, Clone)]
pub enum AssignKind {
    Scalar(String),
    Array(Vec<(Option<String>, String)>, bool),
}

/// The line bash gives a simple command in its messages and `$LINENO`: bash records it when
/// the parser has read the command's first token and the one after it (its lookahead), so a
/// quoted word that spans lines moves it to the line where that second token ends
/// (`nosuch "a<newline>b"` is reported on line 2, `x=$(<newline>…<newline>)` on its last line).
/// Redirections carry no position in the parser's tree; they are skipped.
/// dash simply names the line where the command starts.
fn command_line(sc: &ast::SimpleCommand, dialect: Dialect) -> Option<usize> {
    use ast::SourceLocation;
    fn span(item: &ast::CommandPrefixOrSuffixItem) -> Option<brush_parser::SourceSpan> {
        match item {
            ast::CommandPrefixOrSuffixItem::Word(w)
            | ast::CommandPrefixOrSuffixItem::AssignmentWord(_, w) => w.loc.clone(),
            ast::CommandPrefixOrSuffixItem::ProcessSubstitution(_, s) => s.location(),
            ast::CommandPrefixOrSuffixItem::IoRedirect(_) => None,
        }
    }
    let prefix = sc.prefix.iter().flat_map(|p| p.0.iter()).filter_map(span);
    let name = sc.word_or_name.iter().filter_map(|w| w.loc.clone());
    let suffix = sc.suffix.iter().flat_map(|s| s.0.iter()).filter_map(span);
    let mut spans = prefix.chain(name).chain(suffix);
    let first = spans.next()?;
    match dialect {
        Dialect::Bash => Some(spans.next().unwrap_or(first).end.line),
        // dash names the line the command starts on.
        Dialect::Dash => Some(first.start.line),
    }
}

/// dash's words for a redirection it cannot open: `cannot create X: Directory nonexistent`,
/// `cannot open X: No such file`.
fn dash_open_error(target: &str, flags: OpenFlags, e: &std::io::Error) -> String {
    let missing = e.kind() == std::io::ErrorKind::NotFound;
    if flags.write || flags.create || flags.append {
        let why = if missing {
            "Directory nonexistent".to_string()
        } else {
            error_text(e)
        };
        format!("cannot create {target}: {why}")
    } else {
        let why = if missing {
            "No such file".to_string()
        } else {
            error_text(e)
        };
        format!("cannot open {target}: {why}")
    }
}

fn assignments_env(a: &[AssignValue]) -> Vec<(String, String)> {
    a.iter()
        .filter_map(|a| match (&a.value, &a.index) {
            (AssignKind::Scalar(v), None) => Some((a.name.clone(), v.clone())),
            _ => None,
        })
        .collect()
}

impl From<AssignValue> for (String, String) {
    fn from(a: AssignValue) -> Self {
        match a.value {
            AssignKind::Scalar(v) => (a.name, v),
            AssignKind::Array(..) => (a.name, String::new()),
        }
    }
}

fn read_head(path: &str) -> Vec<u8> {
    use std::io::Read;
    let mut buf = vec![0u8; 256];
    match std::fs::File::open(path) {
        Ok(mut f) => {
            let n = f.read(&mut buf).unwrap_or(0);
            buf.truncate(n);
            buf
        }
        Err(_) => Vec::new(),
    }
}

/// The environment an external command receives, arranged as bash 5.1 arranges it: variables
/// in the order of bash's variable hash table (FNV-1, 1024 buckets), then `_` holding the
/// command's path. A command bash runs in place of itself (`oneshot`) sees `SHLVL` one lower.
/// `env` and `printenv` print exactly this order, and agents' scripts read it.
fn exec_environment(
    mut env: Vec<(String, String)>,
    command: &str,
    oneshot: bool,
) -> Vec<(String, String)> {
    env.retain(|(k, _)| k != "_");
    if oneshot && let Some((_, level)) = env.iter_mut().find(|(k, _)| k == "SHLVL") {
        let lowered = level.parse::<i64>().map_or(0, |l| l - 1);
        *level = lowered.to_string();
    }
    env.sort_by_key(|(k, _)| crate::state::bash_bucket(k, 1024));
    let path = if command.contains('/') {
        command.to_string()
    } else {
        format!("/usr/bin/{command}")
    };
    env.push(("_".into(), path));
    env
}

/// A new file for a process substitution under the name bash gives it, `/dev/fd/63` (then 62,
/// … while those are taken: by the other substitutions of the command, or by another process's
/// at the same time), so programs print the names agents see under bash (`Files /dev/fd/63 and
/// /dev/fd/62 differ`). `None` when `/dev/fd` cannot hold one.
fn fd_file() -> Option<(String, hostcalls::Handle)> {
    let flags = OpenFlags {
        exclusive: true,
        ..OpenFlags::WRITE_TRUNCATE
    };
    (3..=63).rev().find_map(|n| {
        let path = format!("/dev/fd/{n}");
        match hostcalls::open(&path, flags) {
            Ok(h) => Some(Some((path, h))),
            Err(e) if e.raw_os_error() == Some(hostcalls::errno::EEXIST) => None,
            Err(_) => Some(None),
        }
    })?
}

/// The file of `$(< file)`: a substitution that is one input redirection and nothing else.
fn lone_input_redirection(cmd: &str) -> Option<String> {
    use ast::CommandPrefixOrSuffixItem as Item;
    let program = crate::parse(cmd).ok()?;
    let [list] = program.complete_commands.as_slice() else {
        return None;
    };
    let [item] = list.0.as_slice() else {
        return None;
    };
    let and_or = &item.0;
    if !and_or.additional.is_empty() || and_or.first.bang {
        return None;
    }
    let [Command::Simple(simple)] = and_or.first.seq.as_slice() else {
        return None;
    };
    if simple.word_or_name.is_some() || simple.suffix.is_some() {
        return None;
    }
    let items = &simple.prefix.as_ref()?.0;
    match items.as_slice() {
        [
            Item::IoRedirect(IoRedirect::File(
                None | Some(0),
                IoFileRedirectKind::Read,
                ast::IoFileRedirectTarget::Filename(word),
            )),
        ] => Some(word.value.clone()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lines of a script's top-level simple commands, as [`command_line`] gives them.
    fn lines_of(text: &str) -> Vec<usize> {
        let program = crate::parse(text).unwrap();
        program
            .complete_commands
            .iter()
            .flat_map(|list| list.0.iter())
            .map(|item| match &item.0.first.seq[0] {
                Command::Simple(sc) => command_line(sc, Dialect::Bash).unwrap(),
                other => panic!("not a simple command: {other}"),
            })
            .collect()
    }

    /// The first top-level subshell of `text` as the shell would hand it to its child.
    fn subshell_of(text: &str) -> (String, usize) {
        let (program, source) = crate::syntax::parse_with_source(text, Dialect::Bash).unwrap();
        let mut shell = Shell::new("bash".into(), &[]);
        shell.source = Some(source.into());
        let item = &program.complete_commands[0].0[0];
        match &item.0.first.seq[0] {
            Command::Compound(CompoundCommand::Subshell(s), _) => shell.subshell_text(s),
            other => panic!("not a subshell: {other}"),
        }
    }

    #[test]
    fn a_subshell_is_cut_from_its_script_with_its_line() {
        assert_eq!(
            subshell_of("(echo $LINENO; (echo $LINENO))"),
            ("echo $LINENO; (echo $LINENO)".to_string(), 1)
        );
        assert_eq!(subshell_of("\n(a\n(b\nc))"), ("a\n(b\nc)".to_string(), 2));
        assert_eq!(
            subshell_of("(echo 1; f() { (echo 2); }; f)"),
            ("echo 1; f() { (echo 2); }; f".to_string(), 1)
        );
    }

    // bash 5.2 (`bash -c` with these texts) names these lines in "command not found".
    #[test]
    fn a_command_is_on_the_line_where_its_second_token_ends() {
        assert_eq!(lines_of("nosuch1 \"a\nb\"\nnosuch2"), [2, 3]);
        assert_eq!(lines_of("nosuch1 a \"b\nc\" d"), [1]);
        assert_eq!(lines_of("x=$(\nnosuch\n)\n:"), [3, 4]);
        assert_eq!(lines_of("```BASH\nfind /x\n```"), [3]);
    }
}
