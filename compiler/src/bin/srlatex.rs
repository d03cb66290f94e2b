fn main() {
    std::process::exit(mpdc::srfmt::srlatex_main());
}
