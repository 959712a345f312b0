//! A hand-written reader of well-formed Boolean programs, tried before the pest grammar.
//!
//! It reads exactly the language of `grammar.pest` and builds the AST the pest builder
//! builds from it, spans included (every span is the extent of the same tokens), but it
//! reports nothing: at the first thing it does not expect — a syntax error, a malformed
//! annotation, a constant other than `0`/`1`, an expression nested too deeply — it gives up,
//! and the pest grammar and its builder read the whole text again and say what is wrong. A
//! program is read by whichever reader; its diagnostics always come from pest's.
//!
//! Why a second reader: c2bp's output is parsed on every iteration of the refinement loop and
//! bebop's input can run to 10^5 statements; pest (which checks its stack on every rule and
//! keeps every token as a pair) took a fifth of bebop's time on such a program. The
//! differential test `fast_and_pest_readers_agree` holds the two readers to the same AST,
//! spans included.

use super::{
    Exprs, Fold, Operand, Positions, Precedence, Rejected, binop, is_ident_char, is_reserved,
    negate, parse_annotation_pairs,
};
use crate::ast::{
    Annotations, CondArm, Decl, Expr, Ident, Lhs, MAX_EXPR_DEPTH, Procedure, Program, RetType,
    Span, Stmt, StmtKind,
};

/// The program `src`, or `None` where the pest reader must take over.
pub(super) fn program(src: &str, pos: &Positions<'_>, prec: Precedence) -> Option<Program> {
    let mut r = Reader {
        src,
        b: src.as_bytes(),
        i: 0,
        last_end: 0,
        pos,
        prec,
    };
    r.program()
}

/// The keywords that close a statement list (and so may stand for a statement's `;`).
const CLOSERS: [&str; 5] = ["end", "fi", "elsif", "else", "od"];

struct Reader<'s, 'p> {
    src: &'s str,
    b: &'s [u8],
    /// The position reached.
    i: usize,
    /// The end of the last token read (a statement's span ends there).
    last_end: usize,
    pos: &'p Positions<'s>,
    prec: Precedence,
}

impl Exprs for Reader<'_, '_> {
    fn span(&self, start: usize, end: usize) -> Span {
        self.pos.span(start, end)
    }

    fn deeper(&mut self, depth: usize, _start: usize, _end: usize) -> Result<usize, Rejected> {
        if depth >= MAX_EXPR_DEPTH {
            return Err(Rejected);
        }
        Ok(depth + 1)
    }
}

