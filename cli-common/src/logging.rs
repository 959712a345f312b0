//! The toolkit's logging convention, shared by every command: nothing unless asked; `-v` info,
//! `-vv` debug, `-vvv` trace, on standard error through `tracing`; the tool's own environment
//! variable (e.g. `BEBOP_LOG`) or `RUST_LOG` overrides the filter. Results go to standard output,
//! never here.

/// Installs the subscriber for `verbose` (the count of `-v` flags); `env_var` names the tool's
/// filter variable. Does nothing when `verbose` is 0 or a subscriber is already installed.
pub fn init(verbose: u8, env_var: &str) {
    if verbose == 0 {
        return;
    }
    let default = match verbose {
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    let filter = std::env::var(env_var)
        .or_else(|_| std::env::var("RUST_LOG"))
        .unwrap_or_else(|_| default.to_string());
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
        .with_writer(std::io::stderr)
        .try_init();
}
