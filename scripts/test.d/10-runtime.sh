# C tests of libmpdrt (default build: asm context switch, gcc).
make -s -C runtime BUILD="$BUILD" test
