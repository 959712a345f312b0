//! The parser: `.bp` text to [`crate::ast::Program`], or positioned [`Diagnostic`]s.
//!
//! This module owns the reading of Boolean programs as `docs/bp-semantics.md` ("Syntax
//! accepted", "Precedence", "Annotations") defines it. It works in three passes, and after the
//! first a hand-written reader of well-formed programs (module `fast`) tries the text: it
//! builds the same AST as passes 2 and 3, and where it gives up (at anything unexpected) those
//! read the text and say what is wrong:
//!
//! 1. a **pre-scan** (module `prescan`) of the raw text (skipping comments and `{...}`
//!    identifiers) that rejects what the grammar must never see: parenthesis/prefix nesting
//!    deeper than [`MAX_PAREN_DEPTH`](crate::ast::MAX_PAREN_DEPTH) and `if`/`while` nesting
//!    deeper than [`MAX_STMT_DEPTH`](crate::ast::MAX_STMT_DEPTH) (code `too-deep`, so the
//!    recursive pest parser cannot overflow the stack), concurrency constructs (code
//!    `unsupported-concurrency`), `abortif` and stand-alone `constrain(e);` (code
//!    `unsupported`);
//! 2. the **pest grammar** (`grammar.pest`), whose first failure becomes one `syntax`
//!    diagnostic with a readable "expected ..." message; the parse then resumes at the next
//!    procedure (module `recover`), so that each procedure's first syntax error is reported;
//! 3. the **AST builder**, which applies operator precedence iteratively (an explicit operator
//!    stack, so a chain of 200,000 operands does not recurse), bounds expression trees by
//!    [`MAX_EXPR_DEPTH`], checks Boolean constants (`bad-constant`) and parses annotations
//!    (`bad-annotation`). It reports every such error it finds.
//!
//! Line and column numbers are the ones [`crate::diag::span_at`] computes, but from an index
//! built once per file, so that a 10,000-statement file is parsed in linear time.
//!
//! Stack safety: the grammar and the builder recurse once per parenthesis and per nested
//! `if`/`while` (about 2 KiB per level in a dev build), which the pre-scan bounds. Input nested
//! more than a few dozen levels is parsed on a helper thread with a large stack, so that even a
//! small caller stack is safe; pest's own stack guard (on by default) is a last resort, and its
//! failure is reported as `too-deep`. `pest::set_call_limit` is not used: it is process-wide
//! state, and this grammar backtracks only a bounded amount per token.

use crate::ast::{
    Annotations, BinOp, CondArm, Decl, Expr, Ident, Lhs, MAX_EXPR_DEPTH, Procedure, Program,
    RetType, Span, Stmt, StmtKind,
};
use crate::diag::{Diagnostic, span_at};
use pest::Parser as _;
use pest::error::{ErrorVariant, InputLocation};
use pest::iterators::Pair;

/// The pest-generated parser (private: its `Rule` enum is an implementation detail).
mod grammar {
    #![allow(missing_docs)]
    use pest_derive::Parser;

    /// Parser generated from `grammar.pest`.
    #[derive(Parser)]
    #[grammar = "grammar.pest"]
    pub struct BpParser;
}

use grammar::{BpParser, Rule};

mod fast;
mod prescan;
mod recover;
pub use prescan::comments;
use prescan::{CONCURRENCY_KEYWORDS, is_ident_char, prescan};

/// How unparenthesised mixes of binary operators are read (`docs/bp-semantics.md`,
/// "Precedence").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Precedence {
    /// Moped/SLAM (`bp.y`): `!` > `= !=` > `&` > `^` > `|` > `=>` (the default).
    #[default]
    Moped,
    /// CPROVER (`parser.y`): `'` > `&` > `|` > `^` > `=> = !=`.
    Cprover,
}

/// Options of the parser.
#[derive(Clone, Debug, Default)]
pub struct ParseOptions {
    /// Operator precedence dialect.
    pub precedence: Precedence,
}

/// Parses with default options.
pub fn parse(src: &str) -> Result<Program, Vec<Diagnostic>> {
    parse_with(src, &ParseOptions::default())
}

/// Parses `src`: the program, or the errors found (each with a code, a position and the
/// offending text). Never panics and never overflows the stack, whatever the input.
pub fn parse_with(src: &str, opts: &ParseOptions) -> Result<Program, Vec<Diagnostic>> {
    let nesting = prescan(src)?;
    on_stack_for(nesting, || parse_prescanned(src, opts))
}

/// `run()` on a stack deep enough for input nested `nesting` levels: deep but legal input
/// makes the recursive passes need up to ~2 KiB of stack per level, which a small caller stack
/// may not have, so it gets a thread with a generous stack (reserved, not committed); if no
/// thread can be started, `run` goes on this one.
fn on_stack_for<R: Send>(nesting: usize, run: impl Fn() -> R + Sync) -> R {
    if nesting > INLINE_NESTING {
        let joined = std::thread::scope(|scope| {
            std::thread::Builder::new()
                .name("bp-parse".into())
                .stack_size(DEEP_INPUT_STACK)
                .spawn_scoped(scope, &run)
                .ok()
                .map(|handle| handle.join())
        });
        match joined {
            Some(Ok(result)) => return result,
            Some(Err(panic)) => std::panic::resume_unwind(panic),
            None => {}
        }
    }
    run()
}

/// Both readers on `src` (after the pre-scan): the hand-written one's program (`None` where it
/// gives up) and pest's result. For the tests that hold the two to the same AST, spans
/// included; not otherwise part of the API.
#[doc(hidden)]
pub fn parse_by_both_readers(
    src: &str,
    opts: &ParseOptions,
) -> (Option<Program>, Result<Program, Vec<Diagnostic>>) {
    let nesting = match prescan(src) {
        Ok(n) => n,
        Err(ds) => return (None, Err(ds)),
    };
    on_stack_for(nesting, || {
        let pos = Positions::new(src);
        (
            fast::program(src, &pos, opts.precedence),
            parse_by_pest(src, opts, pos),
        )
    })
}

