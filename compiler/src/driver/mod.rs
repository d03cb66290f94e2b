//! driver: the mpd and mpdl command lines (placeholder until the driver lands).
pub fn mpd_main() -> i32 {
    eprintln!("mpd: compiler not built yet");
    2
}
pub fn mpdl_main() -> i32 {
    eprintln!("mpdl: linker not built yet");
    2
}
