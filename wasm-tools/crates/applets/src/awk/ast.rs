//! The parsed program. Names are resolved at parse time: globals and function parameters
//! are slots, and each slot is known to hold either a scalar or an array (mawk's rule: a
//! name is one or the other for the whole program; parameters get their kind from use and
//! from the arguments passed to them).

use super::lexer::Builtin;
use super::regex::AwkRegex;
use super::value::Str;
use std::rc::Rc;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Var {
    Global(usize),
    /// A function parameter (or extra parameter used as a local) of the running function.
    Local(usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Pow,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

#[derive(Debug)]
pub enum GetSrc {
    /// Plain `getline`: the main input (updates NR and FNR).
    Main,
    File(Box<Expr>),
    Cmd(Box<Expr>),
}

#[derive(Debug)]
pub enum Expr {
    Num(f64),
    Str(Str),
    /// A regex literal; as a value it matches against `$0`.
    Regex(Rc<AwkRegex>),
    Var(Var),
    Field(Box<Expr>),
    Index(Var, Vec<Expr>),
    /// `lvalue op= value`; `None` is plain `=`.
    Assign(Box<Expr>, Option<BinOp>, Box<Expr>),
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    Neg(Box<Expr>),
    Plus(Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Cmp(CmpOp, Box<Expr>, Box<Expr>),
    Concat(Box<Expr>, Box<Expr>),
    /// `l ~ r` (or `!~` when the flag is set); `r` may be a regex literal or any expression.
    Match(bool, Box<Expr>, Box<Expr>),
    In(Vec<Expr>, Var),
    IncDec {
        lv: Box<Expr>,
        inc: bool,
        pre: bool,
    },
    Call(usize, Vec<Expr>),
    Builtin(Builtin, Vec<Expr>),
    Getline {
        src: GetSrc,
        lv: Option<Box<Expr>>,
    },
    /// A parenthesised expression; only the parser cares (`print (a)(b)` vs `print (a, b)`).
    Group(Box<Expr>),
}

impl Expr {
    pub fn is_lvalue(&self) -> bool {
        matches!(self, Expr::Var(_) | Expr::Field(_) | Expr::Index(..))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Redir {
    File,
    Append,
    Pipe,
}

#[derive(Debug)]
pub enum Stmt {
    Expr(Expr),
    Print(Vec<Expr>, Option<(Redir, Expr)>),
    Printf(Vec<Expr>, Option<(Redir, Expr)>),
    If(Expr, Box<Stmt>, Option<Box<Stmt>>),
    While(Expr, Box<Stmt>),
    Do(Box<Stmt>, Expr),
    For(Option<Expr>, Option<Expr>, Option<Expr>, Box<Stmt>),
    ForIn(Var, Var, Box<Stmt>),
    Block(Vec<Stmt>),
    Next,
    NextFile,
    Exit(Option<Expr>),
    Return(Option<Expr>),
    Break,
    Continue,
    Delete(Var, Option<Vec<Expr>>),
    Nop,
}

#[derive(Debug)]
pub enum Pattern {
    All,
    Expr(Expr),
    /// `p1, p2`; the runtime keeps one "inside" flag per range rule.
    Range(Expr, Expr),
}

#[derive(Debug)]
pub struct Rule {
    pub pattern: Pattern,
    /// `None`: print the record.
    pub action: Option<Vec<Stmt>>,
}

#[derive(Debug, Default)]
pub struct Function {
    pub name: String,
    pub nparams: usize,
    pub param_is_array: Vec<bool>,
    pub body: Vec<Stmt>,
}

#[derive(Debug, Default)]
pub struct Program {
    pub begin: Vec<Vec<Stmt>>,
    pub rules: Vec<Rule>,
    pub end: Vec<Vec<Stmt>>,
    pub funcs: Vec<Function>,
    pub global_names: Vec<String>,
    pub global_is_array: Vec<bool>,
}

/// Slots of the special variables, which the parser creates first and in this order.
pub mod special {
    pub const NR: usize = 0;
    pub const FNR: usize = 1;
    pub const NF: usize = 2;
    pub const FS: usize = 3;
    pub const OFS: usize = 4;
    pub const ORS: usize = 5;
    pub const RS: usize = 6;
    pub const SUBSEP: usize = 7;
    pub const CONVFMT: usize = 8;
    pub const OFMT: usize = 9;
    pub const RSTART: usize = 10;
    pub const RLENGTH: usize = 11;
    pub const FILENAME: usize = 12;
    pub const ARGC: usize = 13;
    pub const ENVIRON: usize = 14;
    pub const ARGV: usize = 15;
    pub const COUNT: usize = 16;
    pub const NAMES: [&str; COUNT] = [
        "NR", "FNR", "NF", "FS", "OFS", "ORS", "RS", "SUBSEP", "CONVFMT", "OFMT", "RSTART",
        "RLENGTH", "FILENAME", "ARGC", "ENVIRON", "ARGV",
    ];
}
