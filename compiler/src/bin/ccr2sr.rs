fn main() {
    std::process::exit(mpdc::prep::ccr::ccr2sr_main());
}
