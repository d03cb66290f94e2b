fn main() {
    std::process::exit(mpdc::mpdm::mpdm_main());
}
