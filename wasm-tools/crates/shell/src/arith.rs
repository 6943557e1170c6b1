//! Shell arithmetic (`$(( ))`, `(( ))`, `let`, array indices) on 64-bit integers with bash's
//! wrapping semantics; division by zero is an error like bash's.

use crate::error::ExpandError;
use crate::state::Shell;
use brush_parser::ast::{
    ArithmeticExpr as E, ArithmeticTarget, BinaryOperator as B, UnaryAssignmentOperator as UA,
    UnaryOperator as U,
};

type R<T> = Result<T, ExpandError>;

const DIVISION_BY_ZERO: &str = "division by 0";
const NEGATIVE_EXPONENT: &str = "exponent less than 0";

impl Shell {
    /// Expands `$` parameters and substitutions inside the text, then evaluates it.
    pub fn eval_arith_str(&mut self, text: &str) -> R<i64> {
        let expanded = if text.contains('$') || text.contains('`') {
            self.expand_single(text)?
        } else {
            text.to_string()
        };
        // Double quotes are removed before bash evaluates (`$(( "5" + 1 ))` is 6).
        let expanded = if expanded.contains('"') {
            expanded.replace('"', "")
        } else {
            expanded
        };
        let trimmed = expanded.trim();
        if trimmed.is_empty() {
            return Ok(0);
        }
        let expr = brush_parser::arithmetic::parse(trimmed).map_err(|_| {
            ExpandError(self.arith_syntax_error(&expanded).unwrap_or_else(|| {
                format!(
                    "{trimmed}: syntax error: invalid arithmetic operator (error token is \"{trimmed}\")"
                )
            }))
        })?;
        self.eval_arith(&expr, 0).map_err(|e| {
            if e.0 == NEGATIVE_EXPONENT && self.dialect == crate::dialect::Dialect::Bash {
                let shown = expanded.trim_start_matches([' ', '\t', '\n']);
                let token = crate::arith_syntax::exponent_error_token(shown);
                return ExpandError(format!(
                    "{shown}: {NEGATIVE_EXPONENT} (error token is \"{token}\")"
                ));
            }
            if e.0 != DIVISION_BY_ZERO {
                return e;
            }
            // bash names the expression (leading blanks dropped) and the text from the divisor
            // on: `5/0+1: division by 0 (error token is "0+1")`. The parsed tree keeps no
            // positions, so the divisor is taken to follow the last `/` or `%`, which is the
            // one that failed unless an earlier division by zero comes first.
            if self.dialect == crate::dialect::Dialect::Dash {
                return ExpandError(format!(
                    "arithmetic expression: division by zero: \"{trimmed}\""
                ));
            }
            let shown = expanded.trim_start();
            let token = shown.rfind(['/', '%']).map_or("", |at| {
                shown[at + 1..].trim_start_matches('=').trim_start()
            });
            ExpandError(format!(
                "{shown}: {DIVISION_BY_ZERO} (error token is \"{token}\")"
            ))
        })
    }

    /// bash's words for a malformed expression (dash words its errors otherwise; its own
    /// message stays the generic one).
    fn arith_syntax_error(&self, text: &str) -> Option<String> {
        if self.dialect == crate::dialect::Dialect::Dash {
            return None;
        }
        crate::arith_syntax::syntax_error(text)
    }

    fn arith_var(&mut self, name: &str, depth: usize) -> R<i64> {
        let Some(v) = self.get_scalar(name) else {
            return self.unset_in_arithmetic(name);
        };
        let v = v.trim();
        if v.is_empty() {
            return Ok(0);
        }
        if let Some(n) = parse_number(v) {
            return Ok(n);
        }
        if depth > 50 {
            return Err(ExpandError(format!(
                "{name}: expression recursion level exceeded"
            )));
        }
        // A variable holding an expression is evaluated recursively, as bash does.
        let expr = brush_parser::arithmetic::parse(v).map_err(|_| {
            ExpandError(
                self.arith_syntax_error(v)
                    .unwrap_or_else(|| format!("{v}: syntax error in expression")),
            )
        })?;
        self.eval_arith(&expr, depth + 1)
    }

