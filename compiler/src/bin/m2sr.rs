fn main() {
    std::process::exit(mpdc::prep::monitor::m2sr_main());
}
