//! The initial contents of the memory the program did not write: what an allocation (other
//! than `calloc`) holds, and what a pointer the environment gives (a nondet pointer, an
//! external function's result) points to. `docs/c-semantics.md` ("Memory") defines them: every
//! scalar is arbitrary, and a pointer among them is null or points to an object of its own,
//! of the pointed-to type, whose contents are drawn the same way one level down; at the last
//! level ([`LEVELS`]) pointers are null.
//!
//! [`draw_contents`] is the one walk over a type that decides the order and the ranges of the
//! draws: the interpreter asks its oracle through it, and a replay that must feed the oracle
//! (newton's) walks the same way, so both agree on which value is which ([`HeapStep`] paths
//! name them).

use crate::interp::Fault;
use crate::ir::Program;
use crate::types::CType;

/// Pointers in contents drawn at this level and below are null.
pub const LEVELS: u32 = 2;

/// Largest array drawn (elements).
const MAX_ARRAY: u64 = 1 << 16;

/// A step of a path into drawn contents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HeapStep {
    /// A field of a structure, by index.
    Field(u32),
    /// An element of an array.
    Index(u32),
    /// The object a pointer points to.
    Deref,
}

/// Drawn contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Contents {
    /// An integer.
    Int(i128),
    /// A null pointer.
    Null,
    /// A pointer to an object of its own: its contents, or `None` when its type is not known
    /// (the object is typed by its first access).
    Object(Option<Box<Contents>>),
    /// A structure's fields.
    Struct(Vec<Contents>),
    /// An array's elements.
    Array(Vec<Contents>),
    /// A value not modelled (floating point, unions).
    Opaque,
}

/// Draws contents of type `ty` at `level` (an allocated object's contents are at level 1, a
/// pointer the environment gives at level 0): `draw(path, lo, hi)` gives each integer in
/// `lo..=hi`, and for each pointer above the last level `0` (null) or `1` (an object of its
/// own), depth first, fields and elements in order.
pub fn draw_contents(
    prog: &Program,
    ty: &CType,
    level: u32,
    path: &mut Vec<HeapStep>,
    draw: &mut dyn FnMut(&[HeapStep], i128, i128) -> i128,
) -> Result<Contents, Fault> {
    Ok(match ty {
        CType::Int(k) => {
            let (lo, hi) = k.range(prog.data_model);
            Contents::Int(draw(path, lo, hi).clamp(lo, hi))
        }
        CType::Pointer(t) => {
            if level >= LEVELS || draw(path, 0, 1) == 0 {
                return Ok(Contents::Null);
            }
            match &**t {
                CType::Void | CType::Func(_) => Contents::Object(None),
                CType::Struct(s) if prog.structs[s.0 as usize].fields.is_none() => {
                    Contents::Object(None)
                }
                t => {
                    path.push(HeapStep::Deref);
                    let inner = draw_contents(prog, t, level + 1, path, draw);
                    path.pop();
                    Contents::Object(Some(Box::new(inner?)))
                }
            }
        }
        CType::Array(t, n) => {
            let n = match n {
                Some(n) if *n <= MAX_ARRAY => *n,
                _ => {
                    return Err(Fault::Unsupported(
                        "an array of unknown or very large length".into(),
                    ));
                }
            };
            let mut out = Vec::new();
            for i in 0..n {
                path.push(HeapStep::Index(u32::try_from(i).unwrap_or(u32::MAX)));
                let c = draw_contents(prog, t, level, path, draw);
                path.pop();
                out.push(c?);
            }
            Contents::Array(out)
        }
        CType::Struct(s) => {
            let def = &prog.structs[s.0 as usize];
            match (&def.fields, def.is_union) {
                (Some(fields), false) => {
                    let mut out = Vec::new();
                    for (i, (_, t)) in fields.iter().enumerate() {
                        path.push(HeapStep::Field(i as u32));
                        let c = draw_contents(prog, t, level, path, draw);
                        path.pop();
                        out.push(c?);
                    }
                    Contents::Struct(out)
                }
                _ => Contents::Opaque,
            }
        }
        CType::Void | CType::Float(_) | CType::Func(_) => Contents::Opaque,
    })
}
