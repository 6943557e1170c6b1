//! Word expansion in bash's order: brace expansion, then tilde, parameter, command and
//! arithmetic expansion (left to right), then field splitting on `$IFS`, pathname expansion
//! and quote removal. Text keeps a per-character "quoted" flag until the end, because
//! splitting and globbing only apply to the unquoted parts.

use crate::state::{Shell, Value};
use brush_parser::word::{
    self, BraceExpressionMember, BraceExpressionOrText, Parameter, ParameterExpr,
    ParameterTestType, SpecialParameter, SubstringMatchKind, WordPiece, WordPieceWithSource,
};

pub use crate::error::ExpandError;

type R<T> = Result<T, ExpandError>;

/// Expanded text before splitting: characters with their quoted flag, and field breaks
/// (from `"$@"`), which separate fields even inside quotes.
#[derive(Debug, Default, Clone)]
pub struct Expanded {
    pub chars: Vec<(char, bool)>,
    /// Positions in `chars` where a field must end.
    pub breaks: Vec<usize>,
    /// Whether any quoted piece was present (so `""` yields one empty field).
    pub had_quotes: bool,
}

impl Expanded {
    fn push_str(&mut self, s: &str, quoted: bool) {
        self.chars.extend(s.chars().map(|c| (c, quoted)));
        if quoted {
            self.had_quotes = true;
        }
    }

    fn field_break(&mut self) {
        self.breaks.push(self.chars.len());
    }

    pub fn text(&self) -> String {
        self.chars.iter().map(|(c, _)| c).collect()
    }
}

impl Shell {
    /// Full expansion of command words into arguments.
    pub fn expand_words(&mut self, words: &[String]) -> R<Vec<String>> {
        let mut out = Vec::new();
        for w in words {
            // dash has no brace expansion.
            let braced_words = match self.dialect {
                crate::dialect::Dialect::Bash => brace_expand(w),
                crate::dialect::Dialect::Dash => vec![w.clone()],
            };
            for braced in braced_words {
                let exp = self.expand_raw(&braced)?;
                for field in self.split_fields(&exp) {
                    out.extend(self.glob_field(&field));
                }
            }
        }
        Ok(out)
    }

    /// Expansion without splitting or globbing (assignments, redirection targets, `case`
    /// words, `[[ ]]` operands, here-strings).
    pub fn expand_single(&mut self, w: &str) -> R<String> {
        Ok(self.expand_raw(w)?.text())
    }

    /// Expansion of a pattern: quoted characters come back escaped so they match literally.
    pub fn expand_pattern(&mut self, w: &str) -> R<String> {
        let exp = self.expand_raw(w)?;
        Ok(pattern_text(&exp.chars))
    }

    pub fn expand_raw(&mut self, w: &str) -> R<Expanded> {
        let pieces = word::parse(w, &self.dialect.parser_options())
            .map_err(|_| ExpandError(format!("{w}: bad substitution")))?;
        if let Some((inner, quoted)) = unparsed_braces(&pieces, None) {
            // bash names the double-quoted text the bad `${…}` stands in, or the whole word.
            let shown = quoted
                .and_then(|(start, end)| w.get(start + 1..end.saturating_sub(1)))
                .unwrap_or(w);
            return self.unparsed_parameter(shown, inner);
        }
        let mut out = Expanded::default();
        self.expand_pieces(w, &pieces, false, &mut out)?;
        Ok(out)
    }

    /// A `${...}` the parser could not read. bash reads one more form than the parser:
    /// a substring whose length holds another colon (`${x:0:-3:4}`), which is empty for an
    /// empty parameter and an arithmetic error otherwise; the rest are bad substitutions.
    fn unparsed_parameter(&mut self, w: &str, inner: &str) -> R<Expanded> {
        let mut parts = inner.splitn(3, ':');
        if let (Some(name), Some(_), Some(len)) = (parts.next(), parts.next(), parts.next())
            && is_parameter_name(name)
            && let Some(colon) = len.find(':')
        {
            let value = match name.parse::<usize>() {
                Ok(0) => Some(self.name.clone()),
                Ok(n) => self.positional.get(n - 1).cloned(),
                Err(_) => self.get_scalar(name),
            };
            if value.unwrap_or_default().is_empty() {
                return Ok(Expanded::default());
            }
            return Err(ExpandError(format!(
                "{name}: {len}: syntax error in expression (error token is \"{}\")",
                &len[colon..]
            )));
        }
        Err(ExpandError(format!("{w}: bad substitution")))
    }

