/// mimalloc instead of the platform's allocator: planning 10,000 servers into five hosts makes
/// and drops millions of small strings and maps, and glibc's `malloc`/`free` took about a third
/// of its CPU time (ADR 0030). Built without transparent huge pages (`no_thp`), whose zeroing
/// made small commands slower.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    dotpack::cli::main()
}