/// Nesting (parentheses, negations and `if`/`while` levels together) up to which the parse
/// runs on the caller's thread.
const INLINE_NESTING: usize = 64;

/// Stack size of the thread that parses more deeply nested input.
const DEEP_INPUT_STACK: usize = 64 << 20;

/// Grammar and AST builder, once the pre-scan has bounded the nesting.
fn parse_prescanned(src: &str, opts: &ParseOptions) -> Result<Program, Vec<Diagnostic>> {
    let pos = Positions::new(src);
    if let Some(prog) = fast::program(src, &pos, opts.precedence) {
        return Ok(prog);
    }
    parse_by_pest(src, opts, pos)
}

/// The pest grammar and the AST builder (every diagnostic comes from here).
fn parse_by_pest(
    src: &str,
    opts: &ParseOptions,
    pos: Positions<'_>,
) -> Result<Program, Vec<Diagnostic>> {
    let mut pairs = match BpParser::parse(Rule::program, src) {
        Ok(pairs) => pairs,
        Err(e) => return Err(recover::syntax_errors(src, syntax_error(src, &e))),
    };
    let Some(top) = pairs.next() else {
        return Err(vec![Diagnostic::error(
            "syntax",
            "internal error: the grammar produced no program",
            span_at(src, 0, 0),
            src,
        )]);
    };
    let mut b = Builder {
        src,
        pos,
        prec: opts.precedence,
        errors: Vec::new(),
    };
    let prog = b.program(top);
    if b.errors.is_empty() {
        Ok(prog)
    } else {
        Err(b.errors)
    }
}

// ------------------------------------------------------------------------------------------
// Positions
// ------------------------------------------------------------------------------------------

/// Byte offset to line and column in O(log n), with the results of [`span_at`].
struct Positions<'s> {
    src: &'s str,
    /// Byte offset of the start of every line.
    line_starts: Vec<usize>,
    /// Number of characters before byte `64 * k`.
    chars_before_block: Vec<usize>,
    /// Whether the text is ASCII (a column is then a byte offset).
    ascii: bool,
    /// The line of the last position asked for: positions are mostly asked for in text order,
    /// so the next one is usually on the same line or the next.
    last_line: std::cell::Cell<usize>,
}