    /// An unset variable in arithmetic is 0, or with `set -u` the fatal "unbound variable".
    fn unset_in_arithmetic(&mut self, name: &str) -> R<i64> {
        if !self.options.nounset {
            return Ok(0);
        }
        self.unset_parameter_failed = true;
        Err(ExpandError(format!("{name}: unbound variable")))
    }

    /// An element's subscript: an associative array's is its text (`c[x]` is key `x`, not
    /// the value of `x`), any other array's an arithmetic index.
    fn element_key(&mut self, name: &str, idx: &E, depth: usize) -> R<String> {
        if matches!(
            self.get_var(name).map(|v| &v.value),
            Some(crate::state::Value::Assoc(_))
        ) {
            return Ok(idx.to_string());
        }
        Ok(self.eval_arith(idx, depth)?.to_string())
    }

    fn target_get(&mut self, t: &ArithmeticTarget, depth: usize) -> R<i64> {
        match t {
            ArithmeticTarget::Variable(n) => self.arith_var(n, depth),
            ArithmeticTarget::ArrayElement(n, idx) => {
                let key = self.element_key(n, idx, depth)?;
                let v = match self.get_var(n).map(|v| &v.value) {
                    Some(crate::state::Value::Indexed(m)) => key
                        .parse::<i64>()
                        .ok()
                        .and_then(|i| m.get(&i).cloned())
                        .unwrap_or_default(),
                    // `set -u` minds a missing key of an associative array (not a missing
                    // index of an indexed one).
                    Some(crate::state::Value::Assoc(m)) => match m.get(&key) {
                        Some(v) => v.clone(),
                        None => return self.unset_in_arithmetic(n),
                    },
                    Some(crate::state::Value::Scalar(s)) if key == "0" => s.clone(),
                    _ => String::new(),
                };
                Ok(parse_number(v.trim()).unwrap_or(0))
            }
        }
    }

    fn target_set(&mut self, t: &ArithmeticTarget, v: i64, depth: usize) -> R<()> {
        match t {
            ArithmeticTarget::Variable(n) => self
                .set_value(n, crate::state::Value::Scalar(v.to_string()))
                .map_err(ExpandError),
            ArithmeticTarget::ArrayElement(n, idx) => {
                let key = self.element_key(n, idx, depth)?;
                self.set_element(n, &key, v.to_string())
                    .map_err(ExpandError)
            }
        }
    }

    pub fn eval_arith(&mut self, e: &E, depth: usize) -> R<i64> {
        Ok(match e {
            E::Literal(n) => *n,
            E::Reference(t) => self.target_get(t, depth)?,
            E::UnaryOp(op, a) => {
                let a = self.eval_arith(a, depth)?;
                match op {
                    U::UnaryPlus => a,
                    U::UnaryMinus => a.wrapping_neg(),
                    U::BitwiseNot => !a,
                    U::LogicalNot => (a == 0) as i64,
                }
            }
            E::BinaryOp(op, a, b) => match op {
                B::LogicalAnd => {
                    (self.eval_arith(a, depth)? != 0 && self.eval_arith(b, depth)? != 0) as i64
                }
                B::LogicalOr => {
                    (self.eval_arith(a, depth)? != 0 || self.eval_arith(b, depth)? != 0) as i64
                }
                _ => {
                    let x = self.eval_arith(a, depth)?;
                    let y = self.eval_arith(b, depth)?;
                    binary(op, x, y)?
                }
            },
            E::Conditional(c, a, b) => {
                if self.eval_arith(c, depth)? != 0 {
                    self.eval_arith(a, depth)?
                } else {
                    self.eval_arith(b, depth)?
                }
            }
            E::Assignment(t, v) => {
                let v = self.eval_arith(v, depth)?;
                self.target_set(t, v, depth)?;
                v
            }
            E::BinaryAssignment(op, t, v) => {
                let cur = self.target_get(t, depth)?;
                let v = self.eval_arith(v, depth)?;
                let r = binary(op, cur, v)?;
                self.target_set(t, r, depth)?;
                r
            }
            E::UnaryAssignment(op, t) => {
                let cur = self.target_get(t, depth)?;
                let (new, result) = match op {
                    UA::PrefixIncrement => (cur.wrapping_add(1), cur.wrapping_add(1)),
                    UA::PrefixDecrement => (cur.wrapping_sub(1), cur.wrapping_sub(1)),
                    UA::PostfixIncrement => (cur.wrapping_add(1), cur),
                    UA::PostfixDecrement => (cur.wrapping_sub(1), cur),
                };
                self.target_set(t, new, depth)?;
                result
            }
        })
    }
}

