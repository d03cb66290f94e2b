# Front door.  make | make demo | make test | make bench | make install PREFIX=...
# Everything builds into build/, laid out like an install tree:
#   build/bin/{mpd,mpdl,mpdm}  build/lib/libmpdrt.a  build/include/mpd/{*.h,abi/*.h}
#   build/lib/mpd/  the MPD library (MPDgetopt, MPDWin: specs, objects, mpdwin.a)
PREFIX ?= /usr/local
BUILD  := $(CURDIR)/build
CARGO  ?= cargo

all: runtime compiler library

runtime:
	$(MAKE) -C runtime BUILD=$(BUILD)

compiler:
	cd compiler && $(CARGO) build --release --quiet
	@mkdir -p $(BUILD)/bin
	# -f: a binary in use (a test running it) is replaced, not written into (ETXTBSY)
	cp -f compiler/target/release/mpd compiler/target/release/mpdl compiler/target/release/mpdm compiler/target/release/mpdprof compiler/target/release/srprof compiler/target/release/sr compiler/target/release/srl compiler/target/release/srm compiler/target/release/ccr2sr compiler/target/release/m2sr compiler/target/release/csp2sr compiler/target/release/srtex compiler/target/release/srlatex compiler/target/release/srgrind $(BUILD)/bin/

# the MPD library (MPDgetopt, MPDWin), compiled by the compiler just built
library: runtime compiler
	$(MAKE) -C library BUILD=$(BUILD)

demo: all
	$(BUILD)/bin/mpd run examples/hello.mpd

# Every test of the project; the last line is the overall "N passed, N failed".
test: all
	sh scripts/test-all.sh

bench: all
	sh scripts/bench-all.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include/mpd $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BUILD)/bin/mpd $(BUILD)/bin/mpdl $(BUILD)/bin/mpdm $(BUILD)/bin/mpdprof $(BUILD)/bin/srprof $(BUILD)/bin/sr $(BUILD)/bin/srl $(BUILD)/bin/srm $(BUILD)/bin/ccr2sr $(BUILD)/bin/m2sr $(BUILD)/bin/csp2sr $(BUILD)/bin/srtex $(BUILD)/bin/srlatex $(BUILD)/bin/srgrind $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(BUILD)/lib/libmpdrt.a $(DESTDIR)$(PREFIX)/lib/
	install -m 644 $(BUILD)/include/mpd/*.h $(DESTDIR)$(PREFIX)/include/mpd/
	install -d $(DESTDIR)$(PREFIX)/include/mpd/abi
	install -m 644 $(BUILD)/include/mpd/abi/*.h $(BUILD)/include/mpd/abi/README $(DESTDIR)$(PREFIX)/include/mpd/abi/
	if ls docs/man/*.1 >/dev/null 2>&1; then install -m 644 docs/man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/; fi
	# srlatex's LaTeX package (TeX finds it with TEXINPUTS=$(PREFIX)/share/texmf/tex/latex/srlatex:)
	install -d $(DESTDIR)$(PREFIX)/share/texmf/tex/latex/srlatex
	install -m 644 library/tex/srlatex.sty $(DESTDIR)$(PREFIX)/share/texmf/tex/latex/srlatex/
	install -d $(DESTDIR)$(PREFIX)/lib/mpd $(DESTDIR)$(PREFIX)/share/man/man3
	install -m 644 $(BUILD)/lib/mpd/* $(DESTDIR)$(PREFIX)/lib/mpd/
	install -m 644 docs/man/*.3 $(DESTDIR)$(PREFIX)/share/man/man3/
	install -d $(DESTDIR)$(PREFIX)/share/man/man5
	if ls docs/man/*.5 >/dev/null 2>&1; then install -m 644 docs/man/*.5 $(DESTDIR)$(PREFIX)/share/man/man5/; fi

clean:
	rm -rf $(BUILD)
	cd compiler && $(CARGO) clean

.PHONY: all runtime compiler library demo test bench install clean
