fn main() -> std::process::ExitCode {
    dotpack::cli::main()
}
