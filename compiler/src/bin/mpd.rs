fn main() {
    std::process::exit(mpdc::driver::mpd_main());
}
