fn main() {
    std::process::exit(mpdc::prof::mpdprof_main());
}