impl<'s> Positions<'s> {
    fn new(src: &'s str) -> Positions<'s> {
        let b = src.as_bytes();
        let mut line_starts = vec![0];
        let mut chars_before_block = Vec::with_capacity(b.len() / 64 + 2);
        let mut chars = 0usize;
        for (i, &c) in b.iter().enumerate() {
            if i.is_multiple_of(64) {
                chars_before_block.push(chars);
            }
            if c == b'\n' {
                line_starts.push(i + 1);
            }
            if !is_utf8_continuation(c) {
                chars += 1;
            }
        }
        if b.len().is_multiple_of(64) {
            chars_before_block.push(chars);
        }
        Positions {
            src,
            line_starts,
            chars_before_block,
            ascii: src.is_ascii(),
            last_line: std::cell::Cell::new(1),
        }
    }

    /// The line (from 1) holding byte `pos`.
    fn line_of(&self, pos: usize) -> usize {
        let starts = &self.line_starts;
        let holds = |l: usize| starts[l - 1] <= pos && starts.get(l).is_none_or(|&s| pos < s);
        let hint = self.last_line.get();
        let line = if holds(hint) {
            hint
        } else if hint < starts.len() && holds(hint + 1) {
            hint + 1
        } else {
            starts.partition_point(|&s| s <= pos).max(1)
        };
        self.last_line.set(line);
        line
    }

    /// Characters in `src[..pos]` (`pos` a char boundary, at most `src.len()`).
    fn chars_before(&self, pos: usize) -> usize {
        let block = pos / 64;
        let base = self.chars_before_block.get(block).copied().unwrap_or(0);
        base + self.src.as_bytes()[block * 64..pos]
            .iter()
            .filter(|&&c| !is_utf8_continuation(c))
            .count()
    }

    fn span(&self, start: usize, end: usize) -> Span {
        let mut pos = start.min(self.src.len());
        while pos > 0 && !self.src.is_char_boundary(pos) {
            pos -= 1;
        }
        let line = self.line_of(pos);
        let line_start = self.line_starts[line - 1];
        let col = if self.ascii {
            pos - line_start + 1
        } else {
            self.chars_before(pos) - self.chars_before(line_start) + 1
        };
        Span {
            start,
            end: end.max(start),
            line: u32::try_from(line).unwrap_or(u32::MAX),
            col: u32::try_from(col).unwrap_or(u32::MAX),
        }
    }
}

fn is_utf8_continuation(c: u8) -> bool {
    c & 0xC0 == 0x80
}

// ------------------------------------------------------------------------------------------
// Syntax errors
// ------------------------------------------------------------------------------------------

/// Turns pest's failure into one diagnostic with a readable message.
fn syntax_error(src: &str, e: &pest::error::Error<Rule>) -> Diagnostic {
    let pos = match e.location {
        InputLocation::Pos(p) => p,
        InputLocation::Span((s, _)) => s,
    }
    .min(src.len());
    let end = token_end(src, pos);
    let span = span_at(src, pos, end);
    let rest = &src[pos..];
    let token = &src[pos..end];
    let positives: &[Rule] = match &e.variant {
        ErrorVariant::ParsingError { positives, .. } => positives,
        ErrorVariant::CustomError { message } => {
            let (code, msg) = if message.contains("limit") {
                (
                    "too-deep",
                    format!("the program is nested too deeply ({message})"),
                )
            } else {
                ("syntax", message.clone())
            };
            return Diagnostic::error(code, msg, span, src);
        }
    };
    if rest.starts_with("//@@") {
        return Diagnostic::error(
            "bad-annotation",
            "a `//@@` header annotation may only come before the first declaration or procedure",
            span,
            src,
        );
    }
    if rest.starts_with("//@") {
        return Diagnostic::error(
            "bad-annotation",
            "a `//@` annotation must directly precede a statement, a declaration or a procedure",
            span,
            src,
        );
    }
    if rest.starts_with("/*") {
        return Diagnostic::error("syntax", "unterminated comment `/*`", span, src);
    }
    let mut msg = format!("expected {}", describe_expected(positives));
    let before = src[..pos].trim_end();
    let operator_expected = positives.iter().any(|r| r == &Rule::binop);
    if positives.contains(&Rule::semi)
        && !operator_expected
        && before.ends_with(')')
        && matches!(token, "&" | "&&" | "|" | "||" | "^" | "=" | "!=" | "=>")
    {
        msg.push_str(" (a procedure call cannot be part of an expression)");
    }
    if token.is_empty() {
        msg.push_str(", found the end of the file");
    } else if is_reserved(token) && msg.contains("an identifier") {
        msg.push_str(&format!(" (`{token}` is a reserved word)"));
    }
    Diagnostic::error("syntax", msg, span, src)
}

/// The words of the grammar that cannot be identifiers (its `reserved` rule).
fn is_reserved(word: &str) -> bool {
    matches!(
        word,
        "decl"
            | "begin"
            | "end"
            | "void"
            | "bool"
            | "if"
            | "then"
            | "else"
            | "elsif"
            | "fi"
            | "while"
            | "do"
            | "od"
            | "goto"
            | "return"
            | "skip"
            | "assert"
            | "assume"
            | "print"
            | "enforce"
            | "constrain"
            | "schoose"
            | "dead"
            | "dfs"
            | "abortif"
            | "T"
            | "F"
            | "_"
    ) || CONCURRENCY_KEYWORDS.contains(&word)
}

/// The end of the token starting at `pos` (for the snippet of a syntax error).
fn token_end(src: &str, pos: usize) -> usize {
    let b = src.as_bytes();
    let n = b.len();
    if pos >= n {
        return n;
    }
    let run = |pred: &dyn Fn(u8) -> bool| {
        let mut j = pos;
        while j < n && pred(b[j]) {
            j += 1;
        }
        j
    };
    let c = b[pos];
    if is_ident_char(c) {
        return run(&is_ident_char);
    }
    let rest = &src[pos..];
    if rest.starts_with("//") {
        return run(&|c| c != b'\n' && c != b'\r');
    }
    if c == b'{'
        && let Some(p) = rest.find(['}', '\n'])
        && rest.as_bytes()[p] == b'}'
    {
        return pos + p + 1;
    }
    for op in [":=", "=>", "!=", "&&", "||", "/*"] {
        if rest.starts_with(op) {
            return pos + 2;
        }
    }
    pos + rest.chars().next().map_or(0, char::len_utf8)
}

/// "`;` or an operator": what the parser expected, in words, without repetitions.
///
/// pest lists every rule that could have continued; the list is trimmed to what helps: where a
/// `;` would do, the optional-`;` look-ahead (`end`, `fi`, ...) is not mentioned, and after a
/// complete expression only "`;` or an operator" is.
fn describe_expected(positives: &[Rule]) -> String {
    let has = |r: Rule| positives.contains(&r);
    let is_operator = |r: Rule| r == Rule::binop;
    let after_expression = has(Rule::semi) && positives.iter().any(|&r| is_operator(r));
    let keep = |r: Rule| {
        if after_expression {
            r == Rule::semi || is_operator(r) || r == Rule::rparen || r == Rule::rbrack
        } else if has(Rule::semi) {
            !matches!(
                r,
                Rule::kw_end
                    | Rule::kw_elsif
                    | Rule::kw_else
                    | Rule::kw_fi
                    | Rule::kw_od
                    | Rule::lparen
                    | Rule::prime
            )
        } else {
            true
        }
    };
    let stmt_words = positives.iter().filter(|r| is_statement_start(**r)).count();
    let mut words: Vec<&'static str> = Vec::new();
    for &r in positives.iter().filter(|&&r| keep(r)) {
        let w = if stmt_words >= 3 && is_statement_start(r) {
            "a statement"
        } else {
            rule_words(r)
        };
        if !w.is_empty() && !words.contains(&w) {
            words.push(w);
        }
    }
    if words.contains(&"an expression") || words.contains(&"a statement") {
        words.retain(|w| !matches!(*w, "an identifier" | "a number"));
    }
    match words.as_slice() {
        [] => "something else".to_string(),
        [one] => (*one).to_string(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

fn is_statement_start(r: Rule) -> bool {
    matches!(
        r,
        Rule::stmt
            | Rule::label
            | Rule::skip_stmt
            | Rule::print_stmt
            | Rule::goto_stmt
            | Rule::return_stmt
            | Rule::if_stmt
            | Rule::while_stmt
            | Rule::assert_stmt
            | Rule::assume_stmt
            | Rule::dead_stmt
            | Rule::assign_stmt
            | Rule::call_stmt
            | Rule::call
            | Rule::lhs_list
            | Rule::kw_skip
            | Rule::kw_print
            | Rule::kw_goto
            | Rule::kw_return
            | Rule::kw_if
            | Rule::kw_while
            | Rule::kw_assert
            | Rule::kw_assume
            | Rule::kw_dead
    )
}

/// A rule in words, as used in "expected ..." messages ("" for rules never worth naming).
fn rule_words(r: Rule) -> &'static str {
    match r {
        Rule::semi => "`;`",
        Rule::comma => "`,`",
        Rule::lparen => "`(`",
        Rule::rparen => "`)`",
        Rule::lbrack => "`[`",
        Rule::rbrack => "`]`",
        Rule::langle => "`<`",
        Rule::rangle => "`>`",
        Rule::colon => "`:`",
        Rule::assign_op => "`:=`",
        Rule::prime => "",
        Rule::binop => "an operator",
        Rule::ident | Rule::params | Rule::var => "an identifier",
        Rule::discard => "`_`",
        Rule::expr
        | Rule::expr_list
        | Rule::operand
        | Rule::not_op
        | Rule::paren
        | Rule::schoose
        | Rule::kw_schoose
        | Rule::nondet
        | Rule::truth
        | Rule::pre_primed => "an expression",
        Rule::number => "a number",
        Rule::decl | Rule::kw_decl => "`decl`",
        Rule::procedure | Rule::ret_type | Rule::kw_dfs | Rule::kw_void | Rule::kw_bool => {
            "a procedure"
        }
        Rule::enforce | Rule::kw_enforce => "`enforce`",
        Rule::constrain | Rule::kw_constrain => "`constrain`",
        Rule::kw_begin => "`begin`",
        Rule::kw_end => "`end`",
        Rule::kw_if => "`if`",
        Rule::kw_then => "`then`",
        Rule::kw_elsif => "`elsif`",
        Rule::kw_else => "`else`",
        Rule::kw_fi => "`fi`",
        Rule::kw_while => "`while`",
        Rule::kw_do => "`do`",
        Rule::kw_od => "`od`",
        Rule::kw_goto => "`goto`",
        Rule::kw_return => "`return`",
        Rule::kw_skip => "`skip`",
        Rule::kw_assert => "`assert`",
        Rule::kw_assume => "`assume`",
        Rule::kw_print => "`print`",
        Rule::kw_dead => "`dead`",
        Rule::stmt
        | Rule::stmt_seq
        | Rule::label
        | Rule::skip_stmt
        | Rule::print_stmt
        | Rule::goto_stmt
        | Rule::return_stmt
        | Rule::if_stmt
        | Rule::while_stmt
        | Rule::assert_stmt
        | Rule::assume_stmt
        | Rule::dead_stmt
        | Rule::assign_stmt
        | Rule::call_stmt
        | Rule::call
        | Rule::lhs_list => "a statement",
        Rule::elsif_arm => "`elsif`",
        Rule::else_arm => "`else`",
        Rule::EOI => "the end of the file",
        Rule::program => "`decl` or a procedure",
        _ => "",
    }
}

// ------------------------------------------------------------------------------------------
// AST builder
// ------------------------------------------------------------------------------------------

/// Pairs that carry no information for the AST (keywords and punctuation).
fn is_noise(r: Rule) -> bool {
    matches!(
        r,
        Rule::semi
            | Rule::comma
            | Rule::lparen
            | Rule::rparen
            | Rule::lbrack
            | Rule::rbrack
            | Rule::langle
            | Rule::rangle
            | Rule::colon
            | Rule::assign_op
            | Rule::prime
            | Rule::kw_decl
            | Rule::kw_begin
            | Rule::kw_end
            | Rule::kw_void
            | Rule::kw_bool
            | Rule::kw_dfs
            | Rule::kw_enforce
            | Rule::kw_if
            | Rule::kw_then
            | Rule::kw_elsif
            | Rule::kw_else
            | Rule::kw_fi
            | Rule::kw_while
            | Rule::kw_do
            | Rule::kw_od
            | Rule::kw_goto
            | Rule::kw_return
            | Rule::kw_skip
            | Rule::kw_assert
            | Rule::kw_assume
            | Rule::kw_print
            | Rule::kw_dead
            | Rule::kw_constrain
            | Rule::kw_schoose
            | Rule::EOI
    )
}

/// Where the text of a pair really ends: pest counts the white space skipped before an
/// optional part that is absent (`fi` and no `;`) as part of the rule, its last token does not.
fn tight_end(p: &Pair<'_, Rule>) -> usize {
    let mut q = p.clone();
    while let Some(last) = q.clone().into_inner().next_back() {
        q = last;
    }
    q.as_span().end()
}

/// The meaningful children of a pair.
fn kids<'i>(p: Pair<'i, Rule>) -> impl Iterator<Item = Pair<'i, Rule>> {
    p.into_inner().filter(|c| !is_noise(c.as_rule()))
}

/// An expression under construction: the node, its depth and its text extent (which, unlike
/// the node's span, includes surrounding parentheses).
struct Operand {
    expr: Expr,
    depth: usize,
    start: usize,
    end: usize,
}

/// The expression was rejected and the error recorded.
struct Rejected;

struct Builder<'s> {
    src: &'s str,
    pos: Positions<'s>,
    prec: Precedence,
    errors: Vec<Diagnostic>,
}

