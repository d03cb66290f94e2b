fn main() {
    std::process::exit(mpdc::driver::mpdl_main());
}