    /// `word`: the text `pieces` were parsed from (their offsets count in it).
    fn expand_pieces(
        &mut self,
        word: &str,
        pieces: &[WordPieceWithSource],
        in_dquote: bool,
        out: &mut Expanded,
    ) -> R<()> {
        for p in pieces {
            match &p.piece {
                WordPiece::Text(s) => out.push_str(s, in_dquote),
                WordPiece::SingleQuotedText(s) => out.push_str(s, true),
                WordPiece::AnsiCQuotedText(s) => out.push_str(&ansi_c_unquote(s), true),
                WordPiece::DoubleQuotedSequence(inner)
                | WordPiece::GettextDoubleQuotedSequence(inner) => {
                    out.had_quotes = true;
                    self.expand_pieces(word, inner, true, out)?;
                }
                WordPiece::TildeExpansion(t) => {
                    let s = match t {
                        word::TildeExpr::Home => self.get_scalar("HOME").unwrap_or_default(),
                        word::TildeExpr::UserHome(u) if u == "root" => "/root".into(),
                        word::TildeExpr::UserHome(u) => format!("~{u}"),
                        word::TildeExpr::WorkingDir => self.cwd.clone(),
                        word::TildeExpr::OldWorkingDir => self.oldpwd.clone().unwrap_or_default(),
                        _ => "~".into(),
                    };
                    out.push_str(&s, true);
                }
                WordPiece::ParameterExpansion(expr) => {
                    let v = match self.expand_parameter(expr, in_dquote) {
                        // bash names `$1` as written, `${1}` by its number.
                        Err(ExpandError(m))
                            if self.unset_parameter_failed
                                && word
                                    .get(p.start_index..)
                                    .and_then(|t| t.strip_prefix('$'))
                                    .is_some_and(|t| {
                                        t.starts_with(|c: char| c.is_ascii_digit())
                                    }) =>
                        {
                            return Err(ExpandError(format!("${m}")));
                        }
                        v => v?,
                    };
                    match v {
                        Expansion::Text(s) => out.push_str(&s, in_dquote),
                        Expansion::Fields(fields) => {
                            for (i, f) in fields.iter().enumerate() {
                                if i > 0 {
                                    out.field_break();
                                }
                                out.push_str(f, in_dquote);
                                if in_dquote {
                                    out.had_quotes = true;
                                }
                            }
                            if fields.is_empty() && in_dquote {
                                // "$@" with no parameters yields no field at all.
                                out.had_quotes = out.chars.iter().any(|(_, q)| *q);
                            }
                        }
                    }
                }
                WordPiece::CommandSubstitution(cmd)
                | WordPiece::BackquotedCommandSubstitution(cmd) => {
                    if matches!(p.piece, WordPiece::CommandSubstitution(_)) {
                        self.check_substitution_syntax(word, p.start_index, cmd)?;
                    }
                    let cmd = if matches!(p.piece, WordPiece::BackquotedCommandSubstitution(_)) {
                        unescape_backquoted(cmd)
                    } else {
                        cmd.clone()
                    };
                    let s = self.command_substitution(&cmd);
                    out.push_str(&s, in_dquote);
                }
                WordPiece::EscapeSequence(s) => {
                    let text = unescape(s, in_dquote);
                    out.push_str(&text, true);
                }
                WordPiece::ArithmeticExpression(e) => {
                    let v = self.eval_arith_str(&e.value)?;
                    out.push_str(&v.to_string(), in_dquote);
                }
            }
        }
        Ok(())
    }

    /// bash 5.1 reads the command of a `$(…)` only when it expands the word, from the word's
    /// text after `$(` (backquotes are read by the subshell, as here). A syntax error there
    /// names that text and its line (counted from the line after the word's end), and drops
    /// the rest of the complete command: `echo a; x=$(done); echo b` prints `a` alone, `$?`
    /// 1. dash reads substitutions with the script, so this is bash's alone.
    fn check_substitution_syntax(&mut self, word: &str, start: usize, cmd: &str) -> R<()> {
        if self.dialect != crate::dialect::Dialect::Bash {
            return Ok(());
        }
        let rest = word
            .get(start..)
            .and_then(|t| t.strip_prefix("$("))
            .map_or_else(|| format!("{cmd})"), str::to_string);
        let Some(lines) = crate::syntax::substitution_error(cmd, &rest) else {
            return Ok(());
        };
        let base = self.shifted(self.line) + word.matches('\n').count();
        let message: Vec<String> = lines
            .iter()
            .map(|(line, what)| format!("command substitution: line {}: {what}", base + line))
            .collect();
        self.syntax_error(&self.name, &message.join("\n"));
        self.last_status = 1;
        self.flow = crate::state::Flow::Discard;
        Err(ExpandError(String::new()))
    }

