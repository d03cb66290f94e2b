fn main() {
    std::process::exit(mpdc::srfmt::grind::srgrind_main());
}
