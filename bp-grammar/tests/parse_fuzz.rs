//! Fuzz/property tests of the parser: whatever the input, `parse` returns (no panic, no stack
//! overflow), every diagnostic has a position (line and column ≥ 1) and a message, and on
//! success the checker runs and positions its diagnostics too.
//!
//! Inputs come from a seeded PRNG (`bp_testkit::prng::SplitMix64`): random bytes (lossily
//! made UTF-8), random token soups, mutations (delete/insert/duplicate/swap chunks and tokens)
//! of the Boppo corpus and of embedded sample programs, and hand-made deep-nesting cases. Each
//! group runs on a thread with a 2 MiB stack, the size cargo gives test threads.

use bp_grammar::{
    Diagnostic, MAX_EXPR_DEPTH, MAX_PAREN_DEPTH, MAX_STMT_DEPTH, ParseOptions, Precedence, check,
    parse, parse_with,
};
use bp_testkit::prng::SplitMix64;
use std::path::PathBuf;

/// A random token of [`TOKENS`].
fn token(rng: &mut SplitMix64) -> &'static str {
    TOKENS[rng.below(TOKENS.len())]
}

const SAMPLES: [&str; 4] = [
    r#"//@@ source=sample.c preds="a b"
decl g, {x < y};
//@ line=3
dfs bool<2> f(a, b) begin
  decl l;
  enforce a | !b;
  l := schoose[a, 'b] constrain 'l = (a => b);
  L1: L2: if (*) then return a, b; elsif ? then goto L1, L2; else skip fi;
  while g ^ l do dead l; l := ~l; od
  return l, !l;
end
void main() begin
  decl x, y;
  x, _ := f(g, {x < y});
  /* block */ print(x, y); // line
  assume x != y; assert (x => y) & T;
  L: skip
end
"#,
    "decl a; void main() begin a := *; if a then skip; fi; end",
    "bool g(p) begin return !p; end\nvoid main() begin decl r; r := g(T); assert(r = F); end\n",
    "void main() begin decl a, b; a, b := 1, 0 constrain a' | 'b; while * do a := a & b | !b; od end",
];

const TOKENS: [&str; 72] = [
    "decl",
    "begin",
    "end",
    "void",
    "bool",
    "bool<2>",
    "if",
    "then",
    "else",
    "elsif",
    "fi",
    "while",
    "do",
    "od",
    "goto",
    "return",
    "skip",
    "assert",
    "assume",
    "print",
    "enforce",
    "constrain",
    "schoose",
    "dead",
    "dfs",
    "T",
    "F",
    "0",
    "1",
    "2",
    "*",
    "?",
    "!",
    "~",
    "&",
    "&&",
    "|",
    "||",
    "^",
    "=",
    "!=",
    "=>",
    "'",
    "(",
    ")",
    "[",
    "]",
    ",",
    ";",
    ":",
    ":=",
    "_",
    "main",
    "f",
    "a",
    "b",
    "L1",
    "{x < y}",
    "{",
    "}",
    "//@ k=v\n",
    "//@@ h=1\n",
    "// c\n",
    "/*",
    "*/",
    "\n",
    " ",
    "sync",
    "abortif",
    "ASYNC_1:",
    "endl",
    "é",
];

fn corpus() -> Vec<String> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/bp/boppo");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        println!("skipping the corpus: ../shared/corpus not found");
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path().join("main.bp"))
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .collect()
}

/// Parses `src` with both precedences and checks the invariants; returns whether it parsed.
fn check_one(src: &str) -> bool {
    let mut parsed = false;
    for precedence in [Precedence::Moped, Precedence::Cprover] {
        same_by_both_readers(src, &ParseOptions { precedence });
        match parse_with(src, &ParseOptions { precedence }) {
            Ok(prog) => {
                parsed = true;
                for d in check(&prog, src) {
                    assert_positioned(&d, src, "check");
                }
            }
            Err(ds) => {
                assert!(
                    !ds.is_empty(),
                    "Err without diagnostics for {:?}",
                    shorten(src)
                );
                for d in &ds {
                    assert_positioned(d, src, "parse");
                }
            }
        }
    }
    parsed
}

/// The hand-written reader gives up or builds exactly pest's AST, spans included (the AST's
/// `==` ignores spans, its JSON does not); returns whether it read the program.
fn same_by_both_readers(src: &str, opts: &ParseOptions) -> bool {
    let (fast, pest) = bp_grammar::parse::parse_by_both_readers(src, opts);
    let Some(fast) = fast else {
        return false;
    };
    let json = |p: &bp_grammar::Program| serde_json::to_string(p).expect("the AST serialises");
    match &pest {
        Ok(p) => assert_eq!(
            json(&fast),
            json(p),
            "the readers differ on {:?}",
            shorten(src)
        ),
        Err(ds) => panic!(
            "the hand-written reader accepts what pest rejects ({:?}): {:?}",
            ds.first().map(|d| &d.message),
            shorten(src)
        ),
    }
    true
}

