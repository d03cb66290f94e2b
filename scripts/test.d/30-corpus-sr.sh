# The project's own SR conformance corpus (tests/corpus-sr), by the SR front end.
sh tests/run-corpus.sh "$BUILD/bin" sr
