#!/usr/bin/env python3
"""rtfaults/run.py BIN WORKDIR: a program never ends in silence.

Compiles the programs of this directory with BIN/mpd and checks, on 1 and 4
VPs, that
  - a memory fault (oob_fault.mpd with -O) is an RTS abort naming the MPD
    file, line and process, status 1, the output written before it kept;
  - a stack overflow (deep_call.mpd, small MPD_STACK_SIZE) names the file
    and line; the default stack holds a recursion 100000 deep;
  - a write error on stdout (/dev/full) is reported, status 1;
  - SIGINT, SIGTERM and SIGHUP flush the output and kill with the signal;
  - `mpd run` reports a program killed by a signal and gives 128+signal,
    passes SIGTERM on to it, and keeps the file it says it kept.
No check depends on timing: a program says it is ready by making a file,
and every wait is bounded only to end a hung run (60 s)."""
import os, signal, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
BIN, WORK = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
MPD = os.path.join(BIN, "mpd")
passed = failed = 0


def check(ok, what, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL rtfaults: %s%s" % (what, ("\n    " + detail.replace("\n", "\n    ")) if detail else ""))


def compile_prog(name, *flags):
    src = os.path.join(HERE, name + ".mpd")
    d = os.path.join(WORK, name + "".join(flags))
    os.makedirs(d, exist_ok=True)
    subprocess.run(["cp", src, d], check=True)
    r = subprocess.run([MPD] + list(flags) + ["-o", name, name + ".mpd"], cwd=d,
                       capture_output=True, text=True)
    check(r.returncode == 0, "compile %s %s" % (name, " ".join(flags)), r.stderr)
    return os.path.join(d, name)


def run(prog, args, nvp, env=None, stdout=subprocess.PIPE):
    e = dict(os.environ, MPD_PARALLEL=str(nvp), **(env or {}))
    return subprocess.run([prog] + args, env=e, stdout=stdout, stderr=subprocess.PIPE,
                          text=True, timeout=120)


def wait_for(path, proc):
    """Until path exists (the program is ready) or proc ended; bounded."""
    end = time.monotonic() + 60
    while not os.path.exists(path) and proc.poll() is None and time.monotonic() < end:
        time.sleep(0.01)
    return os.path.exists(path)


def default_signals():
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.SIG_DFL)


oob = compile_prog("oob_fault", "-O")
deep = compile_prog("deep_call")
hello = compile_prog("say_hello")
waiter = compile_prog("wait_signal")

for nvp in (1, 4):
    r = run(oob, ["100000000"], nvp)
    want = "RTS abort: file oob_fault.mpd, line 8:\n   segmentation fault (invalid memory reference) in process oob_fault.writer\n"
    check(r.returncode == 1 and r.stdout == "before the fault\n" and want in r.stderr,
          "memory fault on %d VPs" % nvp, "status %d\nstdout %r\nstderr %r" % (r.returncode, r.stdout, r.stderr))

    r = run(deep, ["100000"], nvp, {"MPD_STACK_SIZE": "65536"})
    check(r.returncode == 1 and "RTS abort: file deep_call.mpd, line " in r.stderr
          and "stack overflow in process deep_call.body" in r.stderr,
          "stack overflow on %d VPs" % nvp, "status %d\nstderr %r" % (r.returncode, r.stderr))
    r = run(deep, ["100000"], nvp)
    check(r.returncode == 0 and r.stdout == "depth 100000\n",
          "recursion 100000 deep on the default stack, %d VPs" % nvp,
          "status %d\nstdout %r\nstderr %r" % (r.returncode, r.stdout, r.stderr))

    with open("/dev/full", "w") as full:
        r = run(hello, [], nvp, stdout=full)
    check(r.returncode == 1 and "RTS abort: write error on standard output" in r.stderr,
          "write error on stdout, %d VPs" % nvp, "status %d\nstderr %r" % (r.returncode, r.stderr))

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        ready = os.path.join(WORK, "ready-%d-%d" % (nvp, sig))
        out = os.path.join(WORK, "out-%d-%d" % (nvp, sig))
        if os.path.exists(ready):
            os.remove(ready)
        with open(out, "w") as o:
            p = subprocess.Popen([waiter, ready], stdout=o, stderr=subprocess.STDOUT,
                                 env=dict(os.environ, MPD_PARALLEL=str(nvp)), preexec_fn=default_signals)
            if wait_for(ready, p):
                p.send_signal(sig)
            try:
                rc = p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                p.kill()
                rc = p.wait()
        text = open(out).read()
        want = "".join("line %d written before the signal\n" % i for i in (1, 2, 3))
        check(rc == -sig and text == want, "%s on %d VPs" % (signal.Signals(sig).name, nvp),
              "status %d (want %d)\noutput %r" % (rc, -sig, text))

# mpd run: a program killed by a signal (SIGTERM sent to mpd, passed on)
src = os.path.join(WORK, "wait_signal.mpd")
subprocess.run(["cp", os.path.join(HERE, "wait_signal.mpd"), src], check=True)
ready = os.path.join(WORK, "ready-run")
if os.path.exists(ready):
    os.remove(ready)
p = subprocess.Popen([MPD, "run", src, ready], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                     text=True, preexec_fn=default_signals)
if wait_for(ready, p):
    p.send_signal(signal.SIGTERM)
try:
    out, err = p.communicate(timeout=60)
except subprocess.TimeoutExpired:
    p.kill()
    out, err = p.communicate()
check(p.returncode == 128 + signal.SIGTERM and "mpd run: program killed by signal 15 (SIGTERM)" in err
      and out.count("written before the signal") == 3,
      "mpd run of a program killed by SIGTERM", "status %d\nstdout %r\nstderr %r" % (p.returncode, out, err))

# mpd run keeps the file it says it kept (a C compiler that fails)
r = subprocess.run([MPD, "run", os.path.join(HERE, "say_hello.mpd")], capture_output=True, text=True,
                   env=dict(os.environ, CC="false"))
kept = [w.rstrip("):") for w in r.stderr.split() if w.endswith(".c):")]
check(r.returncode != 0 and len(kept) == 1 and os.path.exists(kept[0]),
      "mpd run keeps the C file it names", "status %d\nstderr %r" % (r.returncode, r.stderr))
if kept and os.path.exists(kept[0]):
    subprocess.run(["rm", "-rf", os.path.dirname(os.path.dirname(kept[0]))])

# mpd run / sr run: usage in the command's own words; --help is not an error
for cmd, suffix in (("mpd", ".mpd"), ("sr", ".sr")):
    r = subprocess.run([os.path.join(BIN, cmd), "run", "--help"], capture_output=True, text=True)
    check(r.returncode == 0 and r.stdout.startswith("usage: %s run " % cmd) and ("prog" + suffix) in r.stdout,
          "%s run --help" % cmd, "status %d\nstdout %r" % (r.returncode, r.stdout))
    r = subprocess.run([os.path.join(BIN, cmd), "run", "--bogus", "x" + suffix], capture_output=True, text=True)
    check(r.returncode == 2 and r.stderr.startswith("%s run: unknown option --bogus" % cmd),
          "%s run with an unknown option" % cmd, "status %d\nstderr %r" % (r.returncode, r.stderr))

print("rtfaults: %d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
