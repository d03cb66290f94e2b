fn main() {
    std::process::exit(mpdc::mpdm::srm_main());
}