impl<'s> Builder<'s> {
    fn pspan(&self, p: &Pair<'_, Rule>) -> Span {
        let s = p.as_span();
        self.span(s.start(), s.end())
    }

    fn error(&mut self, code: &str, msg: impl Into<String>, start: usize, end: usize) {
        let span = self.span(start, end);
        self.errors
            .push(Diagnostic::error(code, msg, span, self.src));
    }

    fn ident(&self, p: &Pair<'_, Rule>) -> Ident {
        Ident {
            name: p.as_str().to_string(),
            span: self.pspan(p),
        }
    }

    // ---------------------------------------------------------------- program structure

    fn program(&mut self, p: Pair<'_, Rule>) -> Program {
        let mut header = Annotations::default();
        let mut globals = Vec::new();
        let mut procs = Vec::new();
        for c in kids(p) {
            match c.as_rule() {
                Rule::header => self.annotation_line(c, &mut header),
                Rule::decl => globals.push(self.decl(c)),
                Rule::procedure => procs.push(self.procedure(c)),
                Rule::annot => self.dangling(&c),
                _ => {}
            }
        }
        Program {
            header,
            globals,
            procs,
            span: self.span(0, self.src.len()),
        }
    }

    fn decl(&mut self, p: Pair<'_, Rule>) -> Decl {
        let end = p.as_span().end();
        let mut annotations = Annotations::default();
        let mut vars = Vec::new();
        let mut start = p.as_span().start();
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::annot => self.annotation_line(c, &mut annotations),
                Rule::kw_decl => start = c.as_span().start(),
                Rule::ident => vars.push(self.ident(&c)),
                _ => {}
            }
        }
        Decl {
            vars,
            annotations,
            span: self.span(start, end),
        }
    }

    fn procedure(&mut self, p: Pair<'_, Rule>) -> Procedure {
        let end = p.as_span().end();
        let mut start = None;
        let mut annotations = Annotations::default();
        let mut name = Ident::new("");
        let mut ret = RetType::Void;
        let mut params = Vec::new();
        let mut locals = Vec::new();
        let mut enforce = None;
        let mut body = Vec::new();
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::annot => self.annotation_line(c, &mut annotations),
                Rule::kw_dfs => {
                    start.get_or_insert(c.as_span().start());
                }
                Rule::ret_type => {
                    start.get_or_insert(c.as_span().start());
                    ret = self.ret_type(c);
                }
                Rule::ident => name = self.ident(&c),
                Rule::params => params = kids(c).map(|i| self.ident(&i)).collect(),
                Rule::decl => locals.push(self.decl(c)),
                Rule::enforce => {
                    if let Some(e) = kids(c).next() {
                        enforce = Some(self.expr(e));
                    }
                }
                Rule::stmt_seq => body = self.stmt_seq(c),
                _ => {}
            }
        }
        Procedure {
            name,
            ret,
            params,
            locals,
            enforce,
            body,
            annotations,
            span: self.span(start.unwrap_or(end), end),
        }
    }

    fn ret_type(&mut self, p: Pair<'_, Rule>) -> RetType {
        let mut ret = RetType::Void;
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::kw_bool => ret = RetType::Bool(1),
                Rule::number => match c.as_str().parse::<u32>() {
                    Ok(n) if n >= 1 => ret = RetType::Bool(n),
                    _ => {
                        let s = c.as_span();
                        self.error(
                            "syntax",
                            "the `n` of `bool<n>` must be a number from 1 to 4294967295",
                            s.start(),
                            s.end(),
                        );
                    }
                },
                _ => {}
            }
        }
        ret
    }

    // ---------------------------------------------------------------- annotations

    /// An annotation that precedes nothing it can attach to.
    fn dangling(&mut self, p: &Pair<'_, Rule>) {
        let s = p.as_span();
        self.error(
            "bad-annotation",
            "a `//@` annotation must directly precede a statement, a declaration or a procedure",
            s.start(),
            s.end(),
        );
    }

    /// Adds the pairs of one `//@` or `//@@` line to `into`, reporting malformed ones.
    fn annotation_line(&mut self, p: Pair<'_, Rule>, into: &mut Annotations) {
        let Some(text) = p.into_inner().next() else {
            return;
        };
        let base = text.as_span().start();
        match parse_annotation_pairs(text.as_str()) {
            Ok(pairs) => into.0.extend(pairs),
            Err((s, e, msg)) => self.error("bad-annotation", msg, base + s, base + e),
        }
    }

    // ---------------------------------------------------------------- statements

    fn stmt_seq(&mut self, p: Pair<'_, Rule>) -> Vec<Stmt> {
        let mut out = Vec::new();
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::stmt => out.push(self.stmt(c)),
                Rule::annot => self.dangling(&c),
                _ => {}
            }
        }
        out
    }

    fn stmt(&mut self, p: Pair<'_, Rule>) -> Stmt {
        let end = tight_end(&p);
        let mut start = None;
        let mut annotations = Annotations::default();
        let mut labels = Vec::new();
        let mut kind = StmtKind::Skip;
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::annot => self.annotation_line(c, &mut annotations),
                Rule::label => {
                    start.get_or_insert(c.as_span().start());
                    if let Some(id) = kids(c).next() {
                        labels.push(self.ident(&id));
                    }
                }
                _ => {
                    start.get_or_insert(c.as_span().start());
                    kind = self.stmt_kind(c);
                }
            }
        }
        Stmt {
            labels,
            kind,
            annotations,
            span: self.span(start.unwrap_or(end), end),
        }
    }

    fn idents(&self, p: Pair<'_, Rule>) -> Vec<Ident> {
        kids(p)
            .filter(|c| c.as_rule() == Rule::ident)
            .map(|c| self.ident(&c))
            .collect()
    }

    fn expr_list(&mut self, p: Pair<'_, Rule>) -> Vec<Expr> {
        kids(p).map(|e| self.expr(e)).collect()
    }

    /// The arguments of a `print`, `return` or call: the expression list if there is one.
    fn optional_list(&mut self, p: Pair<'_, Rule>) -> Vec<Expr> {
        match kids(p).find(|c| c.as_rule() == Rule::expr_list) {
            Some(l) => self.expr_list(l),
            None => Vec::new(),
        }
    }

    fn call(&mut self, p: Pair<'_, Rule>, lhs: Vec<Lhs>) -> StmtKind {
        let mut callee = Ident::new("");
        let mut args = Vec::new();
        for c in kids(p) {
            match c.as_rule() {
                Rule::ident => callee = self.ident(&c),
                Rule::expr_list => args = self.expr_list(c),
                _ => {}
            }
        }
        StmtKind::Call { lhs, callee, args }
    }

    fn stmt_kind(&mut self, p: Pair<'_, Rule>) -> StmtKind {
        match p.as_rule() {
            Rule::skip_stmt => StmtKind::Skip,
            Rule::print_stmt => StmtKind::Print(self.optional_list(p)),
            Rule::goto_stmt => StmtKind::Goto(self.idents(p)),
            Rule::return_stmt => StmtKind::Return(self.optional_list(p)),
            Rule::dead_stmt => StmtKind::Dead(self.idents(p)),
            Rule::assert_stmt => StmtKind::Assert(self.first_expr(p)),
            Rule::assume_stmt => StmtKind::Assume(self.first_expr(p)),
            Rule::call_stmt => match kids(p).next() {
                Some(c) => self.call(c, Vec::new()),
                None => StmtKind::Skip,
            },
            Rule::while_stmt => self.while_stmt(p),
            Rule::if_stmt => self.if_stmt(p),
            Rule::assign_stmt => {
                let mut lhs = Vec::new();
                let mut rhs = Vec::new();
                let mut constrain = None;
                for c in kids(p) {
                    match c.as_rule() {
                        Rule::lhs_list => {
                            for t in kids(c) {
                                match t.as_rule() {
                                    Rule::discard => lhs.push(Lhs::Discard(self.pspan(&t))),
                                    _ => lhs.push(Lhs::Var(self.ident(&t))),
                                }
                            }
                        }
                        Rule::call => return self.call(c, lhs),
                        Rule::expr_list => rhs = self.expr_list(c),
                        Rule::constrain => constrain = Some(self.first_expr(c)),
                        _ => {}
                    }
                }
                StmtKind::Assign {
                    lhs,
                    rhs,
                    constrain,
                }
            }
            _ => StmtKind::Skip,
        }
    }

    fn while_stmt(&mut self, p: Pair<'_, Rule>) -> StmtKind {
        let mut cond = Expr::constant(false);
        let mut body = Vec::new();
        for c in kids(p) {
            match c.as_rule() {
                Rule::expr => cond = self.expr(c),
                Rule::stmt_seq => body = self.stmt_seq(c),
                _ => {}
            }
        }
        StmtKind::While { cond, body }
    }

    fn if_stmt(&mut self, p: Pair<'_, Rule>) -> StmtKind {
        let mut arms = Vec::new();
        let mut els = None;
        let mut cond = None;
        for c in kids(p) {
            match c.as_rule() {
                Rule::expr => cond = Some(self.expr(c)),
                Rule::stmt_seq => arms.push(CondArm {
                    cond: cond.take().unwrap_or(Expr::constant(false)),
                    body: self.stmt_seq(c),
                }),
                Rule::elsif_arm => {
                    let mut cond = Expr::constant(false);
                    let mut body = Vec::new();
                    for a in kids(c) {
                        match a.as_rule() {
                            Rule::expr => cond = self.expr(a),
                            Rule::stmt_seq => body = self.stmt_seq(a),
                            _ => {}
                        }
                    }
                    arms.push(CondArm { cond, body });
                }
                Rule::else_arm => {
                    els = Some(match kids(c).next() {
                        Some(s) => self.stmt_seq(s),
                        None => Vec::new(),
                    });
                }
                _ => {}
            }
        }
        StmtKind::If { arms, els }
    }

    fn first_expr(&mut self, p: Pair<'_, Rule>) -> Expr {
        match kids(p).find(|c| c.as_rule() == Rule::expr) {
            Some(e) => self.expr(e),
            None => Expr::constant(false),
        }
    }

    // ---------------------------------------------------------------- expressions

    /// An expression; a rejected one (error recorded) becomes `F`.
    fn expr(&mut self, p: Pair<'_, Rule>) -> Expr {
        match self.expr_operand(p) {
            Ok(o) => o.expr,
            Err(Rejected) => Expr::constant(false),
        }
    }

    /// `operand (op operand)*` folded by precedence ([`Fold`]).
    fn expr_operand(&mut self, p: Pair<'_, Rule>) -> Result<Operand, Rejected> {
        let mut fold = Fold::default();
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::operand => fold.operand(self.operand(c)?),
                Rule::binop => {
                    let op = binop(c.as_str()).ok_or(Rejected)?;
                    fold.op(self, self.prec, op)?;
                }
                _ => {}
            }
        }
        fold.finish(self)
    }

    /// `(! | ~)* atom`.
    fn operand(&mut self, p: Pair<'_, Rule>) -> Result<Operand, Rejected> {
        let mut nots = Vec::new();
        let mut atom = None;
        for c in p.into_inner() {
            if c.as_rule() == Rule::not_op {
                nots.push(c.as_span().start());
            } else {
                atom = Some(self.atom(c)?);
            }
        }
        let Some(o) = atom else {
            return Err(Rejected);
        };
        negate(self, nots, o)
    }

    fn atom(&mut self, p: Pair<'_, Rule>) -> Result<Operand, Rejected> {
        let (start, end) = (p.as_span().start(), p.as_span().end());
        let span = self.span(start, end);
        let leaf = |expr| Operand {
            expr,
            depth: 1,
            start,
            end,
        };
        Ok(match p.as_rule() {
            Rule::paren => {
                let inner = kids(p).next().ok_or(Rejected)?;
                // Parentheses add no AST level: the tree depth is what later passes recurse
                // over, and the raw nesting is bounded by the pre-scan.
                let o = self.expr_operand(inner)?;
                Operand {
                    expr: o.expr,
                    depth: o.depth,
                    start,
                    end,
                }
            }
            Rule::schoose => {
                let mut parts = kids(p);
                let (Some(a), Some(b)) = (parts.next(), parts.next()) else {
                    return Err(Rejected);
                };
                let a = self.expr_operand(a)?;
                let b = self.expr_operand(b)?;
                let depth = self.deeper(a.depth.max(b.depth), start, end)?;
                Operand {
                    expr: Expr::Schoose(Box::new(a.expr), Box::new(b.expr), span),
                    depth,
                    start,
                    end,
                }
            }
            Rule::nondet => leaf(Expr::Nondet(span)),
            Rule::truth => leaf(Expr::Const(p.as_str() == "T", span)),
            Rule::number => match p.as_str() {
                "0" => leaf(Expr::Const(false, span)),
                "1" => leaf(Expr::Const(true, span)),
                _ => {
                    self.error("bad-constant", "Boolean constants are 0 and 1", start, end);
                    leaf(Expr::Const(false, span))
                }
            },
            Rule::pre_primed | Rule::var => {
                let mut name = String::new();
                let mut is_primed = p.as_rule() == Rule::pre_primed;
                for c in p.into_inner() {
                    match c.as_rule() {
                        Rule::ident => name = c.as_str().to_string(),
                        Rule::prime => is_primed = true,
                        _ => {}
                    }
                }
                let ident = Ident { name, span };
                leaf(if is_primed {
                    Expr::Primed(ident)
                } else {
                    Expr::Var(ident)
                })
            }
            _ => return Err(Rejected),
        })
    }
}

