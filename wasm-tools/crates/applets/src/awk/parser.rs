//! Recursive-descent parser for the POSIX awk grammar, with mawk's error messages
//! (`line 1: syntax error at or near }`, `missing } near end of file`, `improper use of
//! next`, …; the caller adds the `awk: ` prefix).
//!
//! Precedence, lowest first: `?:` and assignment (right), `||`, `&&`, `in`, `~ !~`,
//! relational (`>` is a redirection at the top level of a `print`), `| getline`,
//! concatenation, `+ -`, `* / %`, unary `! - +`, `^` (right), `++ --`, `$`, grouping.

use super::ast::*;
use super::lexer::{Builtin, LexError, Lexer, Tok, Token};
use super::regex::AwkRegex;
use std::collections::{HashMap, HashSet, VecDeque};
use std::rc::Rc;

#[derive(Debug)]
pub struct ParseError {
    pub line: usize,
    pub msg: String,
    /// mawk prints lexical errors as `1: unexpected character` without "line".
    pub bare_line: bool,
    /// A second error mawk's parser reports after recovering (`extra '}'` is followed by
    /// a syntax error), as (line, message).
    pub then: Option<(usize, String)>,
}

impl From<LexError> for ParseError {
    fn from(e: LexError) -> Self {
        ParseError {
            line: e.line,
            msg: e.msg,
            bare_line: e.bare_line,
            then: None,
        }
    }
}

type PResult<T> = Result<T, ParseError>;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Ty {
    Unknown,
    Scalar,
    Array,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Ctx {
    Begin,
    End,
    Main,
    Function,
}

enum UseKind {
    Scalar,
    Array,
    /// Passed bare as argument `pos` of function `func`.
    Arg(usize, usize),
    /// `length(x)`: fine either way.
    Neutral,
}

struct Use {
    func: Option<usize>,
    var: usize,
    kind: UseKind,
    line: usize,
}

struct FuncInfo {
    name: String,
    defined: bool,
    params: Vec<String>,
    body: Option<Vec<Stmt>>,
    first_call_line: usize,
}

/// Depth limit for the syntax tree (nesting, and links of operator chains such as
/// `a+b+c+…`, which build left-deep trees). It bounds the recursion of the parser, of the
/// evaluator and of dropping the tree; [`super::stack`] guards the actual stack as well.
const MAX_NEST: usize = 1000;

pub struct Parser<'a> {
    lx: Lexer<'a>,
    buf: VecDeque<Token>,
    gawk: bool,
    globals: Vec<String>,
    gmap: HashMap<String, usize>,
    funcs: Vec<FuncInfo>,
    fmap: HashMap<String, usize>,
    declared_funcs: HashSet<String>,
    cur_func: Option<usize>,
    locals: HashMap<String, usize>,
    uses: Vec<Use>,
    loops: usize,
    ctx: Ctx,
    depth: usize,
    stack_base: usize,
}

pub fn parse(src: &[u8], gawk: bool) -> PResult<Program> {
    let mut p = Parser::new(src, gawk);
    p.program()
}

