//! C types as the IR records them, faithfully: every later consumer reads the same kinds,
//! widths and layouts.
//!
//! Integer types carry their C kind; their width and signedness come from the [`DataModel`]
//! (ILP32 by default, LP64 on request), so the same [`CType`] means the same thing for every
//! later consumer. Structures and unions are referred to by [`StructId`] into the program's
//! table (`Program::structs` of the IR). Floating types are recorded but not modelled (see the
//! approximations in the lowering's module doc).

pub use svcomp::DataModel;

/// The C integer types (`char` is signed, as with gcc on x86).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IntKind {
    /// `_Bool`
    Bool,
    /// `char` (signed)
    Char,
    /// `signed char`
    SChar,
    /// `unsigned char`
    UChar,
    /// `short`
    Short,
    /// `unsigned short`
    UShort,
    /// `int`
    Int,
    /// `unsigned int`
    UInt,
    /// `long`
    Long,
    /// `unsigned long`
    ULong,
    /// `long long`
    LongLong,
    /// `unsigned long long`
    ULongLong,
}

impl IntKind {
    /// Whether the type is signed (`char` is signed).
    pub fn is_signed(self) -> bool {
        matches!(
            self,
            IntKind::Char
                | IntKind::SChar
                | IntKind::Short
                | IntKind::Int
                | IntKind::Long
                | IntKind::LongLong
        )
    }

    /// Width in bits under the data model (`_Bool` has 1 value bit, 8 bits of storage).
    pub fn width(self, dm: DataModel) -> u32 {
        match self {
            IntKind::Bool => 1,
            IntKind::Char | IntKind::SChar | IntKind::UChar => 8,
            IntKind::Short | IntKind::UShort => 16,
            IntKind::Int | IntKind::UInt => 32,
            IntKind::Long | IntKind::ULong => match dm {
                DataModel::Ilp32 => 32,
                DataModel::Lp64 => 64,
            },
            IntKind::LongLong | IntKind::ULongLong => 64,
        }
    }

    /// Integer conversion rank (C11 6.3.1.1), as a number.
    pub fn rank(self) -> u8 {
        match self {
            IntKind::Bool => 0,
            IntKind::Char | IntKind::SChar | IntKind::UChar => 1,
            IntKind::Short | IntKind::UShort => 2,
            IntKind::Int | IntKind::UInt => 3,
            IntKind::Long | IntKind::ULong => 4,
            IntKind::LongLong | IntKind::ULongLong => 5,
        }
    }

    /// The unsigned type of the same rank.
    pub fn to_unsigned(self) -> IntKind {
        match self {
            IntKind::Char | IntKind::SChar => IntKind::UChar,
            IntKind::Short => IntKind::UShort,
            IntKind::Int => IntKind::UInt,
            IntKind::Long => IntKind::ULong,
            IntKind::LongLong => IntKind::ULongLong,
            k => k,
        }
    }

    /// `v` converted to this type (C11 6.3.1.3, as gcc does: modulo 2^width, two's
    /// complement for signed types; `_Bool` is `v != 0`).
    pub fn wrap(self, v: i128, dm: DataModel) -> i128 {
        if self == IntKind::Bool {
            return i128::from(v != 0);
        }
        let (lo, hi) = self.range(dm);
        if lo <= v && v <= hi {
            // Already a value of the type (the common case): no 128-bit division.
            return v;
        }
        let m = 1i128 << self.width(dm);
        let x = v.rem_euclid(m);
        if self.is_signed() && x >= m / 2 {
            x - m
        } else {
            x
        }
    }

    /// Smallest and largest value of the type.
    pub fn range(self, dm: DataModel) -> (i128, i128) {
        let w = self.width(dm);
        if self.is_signed() {
            (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1)
        } else {
            (0, (1i128 << w) - 1)
        }
    }