impl Exprs for Builder<'_> {
    fn span(&self, start: usize, end: usize) -> Span {
        self.pos.span(start, end)
    }

    /// `depth + 1`, or a `too-deep` error over `start..end`.
    fn deeper(&mut self, depth: usize, start: usize, end: usize) -> Result<usize, Rejected> {
        if depth >= MAX_EXPR_DEPTH {
            self.error(
                "too-deep",
                format!(
                    "expression nested deeper than {MAX_EXPR_DEPTH} levels \
                     (split it, or parenthesise long chains)"
                ),
                start,
                end,
            );
            return Err(Rejected);
        }
        Ok(depth + 1)
    }
}

// ------------------------------------------------------------------------------------------
// Expressions, for both readers
// ------------------------------------------------------------------------------------------

/// What building expressions needs from a reader: spans, and the bound on their depth.
trait Exprs {
    fn span(&self, start: usize, end: usize) -> Span;
    /// `depth + 1`, or `Rejected` (the reader records why) past [`MAX_EXPR_DEPTH`].
    fn deeper(&mut self, depth: usize, start: usize, end: usize) -> Result<usize, Rejected>;
}

/// The operator of a `binop` token.
fn binop(text: &str) -> Option<BinOp> {
    Some(match text {
        "&" | "&&" => BinOp::And,
        "|" | "||" => BinOp::Or,
        "^" => BinOp::Xor,
        "=" => BinOp::Eq,
        "!=" => BinOp::Neq,
        "=>" => BinOp::Implies,
        _ => return None,
    })
}

