fn main() {
    std::process::exit(mpdc::prof::srprof_main());
}
