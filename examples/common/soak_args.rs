//! What the soak examples (`soak`, `nav_soak`) share: their numeric arguments and the
//! process's resident memory.

/// `VmRSS` or `VmHWM` of this process in kB, 0 where there is no `/proc`.
pub fn proc_kb(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// The `k`-th argument as a number, `default` when absent. `-h` or `--help` prints `usage` and
/// exits with status 0; anything else but a number says so and exits with status 2.
pub fn arg(k: usize, default: u64, usage: &str) -> u64 {
    match std::env::args().nth(k) {
        None => default,
        Some(a) if a == "-h" || a == "--help" => {
            println!("{usage}");
            std::process::exit(0);
        }
        Some(a) => a.parse().unwrap_or_else(|_| {
            eprintln!("error: `{a}` is not a number of ticks");
            std::process::exit(2);
        }),
    }
}