    /// Splits on `$IFS` (unquoted characters only) and at field breaks.
    pub fn split_fields(&self, exp: &Expanded) -> Vec<Vec<(char, bool)>> {
        let ifs = self.ifs();
        let mut fields = Vec::new();
        let mut cur: Vec<(char, bool)> = Vec::new();
        let mut cur_has = false;
        let mut breaks = exp.breaks.iter().peekable();
        for (i, &(c, quoted)) in exp.chars.iter().enumerate() {
            while breaks.peek() == Some(&&i) {
                breaks.next();
                fields.push(std::mem::take(&mut cur));
                cur_has = false;
            }
            if !quoted && ifs.contains(c) {
                if c.is_whitespace() {
                    if !cur.is_empty() || cur_has {
                        fields.push(std::mem::take(&mut cur));
                        cur_has = false;
                    }
                } else {
                    fields.push(std::mem::take(&mut cur));
                    cur_has = false;
                }
                continue;
            }
            if quoted {
                cur_has = true;
            }
            cur.push((c, quoted));
        }
        for _ in breaks {
            fields.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() || cur_has || (fields.is_empty() && exp.had_quotes) {
            fields.push(cur);
        }
        fields
    }

    /// The `shopt` options pathname expansion obeys.
    pub fn glob_options(&self) -> crate::glob::GlobOptions {
        crate::glob::GlobOptions {
            dotglob: self.options.dotglob,
            globstar: self.options.globstar,
            nocaseglob: self.options.nocaseglob,
        }
    }

    /// Pathname expansion of one field; no match leaves the field as it is (bash default).
    pub fn glob_field(&self, field: &[(char, bool)]) -> Vec<String> {
        let literal: String = field.iter().map(|(c, _)| c).collect();
        let has_glob = field
            .iter()
            .any(|(c, q)| !q && matches!(c, '*' | '?' | '['));
        if self.options.noglob || !has_glob {
            return vec![literal];
        }
        let pattern = pattern_text(field);
        let matches = crate::glob::expand(&pattern, &self.cwd, self.glob_options());
        if matches.is_empty() {
            if self.options.nullglob {
                return vec![];
            }
            return vec![literal];
        }
        matches
    }

    fn param_values(&mut self, p: &Parameter, indirect: bool) -> R<Option<ParamValue>> {
        let v = self.param_values_direct(p)?;
        if !indirect {
            return Ok(v);
        }
        let name = match v {
            Some(ParamValue::One(s)) => s,
            _ => return Ok(None),
        };
        let target = word::parse_parameter(&name, &self.dialect.parser_options())
            .map_err(|_| ExpandError(format!("{name}: invalid indirect expansion")))?;
        self.param_values_direct(&target)
    }

    fn param_values_direct(&mut self, p: &Parameter) -> R<Option<ParamValue>> {
        Ok(match p {
            Parameter::Positional(0) => Some(ParamValue::One(self.name.clone())),
            Parameter::Positional(n) => self
                .positional
                .get(*n as usize - 1)
                .cloned()
                .map(ParamValue::One),
            Parameter::Special(s) => Some(match s {
                SpecialParameter::AllPositionalParameters { concatenate } => {
                    ParamValue::Many(self.positional.clone(), *concatenate)
                }
                SpecialParameter::PositionalParameterCount => {
                    ParamValue::One(self.positional.len().to_string())
                }
                SpecialParameter::LastExitStatus => ParamValue::One(self.last_status.to_string()),
                SpecialParameter::CurrentOptionFlags => ParamValue::One(self.option_flags()),
                SpecialParameter::ProcessId => ParamValue::One(self.pid.to_string()),
                SpecialParameter::LastBackgroundProcessId => match self.last_bg_pid {
                    Some(p) => ParamValue::One(p.to_string()),
                    None => return Ok(None),
                },
                SpecialParameter::ShellName => ParamValue::One(self.name.clone()),
            }),
            Parameter::Named(name) => match name.as_str() {
                "PIPESTATUS" => self
                    .pipestatus
                    .first()
                    .map(|s| ParamValue::One(s.to_string())),
                "LINENO" => Some(ParamValue::One(self.shifted(self.line).to_string())),
                "SECONDS" => Some(ParamValue::One("0".into())),
                "BASHPID" => Some(ParamValue::One(self.pid.to_string())),
                // Every action's shell was started from outside the container (`docker
                // exec`): its parent is pid 0, which subshells inherit, as in bash.
                "PPID" => Some(ParamValue::One("0".into())),
                "BASHOPTS" if self.dialect == crate::dialect::Dialect::Bash => {
                    Some(ParamValue::One(self.bashopts()))
                }
                "SHELLOPTS" if self.dialect == crate::dialect::Dialect::Bash => {
                    Some(ParamValue::One(self.shellopts()))
                }
                _ => self.get_scalar(name).map(ParamValue::One),
            },
            Parameter::NamedWithIndex { name, index } => {
                if name == "PIPESTATUS" {
                    let i = self.eval_arith_str(index)?;
                    return Ok(self
                        .pipestatus
                        .get(i as usize)
                        .map(|s| ParamValue::One(s.to_string())));
                }
                match self.get_var(name).map(|v| v.value.clone()) {
                    Some(Value::Assoc(m)) => {
                        let key = self.expand_single(index)?;
                        m.get(&key).cloned().map(ParamValue::One)
                    }
                    Some(Value::Indexed(m)) => {
                        let mut i = self.eval_arith_str(index)?;
                        if i < 0 {
                            i += m.keys().next_back().map(|k| k + 1).unwrap_or(0);
                        }
                        m.get(&i).cloned().map(ParamValue::One)
                    }
                    Some(Value::Scalar(s)) => {
                        (self.eval_arith_str(index)? == 0).then_some(ParamValue::One(s))
                    }
                    // bash evaluates the subscript of an unset array too (and fails on it).
                    None => {
                        self.eval_arith_str(index)?;
                        None
                    }
                }
            }
            Parameter::NamedWithAllIndices { name, concatenate } => {
                if name == "PIPESTATUS" {
                    let v = self.pipestatus.iter().map(|s| s.to_string()).collect();
                    return Ok(Some(ParamValue::Many(v, *concatenate)));
                }
                self.get_var(name)
                    .map(|v| ParamValue::Many(v.value.elements(), *concatenate))
            }
        })
    }

    fn option_flags(&self) -> String {
        let mut s = String::from("h");
        if self.options.errexit {
            s.push('e');
        }
        if self.options.noglob {
            s.push('f');
        }
        if self.options.nounset {
            s.push('u');
        }
        if self.options.xtrace {
            s.push('x');
        }
        s.push_str("Bc");
        s
    }

    fn expand_parameter(&mut self, expr: &ParameterExpr, in_dquote: bool) -> R<Expansion> {
        use ParameterExpr as P;
        let join = |sh: &Shell, v: Vec<String>| -> String {
            let sep = sh
                .ifs()
                .chars()
                .next()
                .map(String::from)
                .unwrap_or_default();
            v.join(&sep)
        };
        // Values as a list (for per-element operations) and how they are produced.
        let to_expansion = |sh: &Shell, v: Option<ParamValue>| -> Expansion {
            match v {
                None => Expansion::Text(String::new()),
                Some(ParamValue::One(s)) => Expansion::Text(s),
                Some(ParamValue::Many(v, true)) => {
                    if in_dquote {
                        Expansion::Text(join(sh, v))
                    } else {
                        Expansion::Fields(v)
                    }
                }
                Some(ParamValue::Many(v, false)) => Expansion::Fields(v),
            }
        };
        // dash has POSIX's forms only: `${x:1:2}`, `${x/a/b}`, case changes and transforms
        // are a bad substitution there (`sh -c 'mv "$0" "${0/\./}"'` in agents' commands).
        if self.dialect == crate::dialect::Dialect::Dash
            && matches!(
                expr,
                P::Substring { .. }
                    | P::ReplaceSubstring { .. }
                    | P::UppercaseFirstChar { .. }
                    | P::UppercasePattern { .. }
                    | P::LowercaseFirstChar { .. }
                    | P::LowercasePattern { .. }
                    | P::Transform { .. }
                    | P::VariableNames { .. }
                    | P::MemberKeys { .. }
            )
        {
            return Err(ExpandError("bad substitution".into()));
        }
        match expr {
            P::Parameter {
                parameter,
                indirect,
            } => {
                let v = self.param_values(parameter, *indirect)?;
                if v.is_none() && self.options.nounset && !is_all_params(parameter) {
                    self.unset_parameter_failed = true;
                    return Err(ExpandError(format!(
                        "{}: unbound variable",
                        param_name(parameter)
                    )));
                }
                Ok(to_expansion(self, v))
            }
            P::UseDefaultValues {
                parameter,
                indirect,
                test_type,
                default_value,
            } => {
                let v = self.param_values(parameter, *indirect)?;
                if is_unset_or_null(&v, test_type) {
                    let d = self.expand_operand(default_value.as_deref())?;
                    Ok(Expansion::Text(d))
                } else {
                    Ok(to_expansion(self, v))
                }
            }
            P::AssignDefaultValues {
                parameter,
                indirect,
                test_type,
                default_value,
            } => {
                let v = self.param_values(parameter, *indirect)?;
                if is_unset_or_null(&v, test_type) {
                    let d = self.expand_operand(default_value.as_deref())?;
                    match parameter {
                        Parameter::Named(n) => self.set_scalar(n, d.clone()),
                        Parameter::NamedWithIndex { name, index } => {
                            let i = self.expand_single(index)?;
                            self.set_element(name, &i, d.clone()).map_err(ExpandError)?;
                        }
                        _ => {
                            return Err(ExpandError(format!(
                                "${}: cannot assign in this way",
                                param_name(parameter)
                            )));
                        }
                    }
                    Ok(Expansion::Text(d))
                } else {
                    Ok(to_expansion(self, v))
                }
            }
            P::IndicateErrorIfNullOrUnset {
                parameter,
                indirect,
                test_type,
                error_message,
            } => {
                let v = self.param_values(parameter, *indirect)?;
                if is_unset_or_null(&v, test_type) {
                    let msg = self.expand_operand(error_message.as_deref())?;
                    let msg = match (msg.is_empty(), test_type) {
                        (false, _) => msg,
                        (true, ParameterTestType::Unset) => "parameter not set".to_string(),
                        (true, _) => "parameter null or not set".to_string(),
                    };
                    self.unset_parameter_failed = true;
                    Err(ExpandError(format!("{}: {msg}", param_name(parameter))))
                } else {
                    Ok(to_expansion(self, v))
                }
            }
            P::UseAlternativeValue {
                parameter,
                indirect,
                test_type,
                alternative_value,
            } => {
                let v = self.param_values(parameter, *indirect)?;
                if is_unset_or_null(&v, test_type) {
                    Ok(Expansion::Text(String::new()))
                } else {
                    Ok(Expansion::Text(
                        self.expand_operand(alternative_value.as_deref())?,
                    ))
                }
            }
            P::ParameterLength {
                parameter,
                indirect,
            } => {
                let v = self.param_values(parameter, *indirect)?;
                if v.is_none() && self.options.nounset && !is_all_params(parameter) {
                    self.unset_parameter_failed = true;
                    return Err(ExpandError(format!(
                        "{}: unbound variable",
                        param_name(parameter)
                    )));
                }
                let n = match v {
                    None => 0,
                    Some(ParamValue::One(s)) => s.chars().count(),
                    Some(ParamValue::Many(v, _)) => v.len(),
                };
                Ok(Expansion::Text(n.to_string()))
            }
            P::RemoveSmallestSuffixPattern {
                parameter,
                indirect,
                pattern,
            }
            | P::RemoveLargestSuffixPattern {
                parameter,
                indirect,
                pattern,
            }
            | P::RemoveSmallestPrefixPattern {
                parameter,
                indirect,
                pattern,
            }
            | P::RemoveLargestPrefixPattern {
                parameter,
                indirect,
                pattern,
            } => {
                let (prefix, longest) = match expr {
                    P::RemoveSmallestSuffixPattern { .. } => (false, false),
                    P::RemoveLargestSuffixPattern { .. } => (false, true),
                    P::RemoveSmallestPrefixPattern { .. } => (true, false),
                    _ => (true, true),
                };
                let pat = match pattern {
                    Some(p) => self.expand_pattern(p)?,
                    None => String::new(),
                };
                let re = crate::glob::pattern_regex(&pat, false);
                let v = self.param_values(parameter, *indirect)?;
                let f = |s: String| remove_affix(&s, re.as_ref(), prefix, longest);
                Ok(to_expansion(self, map_value(v, f)))
            }
            P::Substring {
                parameter,
                indirect,
                offset,
                length,
            } => {
                let v = self.param_values(parameter, *indirect)?;
                // bash evaluates the offset and length only of a set parameter, and names a
                // variable in their errors (`x: 1 +: syntax error: …`).
                let (off, len) = if v.is_none() {
                    (0, None)
                } else {
                    let named = |e: ExpandError| match parameter {
                        Parameter::Named(name) => ExpandError(format!("{name}: {}", e.0)),
                        _ => e,
                    };
                    let off = self.eval_arith_str(&offset.value).map_err(named)?;
                    let len = match length {
                        Some(l) => Some(self.eval_arith_str(&l.value).map_err(named)?),
                        None => None,
                    };
                    (off, len)
                };
                match v {
                    Some(ParamValue::Many(items, concat)) => {
                        let mut all = items;
                        // `${@:n}` counts `$0` as element 0; arrays start at their element 0.
                        if matches!(
                            parameter,
                            Parameter::Special(SpecialParameter::AllPositionalParameters { .. })
                        ) {
                            all.insert(0, self.name.clone());
                        }
                        let sliced = slice(&all, off, len);
                        Ok(to_expansion(self, Some(ParamValue::Many(sliced, concat))))
                    }
                    Some(ParamValue::One(s)) => {
                        let chars: Vec<char> = s.chars().collect();
                        let sliced: String = slice(&chars, off, len).into_iter().collect();
                        Ok(Expansion::Text(sliced))
                    }
                    None => Ok(Expansion::Text(String::new())),
                }
            }
            P::ReplaceSubstring {
                parameter,
                indirect,
                pattern,
                replacement,
                match_kind,
            } => {
                let pat = self.expand_pattern(pattern)?;
                let rep = self.expand_operand(replacement.as_deref())?;
                let re = crate::glob::pattern_regex_unanchored(&pat);
                let v = self.param_values(parameter, *indirect)?;
                let kind = match_kind.clone();
                let f = |s: String| replace_pattern(&s, re.as_ref(), &rep, &kind);
                Ok(to_expansion(self, map_value(v, f)))
            }
            P::UppercaseFirstChar {
                parameter,
                indirect,
                ..
            }
            | P::UppercasePattern {
                parameter,
                indirect,
                ..
            }
            | P::LowercaseFirstChar {
                parameter,
                indirect,
                ..
            }
            | P::LowercasePattern {
                parameter,
                indirect,
                ..
            } => {
                let v = self.param_values(parameter, *indirect)?;
                let op = match expr {
                    P::UppercaseFirstChar { .. } => 0,
                    P::UppercasePattern { .. } => 1,
                    P::LowercaseFirstChar { .. } => 2,
                    _ => 3,
                };
                let f = move |s: String| match op {
                    0 => first_char_map(&s, true),
                    1 => s.to_uppercase(),
                    2 => first_char_map(&s, false),
                    _ => s.to_lowercase(),
                };
                Ok(to_expansion(self, map_value(v, f)))
            }
            P::Transform {
                parameter,
                indirect,
                op,
            } => {
                use brush_parser::word::ParameterTransformOp as T;
                let v = self.param_values(parameter, *indirect)?;
                // `${x@A}` of a scalar: the assignment that recreates it.
                if matches!(op, T::ToAssignmentLogic)
                    && let Some(ParamValue::One(value)) = &v
                    && matches!(parameter, Parameter::Named(_))
                {
                    let name = param_name(parameter);
                    return Ok(Expansion::Text(format!("{name}={}", bash_quote(value))));
                }
                let op = op.clone();
                let f = move |s: String| match &op {
                    T::ToUpperCase => s.to_uppercase(),
                    T::ToLowerCase => s.to_lowercase(),
                    T::CapitalizeInitial => first_char_map(&s, true),
                    T::Quoted => bash_quote(&s),
                    T::ExpandEscapeSequences => ansi_c_unquote(&s),
                    _ => s,
                };
                Ok(to_expansion(self, map_value(v, f)))
            }
            P::VariableNames {
                prefix,
                concatenate,
            } => {
                let mut names: Vec<String> = self
                    .globals
                    .keys()
                    .filter(|k| k.starts_with(prefix.as_str()))
                    .cloned()
                    .collect();
                names.sort();
                Ok(to_expansion(
                    self,
                    Some(ParamValue::Many(names, *concatenate)),
                ))
            }
            P::MemberKeys {
                variable_name,
                concatenate,
            } => {
                let keys = match self.get_var(variable_name).map(|v| v.value.clone()) {
                    Some(Value::Indexed(m)) => m.keys().map(|k| k.to_string()).collect(),
                    Some(Value::Assoc(m)) => crate::state::in_bash_order(&m)
                        .map(|(k, _)| k.clone())
                        .collect(),
                    Some(Value::Scalar(_)) => vec!["0".to_string()],
                    None => vec![],
                };
                Ok(to_expansion(
                    self,
                    Some(ParamValue::Many(keys, *concatenate)),
                ))
            }
        }
    }

    /// Operands of `${x:-word}` etc. are expanded (without splitting) when used.
    fn expand_operand(&mut self, w: Option<&str>) -> R<String> {
        match w {
            Some(w) => self.expand_single(w),
            None => Ok(String::new()),
        }
    }
}

enum ParamValue {
    One(String),
    /// Elements, and whether they are to be concatenated (`$*`, `${a[*]}`).
    Many(Vec<String>, bool),
}

pub enum Expansion {
    Text(String),
    Fields(Vec<String>),
}

fn map_value(v: Option<ParamValue>, f: impl Fn(String) -> String) -> Option<ParamValue> {
    match v {
        None => None,
        Some(ParamValue::One(s)) => Some(ParamValue::One(f(s))),
        Some(ParamValue::Many(items, c)) => {
            Some(ParamValue::Many(items.into_iter().map(f).collect(), c))
        }
    }
}

fn is_all_params(p: &Parameter) -> bool {
    matches!(
        p,
        Parameter::Special(SpecialParameter::AllPositionalParameters { .. })
            | Parameter::NamedWithAllIndices { .. }
    )
}

/// `${x@Q}`: always quoted, in `$'…'` when the text holds control characters.
fn bash_quote(s: &str) -> String {
    crate::quote::ansi_c_or(s, crate::quote::single_quote)
}

fn param_name(p: &Parameter) -> String {
    match p {
        Parameter::Positional(n) => n.to_string(),
        Parameter::Special(s) => s.to_string(),
        Parameter::Named(n) => n.clone(),
        Parameter::NamedWithIndex { name, index } => format!("{name}[{index}]"),
        Parameter::NamedWithAllIndices { name, .. } => format!("{name}[@]"),
    }
}

fn is_unset_or_null(v: &Option<ParamValue>, t: &ParameterTestType) -> bool {
    match v {
        None => true,
        Some(ParamValue::One(s)) => matches!(t, ParameterTestType::UnsetOrNull) && s.is_empty(),
        Some(ParamValue::Many(items, _)) => {
            items.is_empty()
                || (matches!(t, ParameterTestType::UnsetOrNull)
                    && items.iter().all(String::is_empty))
        }
    }
}

fn slice<T: Clone>(items: &[T], off: i64, len: Option<i64>) -> Vec<T> {
    let n = items.len() as i64;
    let start = if off < 0 {
        (n + off).max(0)
    } else {
        off.min(n)
    };
    let end = match len {
        None => n,
        Some(l) if l < 0 => (n + l).max(start),
        Some(l) => (start + l).min(n),
    };
    if start >= end {
        return vec![];
    }
    items[start as usize..end as usize].to_vec()
}

fn first_char_map(s: &str, upper: bool) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => {
            let first: String = if upper {
                c.to_uppercase().collect()
            } else {
                c.to_lowercase().collect()
            };
            first + chars.as_str()
        }
        None => String::new(),
    }
}

