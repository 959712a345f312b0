//! The parse of c2bp's text from parses of its parts. The refinement loop abstracts one program
//! again and again, and most of each procedure's text recurs: its statements when their
//! translation was reused ([`crate::reuse`]), its head (signature, declarations, `enforce`)
//! when its predicates did not change. Each part is parsed on its own once, kept by its text,
//! and moved into place ([`bp_grammar::Procedure::shift_spans`]); the result is the whole
//! text's parse, spans included (`tests/cache.rs` compares them, as does `bp-grammar`'s test
//! `procedures_parsed_alone_and_shifted_have_the_spans_of_the_whole_parse`).
//!
//! A whole procedure recurs too, most of them from one abstraction to the next. The caller may
//! give the parse back once done with it ([`Parts::recycle`], with the text it is the parse
//! of): its procedures are then kept by their text and the next assembly moves an unchanged
//! one into place as it is, instead of copying its parts again.

use std::collections::HashMap;
use std::fmt::Write as _;

use bp_grammar::Procedure;

use crate::C2bpError;
use crate::emit::ProcOut;

/// Parses of parts of procedures (a procedure's head closed by `end`, or one statement as the
/// body of a procedure of its own) by the text parsed, each with the last assembly that used
/// it: a part unused by an assembly is dropped after it.
#[derive(Debug, Default)]
pub struct Parts {
    parses: HashMap<String, Part>,
    /// Assemblies so far.
    round: u64,
    /// The text last returned and, for each of its procedures, where it was placed; `None`
    /// when the parse returned with it was not assembled here (the whole text, or the printed
    /// text, was parsed instead).
    last: Option<(String, Vec<Placed>)>,
    /// Procedures given back ([`Self::recycle`]) by their text, their spans those of the text
    /// alone (as if it started the file): the next assembly's to take.
    whole: HashMap<String, Procedure>,
    /// Procedures taken from `whole` so far.
    pub(crate) taken: u64,
}

/// A procedure of an assembly: its text, byte offset and lines before it.
type Placed = (String, usize, u32);

/// A part's parse, whether its text is the printer's form of it, and the last assembly that
/// used it.
#[derive(Debug)]
struct Part {
    alone: Procedure,
    canonical: bool,
    used: u64,
}

impl Parts {
    /// Takes back `program`, the parse of `text` that the last assembly returned (anything
    /// else is dropped): its procedures, by their text, for the next assembly.
    pub fn recycle(&mut self, text: &str, program: bp_grammar::ast::Program) {
        let Some((last, placed)) = self.last.take() else {
            return;
        };
        if last != text || placed.len() != program.procs.len() {
            return;
        }
        for (mut proc, (ptext, at, lines)) in program.procs.into_iter().zip(placed) {
            proc.unshift_spans(at, lines);
            self.whole.insert(ptext, proc);
        }
    }
}

/// What a statement is parsed in: a procedure of its own, the statement's lines starting on its
/// second line (so every span of the statement lies after this prefix, and moving it into place
/// only adds).
const STMT_PREFIX: &str = "void s() begin\n";

/// The text of the procedure `piece` ends with.
const END: &str = "end\n";

