fn main() {
    std::process::exit(mpdc::prep::csp::csp2sr_main());
}
