fn main() {
    std::process::exit(mpdc::driver::sr_main());
}