/// The parse of the program text (from its parts, see the module doc, or else of the whole text,
/// whose diagnostics then make the internal error), and the text itself, canonical.
pub fn parse_text(
    text: String,
    head_len: usize,
    at: &[usize],
    procs: &[ProcOut],
    parts: &mut Parts,
) -> Result<(String, bp_grammar::ast::Program), C2bpError> {
    parts.last = None;
    let (parsed, placed) = match assemble(&text, head_len, at, procs, parts) {
        Some((p, placed, canonical)) => {
            if canonical {
                parts.last = Some((text.clone(), placed));
                return Ok((text, p));
            }
            (Ok(p), Some(placed))
        }
        None => (
            bp_grammar::parse_and_check(&text, &bp_grammar::ParseOptions::default()),
            None,
        ),
    };
    let parsed = parsed.map_err(|ds| {
        let mut msg = String::new();
        for d in ds {
            let _ = writeln!(msg, "{}", d.render("<c2bp output>"));
        }
        let _ = writeln!(msg, "--- output ---\n{text}");
        C2bpError::Internal(msg)
    })?;
    // The text is written in the printer's canonical form, so the parsed program's positions
    // are those of the text itself and callers (slam-run) need not parse it again (an assembly
    // knows it from its parts, each printed once when first parsed; a canonical one returned
    // above). Should a part not be in that form, or the assembly fail, the text is printed and
    // compared here, and where the two differ the printed text is parsed once more.
    let printed = bp_grammar::print(&parsed);
    if printed == text {
        parts.last = placed.map(|p| (text.clone(), p));
        Ok((text, parsed))
    } else {
        tracing::debug!("c2bp's text is not in canonical form; parsing the printed text");
        let again = bp_grammar::parse_and_check(&printed, &bp_grammar::ParseOptions::default())
            .map_err(|ds| {
                C2bpError::Internal(format!(
                    "the printed program does not re-parse: {}",
                    ds.first().map(|d| d.message.clone()).unwrap_or_default()
                ))
            })?;
        Ok((printed, again))
    }
}

/// The parse of c2bp's text from the parses of its parts: the head (header and global
/// declarations, `text[..head_len]`) and the procedures (`procs`, each starting a line at its
/// offset in `at`), each procedure from its head and its statements, a part parsed by the
/// previous abstraction taken from `parsed` (which then holds this abstraction's), and where
/// each procedure was placed, and whether the text is the printer's form of the result: its
/// head is, each procedure follows one line break (as the printer separates sections after
/// a header), and every part is (known since the part was first parsed; a procedure taken
/// whole was part of a canonical assembly). `None` when a part does not parse or the program
/// does not pass the checker: the caller parses the whole text for the diagnostics.
fn assemble(
    text: &str,
    head_len: usize,
    at: &[usize],
    procs: &[ProcOut],
    parsed: &mut Parts,
) -> Option<(bp_grammar::ast::Program, Vec<Placed>, bool)> {
    let opts = bp_grammar::ParseOptions::default();
    let mut prog = bp_grammar::parse_with(&text[..head_len], &opts).ok()?;
    if !prog.procs.is_empty() {
        return None;
    }
    let mut canonical = !prog.header.is_empty() && bp_grammar::print(&prog) == text[..head_len];
    parsed.round += 1;
    let round = parsed.round;
    let mut placed = Vec::with_capacity(procs.len());
    let mut lines = text[..head_len].matches('\n').count() as u32;
    let mut last = head_len;
    for (&at, p) in at.iter().zip(procs) {
        let gap = &text[last..at];
        canonical &= gap == "\n";
        lines += gap.matches('\n').count() as u32;
        last = at + p.text.len();
        placed.push((p.text.clone(), at, lines));
        let proc = match parsed.whole.remove(&p.text) {
            Some(mut proc) => {
                parsed.taken += 1;
                proc.shift_spans(at, lines);
                lines += p.text.matches('\n').count() as u32;
                // Its parts stay kept, for when it changes.
                touch(&p.text, &p.stmt_starts, &mut parsed.parses, round);
                proc
            }
            None => {
                let mut part = |src: &str| -> Option<Procedure> {
                    if let Some(part) = parsed.parses.get_mut(src) {
                        part.used = round;
                        canonical &= part.canonical;
                        return Some(part.alone.clone());
                    }
                    let (alone, is_canonical) = parse_one(src, &opts)?;
                    canonical &= is_canonical;
                    let part = Part {
                        alone: alone.clone(),
                        canonical: is_canonical,
                        used: round,
                    };
                    parsed.parses.insert(src.to_string(), part);
                    Some(alone)
                };
                let proc = place(&p.text, &p.stmt_starts, at, lines, &mut part)?;
                lines += p.text.matches('\n').count() as u32;
                proc
            }
        };
        prog.procs.push(proc);
    }
    parsed.whole.clear();
    canonical &= last == text.len();
    parsed.parses.retain(|_, part| part.used == round);
    prog.span = bp_grammar::Span {
        start: 0,
        end: text.len(),
        line: 1,
        col: 1,
    };
    let errors = bp_grammar::check(&prog, text)
        .into_iter()
        .any(|d| d.is_error());
    (!errors).then_some((prog, placed, canonical))
}

