fn main() {
    std::process::exit(mpdc::srfmt::srtex_main());
}