fn assert_positioned(d: &Diagnostic, src: &str, who: &str) {
    assert!(
        d.span.line >= 1 && d.span.col >= 1,
        "{who} diagnostic without a position: {d:?}\ninput: {:?}",
        shorten(src)
    );
    assert!(
        !d.message.is_empty() && !d.code.is_empty(),
        "{who} diagnostic without a code or message: {d:?}\ninput: {:?}",
        shorten(src)
    );
    assert!(
        d.span.start <= src.len(),
        "{who} diagnostic beyond the input: {d:?}\ninput: {:?}",
        shorten(src)
    );
}

fn shorten(src: &str) -> String {
    if src.len() <= 300 {
        src.to_string()
    } else {
        let cut = (0..=300)
            .rev()
            .find(|&i| src.is_char_boundary(i))
            .unwrap_or(0);
        format!("{}... ({} bytes)", &src[..cut], src.len())
    }
}

fn on_2mib_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .expect("spawn a test thread")
        .join()
        .expect("the fuzz group panicked (see above)");
}

fn mutate(rng: &mut SplitMix64, base: &[u8]) -> Vec<u8> {
    let mut s = base.to_vec();
    for _ in 0..1 + rng.below(4) {
        let len = s.len();
        let at = if len == 0 { 0 } else { rng.below(len + 1) };
        let chunk = 1 + rng.below(24);
        match rng.below(7) {
            0 if len > 0 => {
                let end = (at + chunk).min(len);
                s.drain(at..end);
            }
            1 => {
                let bytes: Vec<u8> = (0..chunk).map(|_| rng.next_u64() as u8).collect();
                s.splice(at..at, bytes);
            }
            2 if len > 0 => {
                let end = (at + chunk).min(len);
                let copy = s[at..end].to_vec();
                let to = rng.below(s.len() + 1);
                s.splice(to..to, copy);
            }
            3 if len > 1 => {
                let a = rng.below(len);
                let b = rng.below(len);
                let (a, b) = (a.min(b), a.max(b));
                let n = chunk.min(b - a).min(len - b);
                for i in 0..n {
                    s.swap(a + i, b + i);
                }
            }
            4 if len > 0 => {
                // Replace a chunk by a token.
                let end = (at + rng.below(6)).min(len);
                let tok = token(rng).as_bytes().to_vec();
                s.splice(at..end, tok);
            }
            _ => {
                let mut tok = token(rng).as_bytes().to_vec();
                tok.push(b' ');
                s.splice(at..at, tok);
            }
        }
    }
    s
}

#[test]
fn random_bytes_never_panic() {
    on_2mib_stack(|| {
        let mut rng = SplitMix64::new(0x5EED_0001);
        let alphabet = b"abcTF01*?!~&|^=>'()[]{},;:_ \n\t/@\"\\$#-";
        for i in 0..2000 {
            let len = rng.below(200);
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    if i % 2 == 0 {
                        rng.next_u64() as u8
                    } else {
                        *rng.pick(alphabet)
                    }
                })
                .collect();
            check_one(&String::from_utf8_lossy(&bytes));
        }
    });
}

#[test]
fn random_token_soups_never_panic() {
    on_2mib_stack(|| {
        let mut rng = SplitMix64::new(0x5EED_0002);
        for _ in 0..2000 {
            let mut src = String::new();
            if rng.below(2) == 0 {
                src.push_str("void main() begin ");
            }
            for _ in 0..rng.below(60) {
                src.push_str(token(&mut rng));
                src.push(' ');
            }
            if rng.below(2) == 0 {
                src.push_str(" end");
            }
            check_one(&src);
        }
    });
}

#[test]
fn mutated_programs_never_panic() {
    let mut bases = corpus();
    bases.extend(SAMPLES.iter().map(|s| s.to_string()));
    // The unmutated bases all parse.
    for b in &bases {
        assert!(parse(b).is_ok(), "base does not parse: {b}");
    }
    on_2mib_stack(move || {
        let mut rng = SplitMix64::new(0x5EED_0003);
        let mut parsed = 0;
        for _ in 0..2000 {
            let base = rng.pick(&bases).as_bytes().to_vec();
            let m = mutate(&mut rng, &base);
            if check_one(&String::from_utf8_lossy(&m)) {
                parsed += 1;
            }
        }
        // Some mutations keep the program valid (e.g. inside comments): the checker runs too.
        println!("{parsed} of 2000 mutants parsed");
        assert!(parsed > 0);
    });
}

