# A program never ends in silence (tests/rtfaults/run.py): faults and stack
# overflows are RTS aborts with the MPD file, line and process; a write
# error on stdout is reported; SIGINT/SIGTERM/SIGHUP flush the output and
# kill with the signal; `mpd run` reports a program killed by a signal.
W=${BUILD:-$(pwd)/build}/rtfaults
rm -rf "$W"; mkdir -p "$W"
python3 tests/rtfaults/run.py "${BUILD:-$(pwd)/build}/bin" "$W"