impl<'s> Reader<'s, '_> {
    // ---------------------------------------------------------------- tokens

    /// Skips white space and ordinary comments (the grammar's implicit `WHITESPACE` and
    /// `COMMENT`); `None` at an unterminated `/*`.
    fn skip(&mut self) -> Option<()> {
        let b = self.b;
        loop {
            match b.get(self.i) {
                Some(b' ' | b'\t' | b'\r' | b'\n' | 0x0c) => self.i += 1,
                Some(0xef) if b[self.i..].starts_with("\u{FEFF}".as_bytes()) => self.i += 3,
                Some(b'/') if b.get(self.i + 1) == Some(&b'*') => {
                    let close = self.src[self.i + 2..].find("*/")?;
                    self.i += 2 + close + 2;
                }
                Some(b'/')
                    if b.get(self.i + 1) == Some(&b'/') && b.get(self.i + 2) != Some(&b'@') =>
                {
                    self.i = self.src[self.i..]
                        .find('\n')
                        .map_or(b.len(), |n| self.i + n);
                }
                _ => return Some(()),
            }
        }
    }

    /// The position and the end of the last token, to come back to.
    fn mark(&self) -> (usize, usize) {
        (self.i, self.last_end)
    }

    fn reset(&mut self, (i, last_end): (usize, usize)) {
        self.i = i;
        self.last_end = last_end;
    }

    /// Whether the text at the position starts with `s`.
    fn at(&self, s: &str) -> bool {
        self.b[self.i..].starts_with(s.as_bytes())
    }

    /// Reads the punctuation `s` (white space first), `None` when it is not there.
    fn punct(&mut self, s: &str) -> Option<usize> {
        self.skip()?;
        if !self.at(s) {
            return None;
        }
        let start = self.i;
        self.i += s.len();
        self.last_end = self.i;
        Some(start)
    }

    /// The word (a maximal run of identifier characters) at the position, if it starts like
    /// an identifier or keyword.
    fn word(&self) -> &'s str {
        let b = self.b;
        let mut j = self.i;
        if j < b.len() && (b[j].is_ascii_alphabetic() || matches!(b[j], b'_' | b'$')) {
            while j < b.len() && is_ident_char(b[j]) {
                j += 1;
            }
        }
        &self.src[self.i..j]
    }

    /// Whether the keyword `k` is next (white space first).
    fn peek_kw(&mut self, k: &str) -> Option<bool> {
        self.skip()?;
        Some(self.word() == k)
    }

    /// Reads the keyword `k` if it is next; its start.
    fn kw(&mut self, k: &str) -> Option<Option<usize>> {
        if !self.peek_kw(k)? {
            return Some(None);
        }
        let start = self.i;
        self.i += k.len();
        self.last_end = self.i;
        Some(Some(start))
    }

    /// Reads the keyword `k`, which must be next.
    fn expect_kw(&mut self, k: &str) -> Option<usize> {
        self.kw(k)?
    }

    /// Reads an identifier (white space first).
    fn ident(&mut self) -> Option<Ident> {
        self.skip()?;
        let start = self.i;
        let end = if self.b.get(start) == Some(&b'{') {
            let body = &self.b[start + 1..];
            let n = body
                .iter()
                .position(|c| matches!(c, b'{' | b'}' | b'\n' | b'\r'))?;
            if n == 0 || body[n] != b'}' {
                return None;
            }
            start + 1 + n + 1
        } else {
            let w = self.word();
            if w.is_empty() || is_reserved(w) {
                return None;
            }
            start + w.len()
        };
        self.i = end;
        self.last_end = end;
        Some(Ident {
            name: self.src[start..end].to_string(),
            span: self.span(start, end),
        })
    }

    /// `ident (, ident)*`.
    fn idents(&mut self) -> Option<Vec<Ident>> {
        let mut out = vec![self.ident()?];
        while self.punct(",").is_some() {
            out.push(self.ident()?);
        }
        Some(out)
    }

    /// The text of the `//@` (or, `header`, `//@@`) annotation at the position, read.
    fn annotation_line(&mut self, header: bool, into: &mut Annotations) -> Option<()> {
        let lead = if header { "//@@" } else { "//@" };
        if !self.at(lead) || (!header && self.b.get(self.i + 3) == Some(&b'@')) {
            return None;
        }
        let start = self.i + lead.len();
        let end = self.src[start..]
            .find('\n')
            .map_or(self.b.len(), |n| start + n);
        into.0
            .extend(parse_annotation_pairs(&self.src[start..end]).ok()?);
        self.i = end;
        self.last_end = end;
        Some(())
    }

    /// The `//@` lines at the position (white space between).
    fn annotations(&mut self) -> Option<Annotations> {
        let mut a = Annotations::default();
        loop {
            self.skip()?;
            if !self.at("//@") {
                return Some(a);
            }
            self.annotation_line(false, &mut a)?;
        }
    }

    // ---------------------------------------------------------------- program structure

    fn program(&mut self) -> Option<Program> {
        let mut header = Annotations::default();
        loop {
            self.skip()?;
            if !self.at("//@@") {
                break;
            }
            self.annotation_line(true, &mut header)?;
        }
        let mut globals = Vec::new();
        let mut procs = Vec::new();
        loop {
            let annotations = self.annotations()?;
            if self.i == self.b.len() {
                if !annotations.0.is_empty() || self.at("//@") {
                    return None;
                }
                break;
            }
            match self.word() {
                "decl" => globals.push(self.decl(annotations)?),
                "dfs" | "void" | "bool" => procs.push(self.procedure(annotations)?),
                _ => return None,
            }
        }
        Some(Program {
            header,
            globals,
            procs,
            span: self.span(0, self.b.len()),
        })
    }

    /// `decl x, y;` after its annotations.
    fn decl(&mut self, annotations: Annotations) -> Option<Decl> {
        let start = self.expect_kw("decl")?;
        let vars = self.idents()?;
        self.punct(";")?;
        Some(Decl {
            vars,
            annotations,
            span: self.span(start, self.last_end),
        })
    }

    fn procedure(&mut self, annotations: Annotations) -> Option<Procedure> {
        self.skip()?;
        let start = self.i;
        self.kw("dfs")?;
        let ret = if self.kw("void")?.is_some() {
            RetType::Void
        } else {
            self.expect_kw("bool")?;
            if self.punct("<").is_some() {
                self.skip()?;
                let d = self.b[self.i..]
                    .iter()
                    .take_while(|c| c.is_ascii_digit())
                    .count();
                let n: u32 = self.src[self.i..self.i + d].parse().ok()?;
                if d == 0 || n == 0 {
                    return None;
                }
                self.i += d;
                self.punct(">")?;
                RetType::Bool(n)
            } else {
                RetType::Bool(1)
            }
        };
        let name = self.ident()?;
        self.punct("(")?;
        let params = if self.punct(")").is_some() {
            Vec::new()
        } else {
            let p = self.idents()?;
            self.punct(")")?;
            p
        };
        self.expect_kw("begin")?;
        let mut locals = Vec::new();
        loop {
            let before = self.mark();
            let a = self.annotations()?;
            if self.word() != "decl" {
                self.reset(before);
                break;
            }
            locals.push(self.decl(a)?);
        }
        let enforce = if self.kw("enforce")?.is_some() {
            let e = self.cond()?;
            self.punct(";")?;
            Some(e)
        } else {
            None
        };
        let body = self.stmt_seq()?;
        self.expect_kw("end")?;
        Some(Procedure {
            name,
            ret,
            params,
            locals,
            enforce,
            body,
            annotations,
            span: self.span(start, self.last_end),
        })
    }

    // ---------------------------------------------------------------- statements

    /// Statements up to a closing keyword (or the end of the text).
    fn stmt_seq(&mut self) -> Option<Vec<Stmt>> {
        let mut out = Vec::new();
        loop {
            let annotations = self.annotations()?;
            if self.i == self.b.len() || CLOSERS.contains(&self.word()) {
                if !annotations.0.is_empty() {
                    return None;
                }
                return Some(out);
            }
            out.push(self.stmt(annotations)?);
        }
    }

    /// `;`, or nothing before a closing keyword.
    fn stmt_semi(&mut self) -> Option<()> {
        if self.punct(";").is_some() {
            return Some(());
        }
        CLOSERS.contains(&self.word()).then_some(())
    }

    /// An optional `;` (after `fi` and `od`).
    fn opt_semi(&mut self) -> Option<()> {
        self.punct(";");
        Some(())
    }

    fn stmt(&mut self, annotations: Annotations) -> Option<Stmt> {
        let mut labels = Vec::new();
        let mut start = None;
        loop {
            self.skip()?;
            let before = self.mark();
            let Some(id) = self.ident() else {
                self.reset(before);
                break;
            };
            self.skip()?;
            if self.at(":") && !self.at(":=") {
                self.i += 1;
                self.last_end = self.i;
                start.get_or_insert(id.span.start);
                labels.push(id);
            } else {
                self.reset(before);
                break;
            }
        }
        self.skip()?;
        let start = *start.get_or_insert(self.i);
        let kind = self.stmt_kind()?;
        Some(Stmt {
            labels,
            kind,
            annotations,
            span: self.span(start, self.last_end),
        })
    }

    fn stmt_kind(&mut self) -> Option<StmtKind> {
        const KEYWORDS: [&str; 9] = [
            "skip", "print", "goto", "dead", "return", "assert", "assume", "while", "if",
        ];
        let word = self.word();
        if !KEYWORDS.contains(&word) {
            return if is_reserved(word) && word != "_" {
                None
            } else {
                self.assign_or_call()
            };
        }
        self.i += word.len();
        self.last_end = self.i;
        Some(match word {
            "skip" => self.terminated(|_| Some(StmtKind::Skip))?,
            "print" => {
                self.punct("(")?;
                StmtKind::Print(self.terminated(|r| r.args_to(")"))?)
            }
            "goto" => StmtKind::Goto(self.terminated(Self::idents)?),
            "dead" => StmtKind::Dead(self.terminated(Self::idents)?),
            "return" => StmtKind::Return(self.terminated(|r| {
                r.skip()?;
                if r.at(";") || CLOSERS.contains(&r.word()) {
                    Some(Vec::new())
                } else {
                    r.expr_list()
                }
            })?),
            "assert" => StmtKind::Assert(self.terminated(Self::cond)?),
            "assume" => StmtKind::Assume(self.terminated(Self::cond)?),
            "while" => {
                let cond = self.cond()?;
                self.expect_kw("do")?;
                let body = self.stmt_seq()?;
                self.expect_kw("od")?;
                self.opt_semi()?;
                StmtKind::While { cond, body }
            }
            _ => {
                let mut arms = Vec::new();
                loop {
                    let cond = self.cond()?;
                    self.expect_kw("then")?;
                    arms.push(CondArm {
                        cond,
                        body: self.stmt_seq()?,
                    });
                    if self.kw("elsif")?.is_none() {
                        break;
                    }
                }
                let els = match self.kw("else")? {
                    Some(_) => Some(self.stmt_seq()?),
                    None => None,
                };
                self.expect_kw("fi")?;
                self.opt_semi()?;
                StmtKind::If { arms, els }
            }
        })
    }

    /// What `read` reads, then the statement's `;` (or a closing keyword).
    fn terminated<T>(&mut self, read: impl FnOnce(&mut Self) -> Option<T>) -> Option<T> {
        let t = read(self)?;
        self.stmt_semi()?;
        Some(t)
    }

    /// An expression as a condition or operand of a statement.
    fn cond(&mut self) -> Option<Expr> {
        Some(self.expr()?.expr)
    }

    /// `lhs, ... := rhs, ... [constrain e];`, `lhs, ... := f(...);` or `f(...);`.
    fn assign_or_call(&mut self) -> Option<StmtKind> {
        let mut lhs = Vec::new();
        loop {
            self.skip()?;
            if self.word() == "_" {
                let start = self.i;
                self.i += 1;
                self.last_end = self.i;
                lhs.push(Lhs::Discard(self.span(start, self.i)));
            } else {
                lhs.push(Lhs::Var(self.ident()?));
            }
            if self.punct(",").is_none() {
                break;
            }
        }
        self.skip()?;
        if self.at("(") {
            let [Lhs::Var(callee)] = &mut lhs[..] else {
                return None;
            };
            let callee = std::mem::replace(callee, Ident::new(""));
            let kind = self.call_args(callee, Vec::new())?;
            self.stmt_semi()?;
            return Some(kind);
        }
        self.punct(":=")?;
        self.skip()?;
        // A call when an identifier is followed by `(` (no expression continues that way).
        let before = self.mark();
        if let Some(callee) = self.ident() {
            self.skip()?;
            if self.at("(") {
                let kind = self.call_args(callee, lhs)?;
                self.stmt_semi()?;
                return Some(kind);
            }
        }
        self.reset(before);
        let rhs = self.expr_list()?;
        let constrain = match self.kw("constrain")? {
            Some(_) => self.cond(),
            None => None,
        };
        self.stmt_semi()?;
        Some(StmtKind::Assign {
            lhs,
            rhs,
            constrain,
        })
    }

    /// `(args)` of a call to `callee`.
    fn call_args(&mut self, callee: Ident, lhs: Vec<Lhs>) -> Option<StmtKind> {
        self.punct("(")?;
        let args = self.args_to(")")?;
        Some(StmtKind::Call { lhs, callee, args })
    }

    /// An optional expression list and the closing `close`.
    fn args_to(&mut self, close: &str) -> Option<Vec<Expr>> {
        if self.punct(close).is_some() {
            return Some(Vec::new());
        }
        let args = self.expr_list()?;
        self.punct(close)?;
        Some(args)
    }

    fn expr_list(&mut self) -> Option<Vec<Expr>> {
        let mut out = vec![self.cond()?];
        while self.punct(",").is_some() {
            out.push(self.cond()?);
        }
        Some(out)
    }

    // ---------------------------------------------------------------- expressions

    /// `operand (binop operand)*`, folded as the builder folds it.
    fn expr(&mut self) -> Option<Operand> {
        let mut fold = Fold::default();
        fold.operand(self.operand()?);
        loop {
            self.skip()?;
            let Some(op) = self.binop() else {
                break;
            };
            fold.op(self, self.prec, op).ok()?;
            fold.operand(self.operand()?);
        }
        fold.finish(self).ok()
    }

    /// The binary operator at the position, read (the grammar's `binop`, in its order).
    fn binop(&mut self) -> Option<crate::ast::BinOp> {
        let text = ["=>", "!=", "=", "&&", "&", "||", "|", "^"]
            .into_iter()
            .find(|t| self.at(t))?;
        self.i += text.len();
        self.last_end = self.i;
        binop(text)
    }

    /// `(! | ~)* atom`.
    fn operand(&mut self) -> Option<Operand> {
        let mut nots = Vec::new();
        loop {
            self.skip()?;
            if (self.at("!") && !self.at("!=")) || self.at("~") {
                nots.push(self.i);
                self.i += 1;
                self.last_end = self.i;
            } else {
                break;
            }
        }
        let atom = self.atom()?;
        negate(self, nots, atom).ok()
    }

    fn atom(&mut self) -> Option<Operand> {
        self.skip()?;
        let start = self.i;
        let leaf = |r: &mut Self, expr: Expr| Operand {
            expr,
            depth: 1,
            start,
            end: r.last_end,
        };
        let c = *self.b.get(start)?;
        match c {
            b'(' => {
                self.i += 1;
                let inner = self.expr()?;
                self.punct(")")?;
                // Parentheses add no AST level (as in the builder).
                Some(Operand {
                    expr: inner.expr,
                    depth: inner.depth,
                    start,
                    end: self.last_end,
                })
            }
            b'*' | b'?' => {
                self.i += 1;
                self.last_end = self.i;
                let span = self.span(start, self.i);
                Some(leaf(self, Expr::Nondet(span)))
            }
            b'0'..=b'9' => {
                let d = self.b[start..]
                    .iter()
                    .take_while(|c| c.is_ascii_digit())
                    .count();
                let value = match &self.src[start..start + d] {
                    "0" => false,
                    "1" => true,
                    _ => return None,
                };
                self.i += d;
                self.last_end = self.i;
                let span = self.span(start, self.i);
                Some(leaf(self, Expr::Const(value, span)))
            }
            b'\'' => {
                self.i += 1;
                let id = self.ident()?;
                let span = self.span(start, self.last_end);
                Some(leaf(
                    self,
                    Expr::Primed(Ident {
                        name: id.name,
                        span,
                    }),
                ))
            }
            _ => match self.word() {
                "T" | "F" => {
                    let value = self.word() == "T";
                    self.i += 1;
                    self.last_end = self.i;
                    let span = self.span(start, self.i);
                    Some(leaf(self, Expr::Const(value, span)))
                }
                "schoose" => {
                    self.i += "schoose".len();
                    self.punct("[")?;
                    let a = self.expr()?;
                    self.punct(",")?;
                    let b = self.expr()?;
                    self.punct("]")?;
                    let end = self.last_end;
                    let depth = self.deeper(a.depth.max(b.depth), start, end).ok()?;
                    Some(Operand {
                        expr: Expr::Schoose(
                            Box::new(a.expr),
                            Box::new(b.expr),
                            self.span(start, end),
                        ),
                        depth,
                        start,
                        end,
                    })
                }
                _ => {
                    let id = self.ident()?;
                    let primed = self.at("'");
                    if primed {
                        self.i += 1;
                        self.last_end = self.i;
                    }
                    let ident = Ident {
                        name: id.name,
                        span: self.span(start, self.last_end),
                    };
                    Some(leaf(
                        self,
                        if primed {
                            Expr::Primed(ident)
                        } else {
                            Expr::Var(ident)
                        },
                    ))
                }
            },
        }
    }
}