/// `${v#p}`, `${v##p}`, `${v%p}`, `${v%%p}`: tries candidate cut points in the order that
/// yields the smallest or largest match.
fn remove_affix(s: &str, re: Option<&regex::Regex>, prefix: bool, longest: bool) -> String {
    let Some(re) = re else { return s.to_string() };
    let mut cuts: Vec<usize> = s
        .char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(s.len()))
        .collect();
    if prefix == longest {
        cuts.reverse();
    }
    for cut in cuts {
        let (candidate, rest) = if prefix {
            (&s[..cut], &s[cut..])
        } else {
            (&s[cut..], &s[..cut])
        };
        if re.is_match(candidate) {
            return rest.to_string();
        }
    }
    s.to_string()
}

fn replace_pattern(
    s: &str,
    re: Option<&regex::Regex>,
    rep: &str,
    kind: &SubstringMatchKind,
) -> String {
    let Some(re) = re else { return s.to_string() };
    match kind {
        SubstringMatchKind::Prefix => match re.find(s) {
            Some(m) if m.start() == 0 && !m.as_str().is_empty() => {
                format!("{rep}{}", &s[m.end()..])
            }
            _ => s.to_string(),
        },
        SubstringMatchKind::Suffix => {
            // Longest suffix matching the pattern.
            for (i, _) in s.char_indices() {
                let tail = &s[i..];
                if re
                    .find(tail)
                    .is_some_and(|m| m.start() == 0 && m.end() == tail.len())
                {
                    return format!("{}{rep}", &s[..i]);
                }
            }
            s.to_string()
        }
        SubstringMatchKind::FirstOccurrence => match re.find(s) {
            Some(m) if !m.as_str().is_empty() => {
                format!("{}{rep}{}", &s[..m.start()], &s[m.end()..])
            }
            _ => s.to_string(),
        },
        SubstringMatchKind::Anywhere => {
            let mut out = String::new();
            let mut last = 0;
            for m in re.find_iter(s) {
                if m.as_str().is_empty() {
                    continue;
                }
                out.push_str(&s[last..m.start()]);
                out.push_str(rep);
                last = m.end();
            }
            out.push_str(&s[last..]);
            out
        }
    }
}

