# The project's own MPD conformance corpus (tests/corpus).
sh tests/run-corpus.sh "$BUILD/bin"
