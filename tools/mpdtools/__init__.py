"""Test tools for the MPD compiler: a mutation fuzzer that goes through the C
compiler (tools/fuzz.py) and a differential harness against MPD 1.0.1
(tools/difftest.py).  See docs/testing-tools.md."""