    /// The C spelling.
    pub fn c_name(self) -> &'static str {
        match self {
            IntKind::Bool => "_Bool",
            IntKind::Char => "char",
            IntKind::SChar => "signed char",
            IntKind::UChar => "unsigned char",
            IntKind::Short => "short",
            IntKind::UShort => "unsigned short",
            IntKind::Int => "int",
            IntKind::UInt => "unsigned int",
            IntKind::Long => "long",
            IntKind::ULong => "unsigned long",
            IntKind::LongLong => "long long",
            IntKind::ULongLong => "unsigned long long",
        }
    }
}

/// Floating types (recorded, not modelled).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FloatKind {
    /// `float`
    Float,
    /// `double`
    Double,
    /// `long double` (and other extended formats)
    LongDouble,
}

/// Index of a structure or union in the program's table of structures (`Program::structs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StructId(pub u32);

/// A function type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FuncType {
    /// Return type.
    pub ret: CType,
    /// Parameter types (empty for `()` and `(void)`).
    pub params: Vec<CType>,
    /// `...` present, or an unprototyped `()` declaration.
    pub variadic: bool,
}

/// A C type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum CType {
    /// `void`
    Void,
    /// An integer type (enumerations are recorded as their gcc underlying type).
    Int(IntKind),
    /// A floating type.
    Float(FloatKind),
    /// Pointer to a type.
    Pointer(Box<CType>),
    /// Array of a type, with its length when known.
    Array(Box<CType>, Option<u64>),
    /// A structure or union (the IR's `StructDef` says which).
    Struct(StructId),
    /// A function type.
    Func(Box<FuncType>),
}

impl CType {
    /// `int`
    pub const INT: CType = CType::Int(IntKind::Int);

    /// Pointer to `self`.
    pub fn ptr_to(self) -> CType {
        CType::Pointer(Box::new(self))
    }

    /// Whether this is an integer type.
    pub fn is_integer(&self) -> bool {
        matches!(self, CType::Int(_))
    }

    /// Whether this is a scalar (integer, floating or pointer).
    pub fn is_scalar(&self) -> bool {
        matches!(self, CType::Int(_) | CType::Float(_) | CType::Pointer(_))
    }

    /// Whether this is a floating type.
    pub fn is_float(&self) -> bool {
        matches!(self, CType::Float(_))
    }

    /// Pointed-to (or element) type of a pointer or array.
    pub fn pointee(&self) -> Option<&CType> {
        match self {
            CType::Pointer(t) | CType::Array(t, _) => Some(t),
            _ => None,
        }
    }

    /// Integer promotion (C11 6.3.1.1p2); other types unchanged.
    pub fn promoted(&self) -> CType {
        match self {
            CType::Int(k) if k.rank() < IntKind::Int.rank() => CType::INT,
            t => t.clone(),
        }
    }
}

/// The usual arithmetic conversions (C11 6.3.1.8) on two arithmetic types: the common type.
pub fn usual_arithmetic(a: &CType, b: &CType, dm: DataModel) -> CType {
    match (a, b) {
        (CType::Float(x), CType::Float(y)) => {
            let rank = |k: &FloatKind| match k {
                FloatKind::Float => 0,
                FloatKind::Double => 1,
                FloatKind::LongDouble => 2,
            };
            if rank(x) >= rank(y) {
                a.clone()
            } else {
                b.clone()
            }
        }
        (CType::Float(_), _) => a.clone(),
        (_, CType::Float(_)) => b.clone(),
        _ => {
            let (CType::Int(x), CType::Int(y)) = (a.promoted(), b.promoted()) else {
                return CType::INT;
            };
            if x == y {
                return CType::Int(x);
            }
            if x.is_signed() == y.is_signed() {
                return CType::Int(if x.rank() >= y.rank() { x } else { y });
            }
            let (s, u) = if x.is_signed() { (x, y) } else { (y, x) };
            if u.rank() >= s.rank() {
                CType::Int(u)
            } else if s.width(dm) > u.width(dm) {
                CType::Int(s)
            } else {
                CType::Int(s.to_unsigned())
            }
        }
    }
}