/// Binding strength (higher binds tighter) and right-associativity of an operator.
fn strength(prec: Precedence, op: BinOp) -> (u8, bool) {
    match prec {
        Precedence::Moped => match op {
            BinOp::Eq | BinOp::Neq => (5, false),
            BinOp::And => (4, false),
            BinOp::Xor => (3, false),
            BinOp::Or => (2, false),
            BinOp::Implies => (1, false),
        },
        Precedence::Cprover => match op {
            BinOp::And => (4, false),
            BinOp::Or => (3, false),
            BinOp::Xor => (2, false),
            BinOp::Eq | BinOp::Neq | BinOp::Implies => (1, true),
        },
    }
}

/// `operand (op operand)*` folded by precedence with explicit stacks (no recursion per
/// operand, so arbitrarily long chains are safe).
#[derive(Default)]
struct Fold {
    vals: Vec<Operand>,
    ops: Vec<(BinOp, u8)>,
}

impl Fold {
    fn operand(&mut self, o: Operand) {
        self.vals.push(o);
    }

    fn op(&mut self, x: &mut impl Exprs, prec: Precedence, op: BinOp) -> Result<(), Rejected> {
        let (strength, right) = strength(prec, op);
        while let Some(&(top, top_strength)) = self.ops.last() {
            if top_strength > strength || (top_strength == strength && !right) {
                self.ops.pop();
                reduce(x, &mut self.vals, top)?;
            } else {
                break;
            }
        }
        self.ops.push((op, strength));
        Ok(())
    }