/// Brace expansion of a raw word (before any other expansion).
pub fn brace_expand(w: &str) -> Vec<String> {
    if !w.contains('{') {
        return vec![w.to_string()];
    }
    match word::parse_brace_expansions(w, &crate::dialect::Dialect::Bash.parser_options()) {
        Ok(Some(parts)) => expand_brace_parts(&parts, &mut sequence_widths(w)),
        _ => vec![w.to_string()],
    }
}

/// bash pads the numbers of a sequence one of whose ends is written with a leading zero
/// (`{01..10}`, `{-02..2}`, not `{0..10}` or `{+01..3}`) to the longer end's width, sign
/// included. The parser keeps only the numbers, so each `{A..B[..C]}` of the word is read
/// again here: (start, end, width), in the order of the text.
fn sequence_widths(w: &str) -> std::collections::VecDeque<(i64, i64, usize)> {
    fn number(s: &str) -> Option<(i64, usize, bool, &str)> {
        let digits_at = usize::from(s.starts_with(['-', '+']));
        let len = digits_at
            + s[digits_at..]
                .bytes()
                .take_while(u8::is_ascii_digit)
                .count();
        let digits = &s[digits_at..len];
        let value = s[..len].parse().ok()?;
        let zero_led = !s.starts_with('+') && digits.len() > 1 && digits.starts_with('0');
        Some((value, len, zero_led, &s[len..]))
    }
    let mut widths = std::collections::VecDeque::new();
    for (at, _) in w.match_indices('{') {
        let Some((start, start_len, start_zero, rest)) = number(&w[at + 1..]) else {
            continue;
        };
        let Some((end, end_len, end_zero, mut rest)) = rest.strip_prefix("..").and_then(number)
        else {
            continue;
        };
        if let Some(step) = rest.strip_prefix("..").and_then(number) {
            rest = step.3;
        }
        if rest.starts_with('}') {
            let width = if start_zero || end_zero {
                start_len.max(end_len)
            } else {
                0
            };
            widths.push_back((start, end, width));
        }
    }
    widths
}