fn binary(op: &B, x: i64, y: i64) -> R<i64> {
    Ok(match op {
        B::Power => {
            if y < 0 {
                return Err(ExpandError(NEGATIVE_EXPONENT.into()));
            }
            x.wrapping_pow(y.min(u32::MAX as i64) as u32)
        }
        B::Multiply => x.wrapping_mul(y),
        B::Divide | B::Modulo => {
            if y == 0 {
                return Err(ExpandError(DIVISION_BY_ZERO.into()));
            }
            if matches!(op, B::Divide) {
                x.wrapping_div(y)
            } else {
                x.wrapping_rem(y)
            }
        }
        B::Comma => y,
        B::Add => x.wrapping_add(y),
        B::Subtract => x.wrapping_sub(y),
        B::ShiftLeft => x.wrapping_shl(y as u32),
        B::ShiftRight => x.wrapping_shr(y as u32),
        B::LessThan => (x < y) as i64,
        B::LessThanOrEqualTo => (x <= y) as i64,
        B::GreaterThan => (x > y) as i64,
        B::GreaterThanOrEqualTo => (x >= y) as i64,
        B::Equals => (x == y) as i64,
        B::NotEquals => (x != y) as i64,
        B::BitwiseAnd => x & y,
        B::BitwiseXor => x ^ y,
        B::BitwiseOr => x | y,
        B::LogicalAnd => (x != 0 && y != 0) as i64,
        B::LogicalOr => (x != 0 || y != 0) as i64,
    })
}

/// Decimal, `0x` hex, leading-zero octal and `base#digits`.
pub fn parse_number(s: &str) -> Option<i64> {
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let v = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        i64::from_str_radix(h, 16).ok()?
    } else if let Some((base, digits)) = s.split_once('#') {
        let base: u32 = base.parse().ok()?;
        if !(2..=36).contains(&base) {
            return None;
        }
        i64::from_str_radix(digits, base).ok()?
    } else if s.len() > 1 && s.starts_with('0') {
        i64::from_str_radix(&s[1..], 8).ok()?
    } else {
        s.parse().ok()?
    };
    Some(if neg { v.wrapping_neg() } else { v })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic() {
        let mut sh = Shell::new("bash".into(), &[]);
        assert_eq!(sh.eval_arith_str("1 + 2 * 3").unwrap(), 7);
        assert_eq!(sh.eval_arith_str("x = 5, x * 2").unwrap(), 10);
        assert_eq!(sh.get_scalar("x").as_deref(), Some("5"));
        assert_eq!(sh.eval_arith_str("x++ + ++x").unwrap(), 12);
        assert_eq!(sh.eval_arith_str("2 ** 10").unwrap(), 1024);
        assert_eq!(sh.eval_arith_str("-7 / 2").unwrap(), -3);
        assert_eq!(sh.eval_arith_str("010 + 0x10").unwrap(), 24);
        // As bash 5 words them (`echo $((…))` on this host).
        for (text, message) in [
            ("5/0+1", "5/0+1: division by 0 (error token is \"0+1\")"),
            (" 1 / 0 ", "1 / 0 : division by 0 (error token is \"0 \")"),
            (
                "1/(2-2)",
                "1/(2-2): division by 0 (error token is \"(2-2)\")",
            ),
            ("(1%0)", "(1%0): division by 0 (error token is \"0)\")"),
        ] {
            assert_eq!(sh.eval_arith_str(text).unwrap_err().0, message);
        }
        assert!(sh.eval_arith_str("1 / 0").is_err());
    }
}
