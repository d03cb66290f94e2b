fn main() {
    std::process::exit(mpdc::driver::srl_main());
}