impl<'a> Parser<'a> {
    fn new(src: &'a [u8], gawk: bool) -> Parser<'a> {
        let mut p = Parser {
            lx: Lexer::new(src, gawk),
            buf: VecDeque::new(),
            gawk,
            globals: Vec::new(),
            gmap: HashMap::new(),
            funcs: Vec::new(),
            fmap: HashMap::new(),
            declared_funcs: prescan_functions(src, gawk),
            cur_func: None,
            locals: HashMap::new(),
            uses: Vec::new(),
            loops: 0,
            ctx: Ctx::Main,
            depth: 0,
            stack_base: super::stack::here(),
        };
        for name in special::NAMES {
            p.global(name);
        }
        p
    }

    // ----- tokens -----

    fn fill(&mut self, n: usize) -> PResult<()> {
        while self.buf.len() <= n {
            let t = self.lx.next_token()?;
            self.buf.push_back(t);
        }
        Ok(())
    }

    fn peek(&mut self) -> PResult<&Tok> {
        self.fill(0)?;
        Ok(&self.buf[0].tok)
    }

    fn peek2(&mut self) -> PResult<&Tok> {
        self.fill(1)?;
        Ok(&self.buf[1].tok)
    }

    fn line(&mut self) -> usize {
        if self.fill(0).is_err() {
            return self.lx.eof_line();
        }
        self.buf[0].line
    }

    fn advance(&mut self) -> PResult<Token> {
        self.fill(0)?;
        Ok(self.buf.pop_front().expect("filled"))
    }

    fn is(&mut self, t: &Tok) -> PResult<bool> {
        Ok(self.peek()? == t)
    }

    fn eat(&mut self, t: &Tok) -> PResult<bool> {
        if self.is(t)? {
            self.advance()?;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    fn expect(&mut self, t: &Tok) -> PResult<()> {
        if self.eat(t)? {
            Ok(())
        } else {
            Err(self.unexpected())
        }
    }

    /// mawk's `syntax error at or near X` for the current token.
    fn unexpected(&mut self) -> ParseError {
        let (line, near) = match self.fill(0) {
            Err(e) => return e,
            Ok(()) => (self.buf[0].line, describe(&self.buf[0].tok)),
        };
        if self.buf[0].tok == Tok::Eof {
            return ParseError {
                line,
                msg: "syntax error at or near end of file".into(),
                bare_line: false,
                then: None,
            };
        }
        ParseError {
            line,
            msg: format!("syntax error at or near {near}"),
            bare_line: false,
            then: None,
        }
    }

    fn err(&mut self, msg: impl Into<String>) -> ParseError {
        ParseError {
            line: self.line(),
            msg: msg.into(),
            bare_line: false,
            then: None,
        }
    }

    fn skip_newlines(&mut self) -> PResult<()> {
        while self.eat(&Tok::Newline)? {}
        Ok(())
    }

    fn skip_terminators(&mut self) -> PResult<()> {
        while matches!(self.peek()?, Tok::Newline | Tok::Semi) {
            self.advance()?;
        }
        Ok(())
    }

    fn nest(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_NEST || super::stack::exhausted(self.stack_base) {
            return Err(self.err("program nested too deeply"));
        }
        Ok(())
    }

    // ----- names -----

    fn global(&mut self, name: &str) -> usize {
        if let Some(&i) = self.gmap.get(name) {
            return i;
        }
        let i = self.globals.len();
        self.globals.push(name.to_string());
        self.gmap.insert(name.to_string(), i);
        i
    }

    fn var(&mut self, name: &str) -> Var {
        if self.cur_func.is_some()
            && let Some(&i) = self.locals.get(name)
        {
            return Var::Local(i);
        }
        Var::Global(self.global(name))
    }

    fn record_use(&mut self, v: Var, kind: UseKind) {
        // With no token read ahead, the use is on the lexer's current line (mawk names it).
        let line = self
            .buf
            .front()
            .map_or_else(|| self.lx.position().1, |t| t.line);
        let (func, var) = match v {
            Var::Global(i) => (None, i),
            Var::Local(i) => (self.cur_func, i),
        };
        self.uses.push(Use {
            func,
            var,
            kind,
            line,
        });
    }

    fn func_index(&mut self, name: &str, line: usize) -> usize {
        if let Some(&i) = self.fmap.get(name) {
            return i;
        }
        let i = self.funcs.len();
        self.funcs.push(FuncInfo {
            name: name.to_string(),
            defined: false,
            params: Vec::new(),
            body: None,
            first_call_line: line,
        });
        self.fmap.insert(name.to_string(), i);
        i
    }

    fn compile_regex(&mut self, src: &[u8], line: usize) -> PResult<Rc<AwkRegex>> {
        AwkRegex::new(src, self.gawk)
            .map(Rc::new)
            .map_err(|why| ParseError {
                line,
                msg: format!(
                    "regular expression compile failed ({why})\n{}",
                    String::from_utf8_lossy(src)
                ),
                bare_line: false,
                then: None,
            })
    }

    // ----- program -----

    fn program(&mut self) -> PResult<Program> {
        let mut prog = Program::default();
        self.skip_terminators()?;
        while !self.is(&Tok::Eof)? {
            self.item(&mut prog)?;
            self.skip_terminators()?;
        }
        self.finish(prog)
    }

    fn item(&mut self, prog: &mut Program) -> PResult<()> {
        match self.peek()?.clone() {
            Tok::Begin => {
                self.advance()?;
                self.ctx = Ctx::Begin;
                if !self.is(&Tok::LBrace)? {
                    return Err(self.unexpected());
                }
                let b = self.block()?;
                prog.begin.push(b);
            }
            Tok::End => {
                self.advance()?;
                self.ctx = Ctx::End;
                if !self.is(&Tok::LBrace)? {
                    return Err(self.unexpected());
                }
                let b = self.block()?;
                prog.end.push(b);
            }
            Tok::Function => self.function()?,
            Tok::RBrace => {
                let line = self.line();
                self.advance()?;
                let next = self.unexpected();
                let near = if self.is(&Tok::Eof)? {
                    (line, "syntax error at or near end of line".to_string())
                } else {
                    (next.line, next.msg)
                };
                return Err(ParseError {
                    line,
                    msg: "extra '}'".into(),
                    bare_line: false,
                    then: Some(near),
                });
            }
            Tok::LBrace => {
                self.ctx = Ctx::Main;
                let b = self.block()?;
                prog.rules.push(Rule {
                    pattern: Pattern::All,
                    action: Some(b),
                });
            }
            _ => {
                self.ctx = Ctx::Main;
                let p1 = self.expr(false)?;
                let pattern = if self.eat(&Tok::Comma)? {
                    self.skip_newlines()?;
                    let p2 = self.expr(false)?;
                    Pattern::Range(p1, p2)
                } else {
                    Pattern::Expr(p1)
                };
                let action = if self.is(&Tok::LBrace)? {
                    Some(self.block()?)
                } else {
                    if !matches!(self.peek()?, Tok::Newline | Tok::Semi | Tok::Eof) {
                        return Err(self.unexpected());
                    }
                    None
                };
                prog.rules.push(Rule { pattern, action });
            }
        }
        Ok(())
    }

    fn function(&mut self) -> PResult<()> {
        self.advance()?;
        let line = self.line();
        let name = match self.advance()?.tok {
            Tok::Name(n) | Tok::FuncName(n) => n,
            Tok::Builtin(_) => return Err(self.err("syntax error at or near function name")),
            _ => {
                return Err(ParseError {
                    line,
                    msg: "syntax error at or near function".into(),
                    bare_line: false,
                    then: None,
                });
            }
        };
        if let Some(&g) = self.gmap.get(&name)
            && g < special::COUNT
        {
            return Err(self.err(format!("illegal reference to variable {name}")));
        }
        let fi = self.func_index(&name, line);
        if self.funcs[fi].defined {
            return Err(self.err(format!("function {name} redefined")));
        }
        self.expect(&Tok::LParen)?;
        let mut params: Vec<String> = Vec::new();
        self.locals.clear();
        if !self.eat(&Tok::RParen)? {
            loop {
                self.skip_newlines()?;
                let p = match self.advance()?.tok {
                    Tok::Name(n) => n,
                    _ => return Err(self.err("syntax error at or near parameter list")),
                };
                if self.locals.contains_key(&p) {
                    return Err(self.err(format!("{p} is duplicated in argument list")));
                }
                self.locals.insert(p.clone(), params.len());
                params.push(p);
                self.skip_newlines()?;
                if self.eat(&Tok::RParen)? {
                    break;
                }
                self.expect(&Tok::Comma)?;
            }
        }
        self.funcs[fi].defined = true;
        self.funcs[fi].params = params;
        self.skip_newlines()?;
        self.cur_func = Some(fi);
        self.ctx = Ctx::Function;
        if !self.is(&Tok::LBrace)? {
            return Err(self.unexpected());
        }
        let body = self.block()?;
        self.funcs[fi].body = Some(body);
        self.cur_func = None;
        self.locals.clear();
        self.ctx = Ctx::Main;
        Ok(())
    }

    fn block(&mut self) -> PResult<Vec<Stmt>> {
        self.nest()?;
        self.expect(&Tok::LBrace)?;
        let mut stmts = Vec::new();
        loop {
            self.skip_terminators()?;
            match self.peek()? {
                Tok::RBrace => {
                    self.advance()?;
                    break;
                }
                Tok::Eof => {
                    let line = self.lx.eof_line();
                    return Err(ParseError {
                        line,
                        msg: "missing } near end of file".into(),
                        bare_line: false,
                        then: None,
                    });
                }
                _ => stmts.push(self.stmt()?),
            }
        }
        self.depth -= 1;
        Ok(stmts)
    }

    // ----- statements -----

    /// Ends a simple statement: `;`, newline, or (not consumed) `}` / end of file.
    fn end_simple(&mut self) -> PResult<()> {
        match self.peek()? {
            Tok::Semi | Tok::Newline => {
                self.advance()?;
                Ok(())
            }
            Tok::RBrace | Tok::Eof => Ok(()),
            _ => Err(self.unexpected()),
        }
    }

    fn body(&mut self) -> PResult<Stmt> {
        self.skip_newlines()?;
        if self.eat(&Tok::Semi)? {
            return Ok(Stmt::Nop);
        }
        self.stmt()
    }

    fn stmt(&mut self) -> PResult<Stmt> {
        self.nest()?;
        let s = self.stmt_inner();
        self.depth -= 1;
        s
    }

    fn stmt_inner(&mut self) -> PResult<Stmt> {
        let t = self.peek()?.clone();
        match t {
            Tok::LBrace => Ok(Stmt::Block(self.block()?)),
            Tok::If => {
                self.advance()?;
                self.expect(&Tok::LParen)?;
                let c = self.expr(false)?;
                self.expect(&Tok::RParen)?;
                let then = self.body()?;
                // `else` may follow after newlines or one `;`.
                let save = self.save();
                self.skip_terminators()?;
                if self.eat(&Tok::Else)? {
                    let els = self.body()?;
                    Ok(Stmt::If(c, Box::new(then), Some(Box::new(els))))
                } else {
                    self.restore(save);
                    Ok(Stmt::If(c, Box::new(then), None))
                }
            }
            Tok::While => {
                self.advance()?;
                self.expect(&Tok::LParen)?;
                let c = self.expr(false)?;
                self.expect(&Tok::RParen)?;
                if self.eat(&Tok::Semi)? {
                    return Ok(Stmt::While(c, Box::new(Stmt::Nop)));
                }
                self.loops += 1;
                let b = self.body();
                self.loops -= 1;
                Ok(Stmt::While(c, Box::new(b?)))
            }
            Tok::Do => {
                self.advance()?;
                self.loops += 1;
                let b = self.body();
                self.loops -= 1;
                let b = b?;
                self.skip_terminators()?;
                self.expect(&Tok::While)?;
                self.expect(&Tok::LParen)?;
                let c = self.expr(false)?;
                self.expect(&Tok::RParen)?;
                self.end_simple()?;
                Ok(Stmt::Do(Box::new(b), c))
            }
            Tok::For => self.for_stmt(),
            Tok::Semi => {
                self.advance()?;
                Ok(Stmt::Nop)
            }
            _ => {
                let s = self.simple_stmt()?;
                self.end_simple()?;
                Ok(s)
            }
        }
    }

    fn for_stmt(&mut self) -> PResult<Stmt> {
        self.advance()?;
        self.expect(&Tok::LParen)?;
        // `for (k in a)`: NAME in NAME ).
        if let Tok::Name(k) = self.peek()?.clone()
            && self.peek2()? == &Tok::In
        {
            let save = self.save();
            self.advance()?;
            self.advance()?;
            if let Tok::Name(a) = self.peek()?.clone() {
                self.advance()?;
                if self.eat(&Tok::RParen)? {
                    let kv = self.var(&k);
                    self.record_use(kv, UseKind::Scalar);
                    let av = self.var(&a);
                    self.record_use(av, UseKind::Array);
                    self.loops += 1;
                    let b = self.body();
                    self.loops -= 1;
                    return Ok(Stmt::ForIn(kv, av, Box::new(b?)));
                }
            }
            self.restore(save);
        }
        let init = if self.is(&Tok::Semi)? {
            None
        } else {
            Some(self.expr(false)?)
        };
        self.expect(&Tok::Semi)?;
        self.skip_newlines()?;
        let cond = if self.is(&Tok::Semi)? {
            None
        } else {
            Some(self.expr(false)?)
        };
        self.expect(&Tok::Semi)?;
        self.skip_newlines()?;
        let step = if self.is(&Tok::RParen)? {
            None
        } else {
            Some(self.expr(false)?)
        };
        self.expect(&Tok::RParen)?;
        if self.eat(&Tok::Semi)? {
            return Ok(Stmt::For(init, cond, step, Box::new(Stmt::Nop)));
        }
        self.loops += 1;
        let b = self.body();
        self.loops -= 1;
        Ok(Stmt::For(init, cond, step, Box::new(b?)))
    }

    fn simple_stmt(&mut self) -> PResult<Stmt> {
        let t = self.peek()?.clone();
        match t {
            Tok::Print | Tok::Printf => {
                self.advance()?;
                let (args, redir) = self.print_args()?;
                if t == Tok::Print {
                    Ok(Stmt::Print(args, redir))
                } else {
                    if args.is_empty() {
                        return Err(self.err("no arguments in call to printf"));
                    }
                    Ok(Stmt::Printf(args, redir))
                }
            }
            Tok::Next | Tok::Nextfile => {
                if self.ctx != Ctx::Main {
                    return Err(self.err(if t == Tok::Next {
                        "improper use of next"
                    } else {
                        "improper use of nextfile"
                    }));
                }
                self.advance()?;
                Ok(if t == Tok::Next {
                    Stmt::Next
                } else {
                    Stmt::NextFile
                })
            }
            Tok::Exit => {
                self.advance()?;
                if matches!(
                    self.peek()?,
                    Tok::Semi | Tok::Newline | Tok::RBrace | Tok::Eof
                ) {
                    Ok(Stmt::Exit(None))
                } else {
                    Ok(Stmt::Exit(Some(self.expr(false)?)))
                }
            }
            Tok::Return => {
                if self.ctx != Ctx::Function {
                    return Err(self.err("return outside function body"));
                }
                self.advance()?;
                if matches!(
                    self.peek()?,
                    Tok::Semi | Tok::Newline | Tok::RBrace | Tok::Eof
                ) {
                    Ok(Stmt::Return(None))
                } else {
                    Ok(Stmt::Return(Some(self.expr(false)?)))
                }
            }
            Tok::Break | Tok::Continue => {
                if self.loops == 0 {
                    return Err(self.err(if t == Tok::Break {
                        "break statement outside of loop"
                    } else {
                        "continue statement outside of loop"
                    }));
                }
                self.advance()?;
                Ok(if t == Tok::Break {
                    Stmt::Break
                } else {
                    Stmt::Continue
                })
            }
            Tok::Delete => {
                self.advance()?;
                let name = match self.peek()?.clone() {
                    Tok::Name(n) => n,
                    _ => return Err(self.unexpected()),
                };
                self.advance()?;
                let v = self.var(&name);
                self.record_use(v, UseKind::Array);
                if self.eat(&Tok::LBracket)? {
                    let subs = self.expr_list(&Tok::RBracket)?;
                    Ok(Stmt::Delete(v, Some(subs)))
                } else {
                    Ok(Stmt::Delete(v, None))
                }
            }
            _ => Ok(Stmt::Expr(self.expr(false)?)),
        }
    }

    /// Arguments and redirection of `print`/`printf`. `print (a, b) > f` needs a look past
    /// the parentheses, done by backtracking.
    #[allow(clippy::type_complexity)]
    fn print_args(&mut self) -> PResult<(Vec<Expr>, Option<(Redir, Expr)>)> {
        let mut args = Vec::new();
        if self.is(&Tok::LParen)? {
            let save = self.save();
            self.advance()?;
            let list = self.expr_list(&Tok::RParen);
            let ok = match list {
                Ok(list) => {
                    if matches!(
                        self.peek()?,
                        Tok::Semi
                            | Tok::Newline
                            | Tok::RBrace
                            | Tok::Eof
                            | Tok::Gt
                            | Tok::Append
                            | Tok::Pipe
                    ) {
                        args = list;
                        true
                    } else {
                        false
                    }
                }
                Err(_) => false,
            };
            if !ok {
                self.restore(save);
                args.clear();
            }
        }
        if args.is_empty()
            && !matches!(
                self.peek()?,
                Tok::Semi
                    | Tok::Newline
                    | Tok::RBrace
                    | Tok::Eof
                    | Tok::Gt
                    | Tok::Append
                    | Tok::Pipe
            )
        {
            loop {
                args.push(self.expr(true)?);
                if self.eat(&Tok::Comma)? {
                    self.skip_newlines()?;
                    continue;
                }
                break;
            }
        }
        let redir = match self.peek()? {
            Tok::Gt => Some(Redir::File),
            Tok::Append => Some(Redir::Append),
            Tok::Pipe => Some(Redir::Pipe),
            _ => None,
        };
        let redir = match redir {
            Some(r) => {
                self.advance()?;
                // mawk takes a whole expression here (`print 1 > "a" > "b"` is legal), but
                // a `>` in it would be ambiguous in practice; concatenation is what people
                // write (`print > $1 ".txt"`).
                Some((r, self.concat_level(true)?))
            }
            None => None,
        };
        Ok((args, redir))
    }

    fn expr_list(&mut self, close: &Tok) -> PResult<Vec<Expr>> {
        let mut v = Vec::new();
        self.skip_newlines()?;
        if self.eat(close)? {
            return Ok(v);
        }
        loop {
            v.push(self.expr(false)?);
            self.skip_newlines()?;
            if self.eat(close)? {
                return Ok(v);
            }
            self.expect(&Tok::Comma)?;
            self.skip_newlines()?;
        }
    }

    fn save(&self) -> (VecDeque<Token>, (usize, usize)) {
        (self.buf.clone(), self.lx.position())
    }

    fn restore(&mut self, s: (VecDeque<Token>, (usize, usize))) {
        self.buf = s.0;
        self.lx.set_position(s.1);
    }

    // ----- expressions -----

    /// A full expression. `no_gt`: at the top level of print arguments, where `>` redirects.
    pub fn expr(&mut self, no_gt: bool) -> PResult<Expr> {
        self.nest()?;
        let r = self.assignment(no_gt);
        self.depth -= 1;
        r
    }

    fn assignment(&mut self, no_gt: bool) -> PResult<Expr> {
        let lhs = self.ternary(no_gt)?;
        let op = match self.peek()? {
            Tok::Assign => Some(None),
            Tok::AddAssign => Some(Some(BinOp::Add)),
            Tok::SubAssign => Some(Some(BinOp::Sub)),
            Tok::MulAssign => Some(Some(BinOp::Mul)),
            Tok::DivAssign => Some(Some(BinOp::Div)),
            Tok::ModAssign => Some(Some(BinOp::Mod)),
            Tok::PowAssign => Some(Some(BinOp::Pow)),
            _ => None,
        };
        match op {
            Some(op) if lhs.is_lvalue() => {
                self.advance()?;
                self.skip_newlines()?;
                let rhs = self.expr(no_gt)?;
                Ok(Expr::Assign(Box::new(lhs), op, Box::new(rhs)))
            }
            _ => Ok(lhs),
        }
    }

    fn ternary(&mut self, no_gt: bool) -> PResult<Expr> {
        let c = self.or(no_gt)?;
        if self.eat(&Tok::Question)? {
            self.skip_newlines()?;
            let a = self.expr(no_gt)?;
            self.skip_newlines()?;
            self.expect(&Tok::Colon)?;
            self.skip_newlines()?;
            self.nest()?;
            let b = self.ternary(no_gt);
            self.depth -= 1;
            let b = b?;
            // Allow `c ? a : b = v`-free forms only; an assignment in the else branch
            // binds to the whole conditional's result position like gawk.
            let b = if self.peek_assign()? && b.is_lvalue() {
                let op = self.assign_op()?;
                self.skip_newlines()?;
                let rhs = self.expr(no_gt)?;
                Expr::Assign(Box::new(b), op, Box::new(rhs))
            } else {
                b
            };
            return Ok(Expr::Cond(Box::new(c), Box::new(a), Box::new(b)));
        }
        Ok(c)
    }

    fn peek_assign(&mut self) -> PResult<bool> {
        Ok(matches!(
            self.peek()?,
            Tok::Assign
                | Tok::AddAssign
                | Tok::SubAssign
                | Tok::MulAssign
                | Tok::DivAssign
                | Tok::ModAssign
                | Tok::PowAssign
        ))
    }

    fn assign_op(&mut self) -> PResult<Option<BinOp>> {
        Ok(match self.advance()?.tok {
            Tok::AddAssign => Some(BinOp::Add),
            Tok::SubAssign => Some(BinOp::Sub),
            Tok::MulAssign => Some(BinOp::Mul),
            Tok::DivAssign => Some(BinOp::Div),
            Tok::ModAssign => Some(BinOp::Mod),
            Tok::PowAssign => Some(BinOp::Pow),
            _ => None,
        })
    }

    fn or(&mut self, no_gt: bool) -> PResult<Expr> {
        let mut l = self.and(no_gt)?;
        // Each link of a chain deepens the (left-deep) tree by one.
        let mark = self.depth;
        while self.eat(&Tok::Or)? {
            self.nest()?;
            self.skip_newlines()?;
            let r = self.and(no_gt)?;
            l = Expr::Or(Box::new(l), Box::new(r));
        }
        self.depth = mark;
        Ok(l)
    }

    fn and(&mut self, no_gt: bool) -> PResult<Expr> {
        let mut l = self.in_level(no_gt)?;
        // Each link of a chain deepens the (left-deep) tree by one.
        let mark = self.depth;
        while self.eat(&Tok::And)? {
            self.nest()?;
            self.skip_newlines()?;
            let r = self.in_level(no_gt)?;
            l = Expr::And(Box::new(l), Box::new(r));
        }
        self.depth = mark;
        Ok(l)
    }

    fn in_level(&mut self, no_gt: bool) -> PResult<Expr> {
        let mut l = self.match_level(no_gt)?;
        // Each link of a chain deepens the (left-deep) tree by one.
        let mark = self.depth;
        while self.is(&Tok::In)? {
            self.nest()?;
            self.advance()?;
            let arr = self.array_name()?;
            l = Expr::In(vec![l], arr);
        }
        self.depth = mark;
        Ok(l)
    }

    fn array_name(&mut self) -> PResult<Var> {
        match self.peek()?.clone() {
            Tok::Name(n) => {
                self.advance()?;
                let v = self.var(&n);
                self.record_use(v, UseKind::Array);
                Ok(v)
            }
            _ => Err(self.unexpected()),
        }
    }

    fn match_level(&mut self, no_gt: bool) -> PResult<Expr> {
        let mut l = self.relational(no_gt)?;
        // Each link of a chain deepens the (left-deep) tree by one.
        let mark = self.depth;
        loop {
            let neg = match self.peek()? {
                Tok::Tilde => false,
                Tok::NoMatch => true,
                _ => {
                    self.depth = mark;
                    return Ok(l);
                }
            };
            self.advance()?;
            self.nest()?;
            let r = self.relational(no_gt)?;
            let r = self.const_regex(r)?;
            l = Expr::Match(neg, Box::new(l), Box::new(r));
        }
    }

    fn relational(&mut self, no_gt: bool) -> PResult<Expr> {
        let mut l = self.getline_pipe(no_gt)?;
        // Each link of a chain deepens the (left-deep) tree by one.
        let mark = self.depth;
        loop {
            let op = match self.peek()? {
                Tok::Lt => CmpOp::Lt,
                Tok::Le => CmpOp::Le,
                Tok::Gt if !no_gt => CmpOp::Gt,
                Tok::Ge => CmpOp::Ge,
                Tok::Eq => CmpOp::Eq,
                Tok::Ne => CmpOp::Ne,
                _ => {
                    self.depth = mark;
                    return Ok(l);
                }
            };
            self.advance()?;
            self.nest()?;
            let r = self.getline_pipe(no_gt)?;
            l = Expr::Cmp(op, Box::new(l), Box::new(r));
        }
    }

    /// `cmd | getline [lvalue]`, which binds looser than concatenation.
    fn getline_pipe(&mut self, no_gt: bool) -> PResult<Expr> {
        let mut l = self.concat_level(no_gt)?;
        // Each link of a chain deepens the (left-deep) tree by one.
        let mark = self.depth;
        while self.is(&Tok::Pipe)? && self.peek2()? == &Tok::Getline {
            self.advance()?;
            self.advance()?;
            self.nest()?;
            let lv = self.getline_target()?;
            l = Expr::Getline {
                src: GetSrc::Cmd(Box::new(l)),
                lv,
            };
        }
        self.depth = mark;
        // Outside `print`, a `|` can only start `| getline`: mawk's grammar takes the `|` and
        // stumbles on the word after it (`$(x | awk …)`: "syntax error at or near awk").
        if !no_gt && self.is(&Tok::Pipe)? {
            self.advance()?;
            return Err(self.unexpected());
        }
        Ok(l)
    }

    fn starts_operand(&mut self) -> PResult<bool> {
        Ok(match self.peek()? {
            Tok::Number(_)
            | Tok::Str(_)
            | Tok::Name(_)
            | Tok::FuncName(_)
            | Tok::Builtin(_)
            | Tok::Dollar
            | Tok::Not
            | Tok::LParen
            | Tok::Minus
            | Tok::Plus
            | Tok::Incr
            | Tok::Decr => true,
            // `in` after an operand is the operator, not a concatenation.
            _ => false,
        })
    }

    fn concat_level(&mut self, no_gt: bool) -> PResult<Expr> {
        let mut l = self.additive(no_gt)?;
        // Each link of a chain deepens the (left-deep) tree by one.
        let mark = self.depth;
        loop {
            // `-`/`+` after an operand were taken as binary by `additive`; `!` would be a
            // `!=`/`!~` typo more often than a concatenation.
            if matches!(self.peek()?, Tok::Minus | Tok::Plus | Tok::Not)
                || !self.starts_operand()?
            {
                self.depth = mark;
                return Ok(l);
            }
            self.nest()?;
            let r = self.additive(no_gt)?;
            l = Expr::Concat(Box::new(l), Box::new(r));
        }
    }

    fn additive(&mut self, no_gt: bool) -> PResult<Expr> {
        let mut l = self.multiplicative(no_gt)?;
        // Each link of a chain deepens the (left-deep) tree by one.
        let mark = self.depth;
        loop {
            let op = match self.peek()? {
                Tok::Plus => BinOp::Add,
                Tok::Minus => BinOp::Sub,
                _ => {
                    self.depth = mark;
                    return Ok(l);
                }
            };
            self.advance()?;
            self.nest()?;
            let r = self.multiplicative(no_gt)?;
            l = Expr::Binary(op, Box::new(l), Box::new(r));
        }
    }

    fn multiplicative(&mut self, no_gt: bool) -> PResult<Expr> {
        let mut l = self.unary(no_gt)?;
        // Each link of a chain deepens the (left-deep) tree by one.
        let mark = self.depth;
        loop {
            let op = match self.peek()? {
                Tok::Star => BinOp::Mul,
                Tok::Slash => BinOp::Div,
                Tok::Percent => BinOp::Mod,
                _ => {
                    self.depth = mark;
                    return Ok(l);
                }
            };
            self.advance()?;
            self.nest()?;
            let r = self.unary(no_gt)?;
            l = Expr::Binary(op, Box::new(l), Box::new(r));
        }
    }

    fn unary(&mut self, no_gt: bool) -> PResult<Expr> {
        self.nest()?;
        let r = match self.peek()? {
            Tok::Not => {
                self.advance()?;
                Ok(Expr::Not(Box::new(self.unary(no_gt)?)))
            }
            Tok::Minus => {
                self.advance()?;
                Ok(Expr::Neg(Box::new(self.unary(no_gt)?)))
            }
            Tok::Plus => {
                self.advance()?;
                Ok(Expr::Plus(Box::new(self.unary(no_gt)?)))
            }
            _ => self.power(no_gt),
        };
        self.depth -= 1;
        r
    }

    fn power(&mut self, no_gt: bool) -> PResult<Expr> {
        let base = self.incdec(no_gt)?;
        if self.eat(&Tok::Caret)? {
            // Right-associative, and the exponent may carry a sign: 2^-1, 2^3^2.
            let exp = self.power_rhs(no_gt)?;
            return Ok(Expr::Binary(BinOp::Pow, Box::new(base), Box::new(exp)));
        }
        Ok(base)
    }

    fn power_rhs(&mut self, no_gt: bool) -> PResult<Expr> {
        self.nest()?;
        let r = match self.peek()? {
            Tok::Minus => {
                self.advance()?;
                Ok(Expr::Neg(Box::new(self.power_rhs(no_gt)?)))
            }
            Tok::Plus => {
                self.advance()?;
                Ok(Expr::Plus(Box::new(self.power_rhs(no_gt)?)))
            }
            Tok::Not => {
                self.advance()?;
                Ok(Expr::Not(Box::new(self.power_rhs(no_gt)?)))
            }
            _ => self.power(no_gt),
        };
        self.depth -= 1;
        r
    }

    fn incdec(&mut self, no_gt: bool) -> PResult<Expr> {
        let pre = match self.peek()? {
            Tok::Incr => Some(true),
            Tok::Decr => Some(false),
            _ => None,
        };
        if let Some(inc) = pre {
            self.advance()?;
            let lv = self.primary(no_gt)?;
            if !lv.is_lvalue() {
                return Err(self.unexpected());
            }
            return Ok(Expr::IncDec {
                lv: Box::new(lv),
                inc,
                pre: true,
            });
        }
        let e = self.primary(no_gt)?;
        if e.is_lvalue() {
            let post = match self.peek()? {
                Tok::Incr => Some(true),
                Tok::Decr => Some(false),
                _ => None,
            };
            if let Some(inc) = post {
                self.advance()?;
                return Ok(Expr::IncDec {
                    lv: Box::new(e),
                    inc,
                    pre: false,
                });
            }
        }
        Ok(e)
    }

    /// The operand of `$`: `$NF`, `$i++` is `($i)++`, `$++i`, `$-1`, `$(i+1)`.
    fn field_operand(&mut self, no_gt: bool) -> PResult<Expr> {
        self.nest()?;
        let r = match self.peek()? {
            Tok::Incr | Tok::Decr => self.incdec(no_gt),
            Tok::Minus => {
                self.advance()?;
                Ok(Expr::Neg(Box::new(self.field_operand(no_gt)?)))
            }
            Tok::Plus => {
                self.advance()?;
                Ok(Expr::Plus(Box::new(self.field_operand(no_gt)?)))
            }
            Tok::Not => {
                self.advance()?;
                Ok(Expr::Not(Box::new(self.field_operand(no_gt)?)))
            }
            _ => self.primary(no_gt),
        };
        self.depth -= 1;
        r
    }

    fn getline_target(&mut self) -> PResult<Option<Box<Expr>>> {
        match self.peek()? {
            Tok::Name(_) | Tok::Dollar => {
                let e = self.primary(false)?;
                if !e.is_lvalue() {
                    return Err(self.unexpected());
                }
                Ok(Some(Box::new(e)))
            }
            _ => Ok(None),
        }
    }

    fn primary(&mut self, no_gt: bool) -> PResult<Expr> {
        self.nest()?;
        let r = self.primary_inner(no_gt);
        self.depth -= 1;
        r
    }

    fn primary_inner(&mut self, no_gt: bool) -> PResult<Expr> {
        let t = self.advance()?;
        match t.tok {
            Tok::Number(n) => Ok(Expr::Num(n)),
            Tok::Str(s) => Ok(Expr::Str(s)),
            Tok::Slash | Tok::DivAssign => {
                self.buf.clear();
                let rt = self.lx.regex_at(t.start, t.line)?;
                let Tok::Ere(src) = rt.tok else {
                    unreachable!("regex_at returns an Ere token")
                };
                let re = self.compile_regex(&src, t.line)?;
                Ok(Expr::Regex(re))
            }
            Tok::Dollar => {
                let e = self.field_operand(no_gt)?;
                Ok(Expr::Field(Box::new(e)))
            }
            Tok::LParen => {
                let first = self.expr(false)?;
                self.skip_newlines()?;
                if self.is(&Tok::Comma)? {
                    // (a, b) in arr
                    let mut list = vec![first];
                    while self.eat(&Tok::Comma)? {
                        self.skip_newlines()?;
                        list.push(self.expr(false)?);
                        self.skip_newlines()?;
                    }
                    self.expect_close_paren()?;
                    if !self.is(&Tok::In)? {
                        return Err(self.unexpected());
                    }
                    self.advance()?;
                    let arr = self.array_name()?;
                    return Ok(Expr::In(list, arr));
                }
                self.expect_close_paren()?;
                Ok(Expr::Group(Box::new(first)))
            }
            Tok::Not | Tok::Minus | Tok::Plus => {
                // Reached from `$`-less contexts such as `x = -y` via unary(); here only
                // after `++`, which is an error.
                self.buf.push_front(t);
                Err(self.unexpected())
            }
            Tok::Name(n) => {
                if self.declared_funcs.contains(&n) && self.is(&Tok::LParen)? {
                    return self.call(n, t.line);
                }
                let v = self.var(&n);
                if self.eat(&Tok::LBracket)? {
                    self.record_use(v, UseKind::Array);
                    let subs = self.expr_list(&Tok::RBracket)?;
                    if subs.is_empty() {
                        return Err(self.err("syntax error at or near ]"));
                    }
                    Ok(Expr::Index(v, subs))
                } else {
                    self.record_use(v, UseKind::Scalar);
                    Ok(Expr::Var(v))
                }
            }
            Tok::FuncName(n) => self.call(n, t.line),
            Tok::Builtin(b) => self.builtin(b),
            Tok::Getline => {
                let lv = self.getline_target()?;
                if self.eat(&Tok::Lt)? {
                    let file = self.incdec(no_gt)?;
                    Ok(Expr::Getline {
                        src: GetSrc::File(Box::new(file)),
                        lv,
                    })
                } else {
                    Ok(Expr::Getline {
                        src: GetSrc::Main,
                        lv,
                    })
                }
            }
            _ => {
                self.buf.push_front(t);
                Err(self.unexpected())
            }
        }
    }

    fn expect_close_paren(&mut self) -> PResult<()> {
        if self.eat(&Tok::RParen)? {
            return Ok(());
        }
        let near = match self.peek()? {
            Tok::RBrace => "}".to_string(),
            Tok::Eof => "end of file".to_string(),
            _ => return Err(self.unexpected()),
        };
        let line = self.line();
        Err(ParseError {
            line,
            msg: format!("missing ) near {near}"),
            bare_line: false,
            then: None,
        })
    }

    fn call(&mut self, name: String, line: usize) -> PResult<Expr> {
        self.expect(&Tok::LParen)?;
        let fi = self.func_index(&name, line);
        let mut args = Vec::new();
        self.skip_newlines()?;
        if !self.eat(&Tok::RParen)? {
            loop {
                self.skip_newlines()?;
                // A bare name may be an array passed by reference: its kind is settled
                // after parsing.
                let bare = self.bare_name()?;
                if let Some(n) = bare {
                    self.advance()?;
                    let v = self.var(&n);
                    self.record_use(v, UseKind::Arg(fi, args.len()));
                    args.push(Expr::Var(v));
                } else {
                    args.push(self.expr(false)?);
                }
                self.skip_newlines()?;
                if self.eat(&Tok::RParen)? {
                    break;
                }
                self.expect(&Tok::Comma)?;
            }
        }
        Ok(Expr::Call(fi, args))
    }

    /// A lone name as a call argument (`f(a, b)`), which may be an array. Only looks at
    /// the second token when the first is a name: lexing past a `/` could misread a regex.
    fn bare_name(&mut self) -> PResult<Option<String>> {
        let Tok::Name(n) = self.peek()?.clone() else {
            return Ok(None);
        };
        if self.declared_funcs.contains(&n) {
            return Ok(None);
        }
        Ok(match self.peek2()? {
            Tok::Comma | Tok::RParen => Some(n),
            _ => None,
        })
    }

    fn builtin(&mut self, b: Builtin) -> PResult<Expr> {
        if b == Builtin::Length && !self.is(&Tok::LParen)? {
            return Ok(Expr::Builtin(b, Vec::new()));
        }
        self.expect(&Tok::LParen)?;
        let mut args = Vec::new();
        self.skip_newlines()?;
        if !self.eat(&Tok::RParen)? {
            let mut i = 0;
            loop {
                self.skip_newlines()?;
                let array_arg = (b == Builtin::Split && i == 1) || (b == Builtin::Length && i == 0);
                if array_arg {
                    if let Some(n) = self.bare_name()? {
                        self.advance()?;
                        let v = self.var(&n);
                        self.record_use(
                            v,
                            if b == Builtin::Split {
                                UseKind::Array
                            } else {
                                UseKind::Neutral
                            },
                        );
                        args.push(Expr::Var(v));
                    } else if b == Builtin::Split {
                        return Err(self.unexpected());
                    } else {
                        args.push(self.expr(false)?);
                    }
                } else {
                    args.push(self.expr(false)?);
                }
                i += 1;
                self.skip_newlines()?;
                if self.eat(&Tok::RParen)? {
                    break;
                }
                if self.is(&Tok::RBrace)? || self.is(&Tok::Eof)? {
                    return self.expect_close_paren().map(|_| Expr::Num(0.0));
                }
                self.expect(&Tok::Comma)?;
            }
        }
        let (min, max) = match b {
            Builtin::Length => (0, 1),
            Builtin::Substr => (2, 3),
            Builtin::Index => (2, 2),
            Builtin::Split => (2, 3),
            Builtin::Sub | Builtin::Gsub => (2, 3),
            Builtin::Match => (2, 2),
            Builtin::Sprintf => (1, usize::MAX),
            Builtin::Sin
            | Builtin::Cos
            | Builtin::Exp
            | Builtin::Log
            | Builtin::Sqrt
            | Builtin::Int
            | Builtin::Tolower
            | Builtin::Toupper
            | Builtin::System => (1, 1),
            Builtin::Atan2 => (2, 2),
            Builtin::Rand => (0, 0),
            Builtin::Srand | Builtin::Fflush => (0, 1),
            Builtin::Systime => (0, 0),
            Builtin::Strftime => (0, 3),
            Builtin::Mktime => (1, 1),
            Builtin::Close => (1, 2),
        };
        if args.len() < min || args.len() > max {
            return Err(self.err(format!(
                "wrong number of arguments in call to {}",
                builtin_name(b)
            )));
        }
        // A constant string in a regex position is compiled now, as mawk does: its errors
        // are reported as parse errors.
        let re_arg = match b {
            Builtin::Sub | Builtin::Gsub => Some(0),
            Builtin::Match => Some(1),
            _ => None,
        };
        if let Some(i) = re_arg {
            let e = std::mem::replace(&mut args[i], Expr::Num(0.0));
            args[i] = self.const_regex(e)?;
        }
        Ok(Expr::Builtin(b, args))
    }

    fn const_regex(&mut self, e: Expr) -> PResult<Expr> {
        match e {
            Expr::Str(s) => {
                let line = self.line();
                Ok(Expr::Regex(self.compile_regex(&s, line)?))
            }
            e => Ok(e),
        }
    }

    // ----- after parsing: function checks and array/scalar inference -----

    fn finish(&mut self, mut prog: Program) -> PResult<Program> {
        let eof_line = self.lx.eof_line();
        for f in &self.funcs {
            if !f.defined {
                let _ = f.first_call_line;
                return Err(ParseError {
                    line: eof_line,
                    msg: format!("function {} never defined", f.name),
                    bare_line: false,
                    then: None,
                });
            }
        }
        let mut gty = vec![Ty::Unknown; self.globals.len()];
        for (i, t) in gty.iter_mut().enumerate().take(special::COUNT) {
            *t = if i == special::ENVIRON || i == special::ARGV {
                Ty::Array
            } else {
                Ty::Scalar
            };
        }
        let mut lty: Vec<Vec<Ty>> = self
            .funcs
            .iter()
            .map(|f| vec![Ty::Unknown; f.params.len()])
            .collect();
        // Direct uses.
        for u in &self.uses {
            let want = match u.kind {
                UseKind::Scalar => Ty::Scalar,
                UseKind::Array => Ty::Array,
                _ => continue,
            };
            let (slot, name) = match u.func {
                None => (&mut gty[u.var], self.globals[u.var].clone()),
                Some(f) => (&mut lty[f][u.var], self.funcs[f].params[u.var].clone()),
            };
            if *slot == Ty::Unknown {
                *slot = want;
            } else if *slot != want {
                let what = if *slot == Ty::Array {
                    "array"
                } else {
                    "variable"
                };
                return Err(ParseError {
                    line: u.line,
                    msg: format!("illegal reference to {what} {name}"),
                    bare_line: false,
                    then: None,
                });
            }
        }
        // Arguments: propagate kinds both ways until nothing changes.
        loop {
            let mut changed = false;
            for u in &self.uses {
                let UseKind::Arg(f, pos) = u.kind else {
                    continue;
                };
                let caller = match u.func {
                    None => gty[u.var],
                    Some(cf) => lty[cf][u.var],
                };
                let Some(&callee) = lty[f].get(pos) else {
                    // Extra argument: reported at run time by the arity check below.
                    continue;
                };
                match (caller, callee) {
                    (Ty::Unknown, Ty::Unknown) => {}
                    (a, Ty::Unknown) => {
                        lty[f][pos] = a;
                        changed = true;
                    }
                    (Ty::Unknown, b) => {
                        match u.func {
                            None => gty[u.var] = b,
                            Some(cf) => lty[cf][u.var] = b,
                        }
                        changed = true;
                    }
                    (a, b) if a != b => {
                        return Err(ParseError {
                            line: u.line,
                            msg: format!(
                                "type error in arg({}) in call to {}",
                                pos + 1,
                                self.funcs[f].name
                            ),
                            bare_line: false,
                            then: None,
                        });
                    }
                    _ => {}
                }
            }
            if !changed {
                break;
            }
        }
        prog.global_names = self.globals.clone();
        prog.global_is_array = gty.iter().map(|t| *t == Ty::Array).collect();
        for (i, f) in self.funcs.iter_mut().enumerate() {
            prog.funcs.push(Function {
                name: f.name.clone(),
                nparams: f.params.len(),
                param_is_array: lty[i].iter().map(|t| *t == Ty::Array).collect(),
                body: f.body.take().unwrap_or_default(),
            });
        }
        Ok(prog)
    }
}

fn builtin_name(b: Builtin) -> String {
    format!("{b:?}").to_lowercase()
}

/// Names after `function` anywhere in the source, so that `f (x)` (with a space) is a call
/// even before `f` is defined. Occurrences inside strings or comments are harmless: they
/// only matter for a name that is also followed by `(` elsewhere.
fn prescan_functions(src: &[u8], gawk: bool) -> HashSet<String> {
    let mut out = HashSet::new();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut i = 0;
    while i < src.len() {
        if word(src[i]) && (i == 0 || !word(src[i - 1])) {
            let start = i;
            while i < src.len() && word(src[i]) {
                i += 1;
            }
            let w = &src[start..i];
            if w == b"function" || (gawk && w == b"func") {
                let mut j = i;
                while j < src.len() && (src[j] == b' ' || src[j] == b'\t') {
                    j += 1;
                }
                let ns = j;
                while j < src.len() && word(src[j]) {
                    j += 1;
                }
                if j > ns {
                    out.insert(String::from_utf8_lossy(&src[ns..j]).into_owned());
                }
            }
        } else {
            i += 1;
        }
    }
    out
}

/// How mawk shows a token in `syntax error at or near …`.
fn describe(t: &Tok) -> String {
    let s = match t {
        Tok::Newline => "end of line",
        Tok::Eof => "end of file",
        Tok::LBrace => "{",
        Tok::RBrace => "}",
        Tok::LParen => "(",
        Tok::RParen => ")",
        Tok::LBracket => "[",
        Tok::RBracket => "]",
        Tok::Semi => ";",
        Tok::Comma => ",",
        Tok::Plus => "+",
        Tok::Minus => "-",
        Tok::Star => "*",
        Tok::Slash => "/",
        Tok::Percent => "%",
        Tok::Caret => "^",
        Tok::Not => "!",
        Tok::Gt => ">",
        Tok::Lt => "<",
        Tok::Pipe => "|",
        Tok::Question => "?",
        Tok::Colon => ":",
        Tok::Tilde => "~",
        Tok::NoMatch => "!~",
        Tok::Dollar => "$",
        Tok::Eq => "==",
        Tok::Ne => "!=",
        Tok::Le => "<=",
        Tok::Ge => ">=",
        Tok::And => "&&",
        Tok::Or => "||",
        Tok::Incr => "++",
        Tok::Decr => "--",
        Tok::Append => ">>",
        Tok::Assign => "=",
        Tok::AddAssign => "+=",
        Tok::SubAssign => "-=",
        Tok::MulAssign => "*=",
        Tok::DivAssign => "/=",
        Tok::ModAssign => "%=",
        Tok::PowAssign => "^=",
        Tok::Number(n) => {
            return super::value::num_to_str(*n, b"%.6g")
                .iter()
                .map(|&c| c as char)
                .collect();
        }
        Tok::Str(s) => return format!("\"{}\"", String::from_utf8_lossy(s)),
        Tok::Ere(s) => return format!("/{}/", String::from_utf8_lossy(s)),
        Tok::Name(n) | Tok::FuncName(n) => return n.clone(),
        Tok::Builtin(b) => return builtin_name(*b),
        Tok::Begin => "BEGIN",
        Tok::End => "END",
        Tok::Function => "function",
        Tok::Getline => "getline",
        Tok::Print => "print",
        Tok::Printf => "printf",
        Tok::If => "if",
        Tok::Else => "else",
        Tok::While => "while",
        Tok::For => "for",
        Tok::Do => "do",
        Tok::Break => "break",
        Tok::Continue => "continue",
        Tok::Next => "next",
        Tok::Nextfile => "nextfile",
        Tok::Exit => "exit",
        Tok::Return => "return",
        Tok::Delete => "delete",
        Tok::In => "in",
    };
    s.to_string()
}
