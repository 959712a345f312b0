//! Standard output for results, closed pipes included: `slam-run prog.c | head -1` reads the
//! verdict and closes the pipe, after which writing the rest must not fail the tool (Rust
//! ignores SIGPIPE, so every `println!` after that would panic). [`Stdout`] drops what is
//! written after the reader has gone and remembers any other write error for [`Stdout::check`].

use std::io::{self, ErrorKind, Write};

/// Standard output that ends quietly when its reader closes the pipe.
pub struct Stdout {
    inner: io::Stdout,
    closed: bool,
    error: Option<io::Error>,
}

/// The process's standard output, as a [`Stdout`].
pub fn stdout() -> Stdout {
    Stdout {
        inner: io::stdout(),
        closed: false,
        error: None,
    }
}

impl Stdout {
    fn absorb(&mut self, r: io::Result<()>) {
        match r {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::BrokenPipe => self.closed = true,
            Err(e) => {
                self.closed = true;
                self.error.get_or_insert(e);
            }
        }
    }

    /// Flushes; the first write error other than a closed pipe, if there was one.
    pub fn check(&mut self) -> io::Result<()> {
        let _ = self.flush();
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if !self.closed {
            let r = self.inner.write_all(buf);
            self.absorb(r);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if !self.closed {
            let r = self.inner.flush();
            self.absorb(r);
        }
        Ok(())
    }
}