    fn finish(mut self, x: &mut impl Exprs) -> Result<Operand, Rejected> {
        while let Some((op, _)) = self.ops.pop() {
            reduce(x, &mut self.vals, op)?;
        }
        match (self.vals.pop(), self.vals.is_empty()) {
            (Some(v), true) => Ok(v),
            _ => Err(Rejected),
        }
    }
}

fn reduce(x: &mut impl Exprs, vals: &mut Vec<Operand>, op: BinOp) -> Result<(), Rejected> {
    let (Some(rhs), Some(lhs)) = (vals.pop(), vals.pop()) else {
        return Err(Rejected);
    };
    let (start, end) = (lhs.start, rhs.end);
    let depth = x.deeper(lhs.depth.max(rhs.depth), start, end)?;
    vals.push(Operand {
        expr: Expr::Binary(
            op,
            Box::new(lhs.expr),
            Box::new(rhs.expr),
            x.span(start, end),
        ),
        depth,
        start,
        end,
    });
    Ok(())
}

/// `o` under the negations starting at `nots` (innermost last).
fn negate(x: &mut impl Exprs, mut nots: Vec<usize>, mut o: Operand) -> Result<Operand, Rejected> {
    while let Some(start) = nots.pop() {
        let depth = x.deeper(o.depth, start, o.end)?;
        o = Operand {
            expr: Expr::Not(Box::new(o.expr), x.span(start, o.end)),
            depth,
            start,
            end: o.end,
        };
    }
    Ok(o)
}

// ------------------------------------------------------------------------------------------
// Annotation pairs
// ------------------------------------------------------------------------------------------