/// The only procedure of `src` parsed alone (`None` when it does not parse or holds more),
/// and whether `src` is the printer's form of it.
fn parse_one(src: &str, opts: &bp_grammar::ParseOptions) -> Option<(Procedure, bool)> {
    let mut p = bp_grammar::parse_with(src, opts).ok()?;
    if p.procs.len() != 1 || !p.globals.is_empty() || !p.header.is_empty() {
        return None;
    }
    let canonical = bp_grammar::print(&p) == src;
    Some((p.procs.pop()?, canonical))
}

/// The head of a procedure's text `piece` (everything before its first statement, at
/// `first`) as a procedure of its own, the head and `end`, written into `buf`.
fn head_source<'b>(buf: &'b mut String, piece: &str, first: usize) -> &'b str {
    buf.clear();
    buf.push_str(&piece[..first]);
    buf.push_str(END);
    buf
}

/// The statement `chunk` (its annotation and statement lines) as a procedure of its own,
/// written into `buf`.
fn stmt_source<'b>(buf: &'b mut String, chunk: &str) -> &'b str {
    buf.clear();
    buf.push_str(STMT_PREFIX);
    buf.push_str(chunk);
    buf.push_str(END);
    buf
}

/// The procedure whose text `piece` is placed at byte `at` after `lines` lines, its
/// statements starting at the offsets `starts` in `piece`, from the parses `part` gives of its
/// head and of each statement.
fn place(
    piece: &str,
    starts: &[usize],
    at: usize,
    lines: u32,
    part: &mut impl FnMut(&str) -> Option<Procedure>,
) -> Option<Procedure> {
    let body_end = piece.strip_suffix(END)?.len();
    let first = starts.first().copied().unwrap_or(body_end);
    let mut buf = String::new();
    let mut proc = part(head_source(&mut buf, piece, first))?;
    if !proc.body.is_empty() {
        return None;
    }
    proc.shift_spans(at, lines);
    proc.span.end += body_end - first;
    let mut line_of = lines + piece[..first].matches('\n').count() as u32;
    for (s, e) in chunks(starts, body_end) {
        let chunk = &piece[s..e];
        let mut alone = part(stmt_source(&mut buf, chunk))?;
        if alone.body.len() != 1 {
            return None;
        }
        // The chunk is at line 2 of its own parse and at `line_of + 1` here.
        alone.shift_spans(
            (at + s).checked_sub(STMT_PREFIX.len())?,
            line_of.checked_sub(1)?,
        );
        proc.body.push(alone.body.pop()?);
        line_of += chunk.matches('\n').count() as u32;
    }
    Some(proc)
}

/// The byte ranges of the statements of a procedure's text whose statements start at `starts`
/// and whose body ends at `body_end`.
fn chunks(starts: &[usize], body_end: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
    starts
        .iter()
        .enumerate()
        .map(move |(i, &s)| (s, starts.get(i + 1).copied().unwrap_or(body_end)))
}

/// Marks the parts of the procedure `piece` (its statements starting at `starts`, see
/// [`place`]) as used by assembly `round`, without placing them.
fn touch(piece: &str, starts: &[usize], parses: &mut HashMap<String, Part>, round: u64) {
    let Some(body) = piece.strip_suffix(END) else {
        return;
    };
    let first = starts.first().copied().unwrap_or(body.len());
    let mut buf = String::new();
    let mut mark = |src: &str| {
        if let Some(part) = parses.get_mut(src) {
            part.used = round;
        }
    };
    mark(head_source(&mut buf, piece, first));
    for (s, e) in chunks(starts, body.len()) {
        mark(stmt_source(&mut buf, &piece[s..e]));
    }
}