fn expand_brace_parts(
    parts: &[BraceExpressionOrText],
    widths: &mut std::collections::VecDeque<(i64, i64, usize)>,
) -> Vec<String> {
    let mut results = vec![String::new()];
    for part in parts {
        let alternatives: Vec<String> = match part {
            BraceExpressionOrText::Text(t) => vec![t.clone()],
            BraceExpressionOrText::Expr(members) => {
                let mut alts = Vec::new();
                for m in members {
                    match m {
                        BraceExpressionMember::NumberSequence {
                            start,
                            end,
                            increment,
                        } => {
                            let step = increment.unsigned_abs().max(1) as i64;
                            let width = loop {
                                match widths.pop_front() {
                                    Some((s, e, width)) if (s, e) == (*start, *end) => {
                                        break width;
                                    }
                                    Some(_) => {}
                                    None => break 0,
                                }
                            };
                            let mut i = *start;
                            let up = start <= end;
                            let mut n = 0;
                            while (up && i <= *end) || (!up && i >= *end) {
                                alts.push(format!("{i:0width$}"));
                                i = if up { i + step } else { i - step };
                                n += 1;
                                if n > 100_000 {
                                    break;
                                }
                            }
                        }
                        BraceExpressionMember::CharSequence {
                            start,
                            end,
                            increment,
                        } => {
                            let step = increment.unsigned_abs().max(1) as u32;
                            let (s, e) = (*start as u32, *end as u32);
                            let mut i = s;
                            loop {
                                if let Some(c) = char::from_u32(i) {
                                    alts.push(c.to_string());
                                }
                                if s <= e {
                                    if i + step > e {
                                        break;
                                    }
                                    i += step;
                                } else {
                                    if i < e + step {
                                        break;
                                    }
                                    i -= step;
                                }
                            }
                        }
                        BraceExpressionMember::Child(children) => {
                            alts.extend(expand_brace_parts(children, widths))
                        }
                    }
                }
                alts
            }
        };
        let mut next = Vec::with_capacity(results.len() * alternatives.len().max(1));
        for r in &results {
            for a in &alternatives {
                next.push(format!("{r}{a}"));
            }
        }
        results = next;
    }
    results
}