#[test]
fn deep_nesting_never_overflows() {
    on_2mib_stack(|| {
        let wrap = |body: String| format!("decl a, x; void main() begin {body} end");
        let rejected = |src: &str| {
            let ds = parse(src).expect_err("too deep");
            assert!(ds.iter().any(|d| d.code == "too-deep"), "{:?}", ds.first());
            check_one(src);
        };
        // Far beyond the limits.
        rejected(&wrap(format!("x := {}a;", "(".repeat(100_000))));
        rejected(&"(".repeat(100_000));
        rejected(&wrap(format!("x := {}a;", "!".repeat(100_000))));
        rejected(&wrap(format!("x := {}a;", "~(".repeat(50_000))));
        rejected(&wrap(format!("x := {}a;", "schoose[".repeat(50_000))));
        rejected(&wrap(format!("x := a{};", " & a".repeat(200_000))));
        rejected(&wrap(format!("x := a{};", " | !a".repeat(200_000))));
        rejected(&wrap("if a then ".repeat(100_000)));
        rejected(&wrap("while a do ".repeat(100_000)));
        // Just over.
        rejected(&wrap(format!(
            "x := {}a{};",
            "(".repeat(MAX_PAREN_DEPTH + 1),
            ")".repeat(MAX_PAREN_DEPTH + 1)
        )));
        rejected(&wrap(format!("x := a{};", " => a".repeat(MAX_EXPR_DEPTH))));
        let cprover = ParseOptions {
            precedence: Precedence::Cprover,
        };
        let chain = wrap(format!("x := a{};", " => a".repeat(200_000)));
        assert_eq!(
            parse_with(&chain, &cprover).expect_err("too deep")[0].code,
            "too-deep"
        );
        // At every limit at once: 256 nested ifs around 256 nested parentheses and a
        // 2,000-deep chain, parsed and checked on a 2 MiB stack.
        let n = MAX_STMT_DEPTH;
        let p = MAX_PAREN_DEPTH;
        let deepest = wrap(format!(
            "{} x := {}a{}; x := a{}; {}",
            "if a then ".repeat(n),
            "(".repeat(p),
            ")".repeat(p),
            " & a".repeat(MAX_EXPR_DEPTH - 1),
            "fi ".repeat(n)
        ));
        assert!(parse(&deepest).is_ok());
        assert!(check_one(&deepest));
        let mixed = wrap(format!(
            "x := {}a{};",
            "!(".repeat(MAX_EXPR_DEPTH - 1),
            ")".repeat(MAX_EXPR_DEPTH - 1)
        ));
        assert!(check_one(&mixed));
    });
}

/// Valid programs of every shape are read by the hand-written reader, and into pest's AST
/// exactly: the samples, the repository's `.bp` files (test data, goldens, examples), the
/// Boppo corpus, generated programs printed, and constructs the printer never writes
/// (statements without `;` before a closing keyword, comments and annotations between any
/// tokens, escaped identifiers, primes on either side, labels, CRLF and byte-order marks).
#[test]
fn fast_and_pest_readers_agree() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut srcs: Vec<String> = SAMPLES.iter().map(|s| s.to_string()).collect();
    srcs.extend(corpus());
    let mut dirs = vec![root.clone()];
    while let Some(d) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.filter_map(Result::ok) {
            let p = e.path();
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if p.is_dir() && !name.starts_with('.') && name != "target" {
                dirs.push(p);
            } else if name.ends_with(".bp")
                && let Ok(s) = std::fs::read_to_string(&p)
            {
                srcs.push(s);
            }
        }
    }
    let cfg = bp_testkit::generator::GenConfig::default();
    for seed in 0..300 {
        srcs.push(bp_grammar::print(&bp_testkit::generator::random_program(
            seed, &cfg,
        )));
    }
    srcs.extend(
        [
            "decl g;\r\nvoid main() begin\r\n  skip\r\nend\r\n",
            "\u{FEFF}decl g; void main() begin if g then skip elsif !g then skip else skip fi end",
            "void main() begin while * do skip od end",
            "decl {a b}, x; void main() begin {a b} := 'x; x := {a b}' & x'; end",
            "void main() begin L1 : L2: skip; goto L1 , L2 ; end",
            "/* a */ decl /* b */ g /* c */ ; // d\nvoid /**/ main ( ) begin g := ! /* e */ g ; end",
            "//@@ a=1\n//@@ b=\"x y\"\n//@ c=2\ndecl g;\n//@ d=3\nvoid main() begin\n  //@ e=4\n  skip;\nend",
            "bool<3> f(a) begin return a, !a, * ; end void main() begin decl x; x, _, _ := f(T); end",
            "dfs void main() begin decl a; enforce a | !a; a := schoose [ a , !a ] ; print(); print(a, *); dead a; end",
            "void main() begin decl a, b; a, b := b, a constrain a' = 'b; assume a => b; assert a != b ^ a = b; return; end",
            "decl x-y, $z#; void main() begin x-y := $z#; end",
            "void main() begin decl a; a := ~~!a && a || a | a & a; end",
            "void f() begin skip; end void main() begin f(); f() end",
        ]
        .map(String::from),
    );
    let mut read = 0;
    for src in &srcs {
        for precedence in [Precedence::Moped, Precedence::Cprover] {
            let opts = ParseOptions { precedence };
            let fast = same_by_both_readers(src, &opts);
            if parse_with(src, &opts).is_ok() {
                assert!(
                    fast,
                    "the hand-written reader gives up on {:?}",
                    shorten(src)
                );
                read += 1;
            }
        }
    }
    println!("{read} programs read alike by both readers");
    assert!(read > 2 * 300);
}