/// The `key=value` pairs of one annotation line's text (after `//@` or `//@@`), or the byte
/// range within `text` and the message of the first malformed pair.
fn parse_annotation_pairs(text: &str) -> Result<Vec<(String, String)>, (usize, usize, String)> {
    let b = text.as_bytes();
    let n = b.len();
    let is_space = |c: u8| matches!(c, b' ' | b'\t' | b'\r' | 0x0c);
    let word_end = |from: usize| {
        let mut j = from;
        while j < n && !is_space(b[j]) {
            j += 1;
        }
        j.max((from + 1).min(n))
    };
    let mut out = Vec::new();
    let mut i = 0;
    loop {
        while i < n && is_space(b[i]) {
            i += 1;
        }
        if i >= n {
            return Ok(out);
        }
        let key_start = i;
        while i < n && (b[i].is_ascii_alphanumeric() || matches!(b[i], b'_' | b'.' | b'-')) {
            i += 1;
        }
        if i == key_start || b.get(i) != Some(&b'=') {
            let end = word_end(key_start);
            let word = String::from_utf8_lossy(&b[key_start..end]);
            return Err((
                key_start,
                end,
                format!("malformed annotation `{word}`: expected `key=value`"),
            ));
        }
        let key = text[key_start..i].to_string();
        i += 1; // '='
        let value = if b.get(i) == Some(&b'"') {
            let quote = i;
            i += 1;
            let mut v: Vec<u8> = Vec::new();
            loop {
                match b.get(i) {
                    None => {
                        return Err((
                            quote,
                            n,
                            format!("unterminated quoted value of annotation `{key}`"),
                        ));
                    }
                    Some(b'"') => {
                        i += 1;
                        break;
                    }
                    Some(b'\\') => match b.get(i + 1) {
                        Some(&c @ (b'"' | b'\\')) => {
                            v.push(c);
                            i += 2;
                        }
                        _ => {
                            return Err((
                                i,
                                (i + 2).min(n),
                                format!(
                                    "bad escape in the value of annotation `{key}` \
                                     (only `\\\"` and `\\\\` are allowed)"
                                ),
                            ));
                        }
                    },
                    Some(&c) => {
                        v.push(c);
                        i += 1;
                    }
                }
            }
            String::from_utf8_lossy(&v).into_owned()
        } else {
            let v_start = i;
            while i < n && !is_space(b[i]) && b[i] != b'"' {
                i += 1;
            }
            if i == v_start {
                return Err((
                    key_start,
                    word_end(key_start),
                    format!("annotation `{key}` has no value (write `{key}=\"\"` for none)"),
                ));
            }
            text[v_start..i].to_string()
        };
        if i < n && !is_space(b[i]) {
            return Err((
                i,
                word_end(i),
                format!("expected a space after the value of annotation `{key}`"),
            ));
        }
        out.push((key, value));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::MAX_PAREN_DEPTH;

    #[test]
    fn positions_agree_with_span_at() {
        let mut text = String::new();
        for i in 0..400 {
            text.push_str(match i % 7 {
                0 => "ab",
                1 => "\n",
                2 => "é",
                3 => "  ",
                4 => "日本",
                5 => "\r\n",
                _ => "x",
            });
        }
        let pos = Positions::new(&text);
        for p in 0..=text.len() {
            assert_eq!(pos.span(p, p + 1), span_at(&text, p, p + 1), "at {p}");
            let a = pos.span(p, p);
            let b = span_at(&text, p, p);
            assert_eq!((a.line, a.col), (b.line, b.col), "at {p}");
        }
        // An ASCII text (columns as byte offsets), asked in text order, backwards and
        // scattered (the last line asked is only a hint).
        let ascii: String = (0..300)
            .map(|i| match i % 5 {
                0 => "ab",
                1 => "\n",
                2 => "  c",
                3 => "\r\n",
                _ => "x",
            })
            .collect();
        let pos = Positions::new(&ascii);
        let n = ascii.len();
        let forward = 0..=n;
        let backward = (0..=n).rev();
        let scattered = (0..=n).map(|i| (i * 7919) % (n + 1));
        for p in forward.chain(backward).chain(scattered) {
            let (a, b) = (pos.span(p, p), span_at(&ascii, p, p));
            assert_eq!((a.line, a.col), (b.line, b.col), "ASCII at {p}");
        }
        for src in ["", "a", "\n", "\n\n", &"y".repeat(64), &"y".repeat(128)] {
            let pos = Positions::new(src);
            for p in 0..=src.len() {
                let (a, b) = (pos.span(p, p), span_at(src, p, p));
                assert_eq!((a.line, a.col), (b.line, b.col), "{src:?} at {p}");
            }
        }
    }

    #[test]
    fn annotation_pairs() {
        assert_eq!(
            parse_annotation_pairs(r#" a=1 b.c-d_e="x \"y\" \\z"  f=é"#),
            Ok(vec![
                ("a".into(), "1".into()),
                ("b.c-d_e".into(), r#"x "y" \z"#.into()),
                ("f".into(), "é".into()),
            ])
        );
        assert_eq!(parse_annotation_pairs("   "), Ok(vec![]));
        assert_eq!(
            parse_annotation_pairs(r#"k="""#),
            Ok(vec![("k".into(), "".into())])
        );
        assert!(matches!(parse_annotation_pairs(" foo"), Err((1, 4, _))));
        assert!(matches!(parse_annotation_pairs("k="), Err((0, 2, _))));
        assert!(matches!(
            parse_annotation_pairs(r#"k="abc"#),
            Err((2, 6, _))
        ));
        assert!(matches!(
            parse_annotation_pairs(r#"k="a\n""#),
            Err((4, 6, _))
        ));
        assert!(matches!(
            parse_annotation_pairs(r#"k="a"b"#),
            Err((5, 6, _))
        ));
        assert!(matches!(parse_annotation_pairs(r#"k=a"b"#), Err((3, 5, _))));
        assert!(matches!(parse_annotation_pairs("=v"), Err((0, 2, _))));
    }

    #[test]
    fn prescan_counts_nesting() {
        let ok = format!(
            "{}a{}",
            "(".repeat(MAX_PAREN_DEPTH),
            ")".repeat(MAX_PAREN_DEPTH)
        );
        assert!(prescan(&ok).is_ok());
        let deep = format!("{}a", "(".repeat(MAX_PAREN_DEPTH + 1));
        assert_eq!(
            prescan(&deep).map_err(|e| e[0].code.clone()),
            Err("too-deep".into())
        );
        let nots = format!("{}a", "!".repeat(MAX_PAREN_DEPTH + 1));
        assert!(prescan(&nots).is_err());
        // Negations that are complete do not accumulate.
        let many = "!a & ".repeat(10 * MAX_PAREN_DEPTH);
        assert!(prescan(&many).is_ok());
        let mixed = "!(".repeat(MAX_PAREN_DEPTH / 2 + 1);
        assert!(prescan(&mixed).is_err());
        // Comments and escaped identifiers are skipped.
        let hidden = format!(
            "/* {} */ // {}\n{{ ((((( }}",
            "(".repeat(999),
            "(".repeat(999)
        );
        assert!(prescan(&hidden).is_ok());
    }
}