/// Characters with their quoted flag → a glob pattern where quoted characters are escaped.
pub fn pattern_text(chars: &[(char, bool)]) -> String {
    let mut s = String::new();
    for &(c, q) in chars {
        if q && matches!(
            c,
            '*' | '?' | '[' | ']' | '\\' | '(' | ')' | '|' | '!' | '+' | '@'
        ) {
            s.push('\\');
        }
        s.push(c);
    }
    s
}

/// `$'…'` escapes. The result is a C string to bash: a NUL (`\0`, `\x00`) ends it.
pub fn ansi_c_unquote(s: &str) -> String {
    let (text, _) = crate::text::unescape(s, &gnu::escape::BASH_ANSI_C);
    match text.find('\0') {
        Some(end) => text[..end].to_string(),
        None => text,
    }
}

/// A backslash escape in a word: outside quotes `\x` is `x`; inside double quotes only
/// `\$ \` \" \\ \<newline>` are escapes.
fn unescape(s: &str, in_dquote: bool) -> String {
    let rest = s.strip_prefix('\\').unwrap_or(s);
    if rest == "\n" {
        return String::new();
    }
    if in_dquote {
        match rest.chars().next() {
            Some('$' | '`' | '"' | '\\') => rest.to_string(),
            _ => s.to_string(),
        }
    } else {
        rest.to_string()
    }
}

/// Inside backquotes, `\$`, `` \` `` and `\\` stand for the character itself.
fn unescape_backquoted(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' && matches!(chars.peek(), Some('$' | '`' | '\\')) {
            out.push(chars.next().unwrap_or('\\'));
        } else {
            out.push(c);
        }
    }
    out
}

/// The text inside `${...}` when the parser left one unread: it then hands back a `$` and
/// the braces as two plain text pieces.
fn unparsed_braces(
    pieces: &[WordPieceWithSource],
    quoted: Option<(usize, usize)>,
) -> Option<(&str, Option<(usize, usize)>)> {
    let here = pieces
        .windows(2)
        .find_map(|pair| match (&pair[0].piece, &pair[1].piece) {
            (WordPiece::Text(dollar), WordPiece::Text(rest))
                if dollar.ends_with('$') && !dollar.ends_with("\\$") && rest.starts_with('{') =>
            {
                let end = rest.find('}').unwrap_or(rest.len());
                Some((&rest[1..end], quoted))
            }
            _ => None,
        });
    here.or_else(|| {
        pieces.iter().find_map(|p| match &p.piece {
            WordPiece::DoubleQuotedSequence(inner) => {
                unparsed_braces(inner, Some((p.start_index, p.end_index)))
            }
            _ => None,
        })
    })
}

/// A variable name or a positional parameter's number.
fn is_parameter_name(s: &str) -> bool {
    !s.is_empty()
        && (s.bytes().all(|b| b.is_ascii_digit())
            || (s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                && !s.as_bytes()[0].is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brace_expansion() {
        assert_eq!(brace_expand("a{b,c}d"), ["abd", "acd"]);
        assert_eq!(brace_expand("{1..3}"), ["1", "2", "3"]);
        assert_eq!(brace_expand("x{}"), ["x{}"]);
        assert_eq!(brace_expand("{}"), ["{}"]);
        // Widths as bash 5.1 pads them.
        assert_eq!(
            brace_expand("{-02..2}"),
            ["-02", "-01", "000", "001", "002"]
        );
        assert_eq!(brace_expand("{0..2}"), ["0", "1", "2"]);
        assert_eq!(brace_expand("{-0..1}"), ["0", "1"]);
        assert_eq!(brace_expand("{+01..2}"), ["1", "2"]);
        assert_eq!(brace_expand("{05..1..2}"), ["05", "03", "01"]);
        assert_eq!(brace_expand("x{07..09}y"), ["x07y", "x08y", "x09y"]);
        assert_eq!(brace_expand("{010..8}"), ["010", "009", "008"]);
        assert_eq!(
            brace_expand("{a,{1..2},{01..2}}"),
            ["a", "1", "2", "01", "02"]
        );
    }

    #[test]
    fn ansi_c() {
        assert_eq!(ansi_c_unquote(r"Icon\r"), "Icon\r");
        assert_eq!(ansi_c_unquote(r"a\x41\101\n"), "aAA\n");
    }

    #[test]
    fn affixes() {
        let re = crate::glob::pattern_regex("*/", false);
        assert_eq!(remove_affix("a/b/c", re.as_ref(), true, false), "b/c");
        assert_eq!(remove_affix("a/b/c", re.as_ref(), true, true), "c");
        let re = crate::glob::pattern_regex(".*", false);
        assert_eq!(remove_affix("f.tar.gz", re.as_ref(), false, false), "f.tar");
        assert_eq!(remove_affix("f.tar.gz", re.as_ref(), false, true), "f");
    }
}
