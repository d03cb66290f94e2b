"""Running a program through our compiler and MPD 1.0.1's, and saying how
each one ended."""
import os
import re
import resource
import shutil
import subprocess
import tempfile

LOCATED = re.compile(r":\d+:\d+: error|line\s+\d+: fatal")

# how a compilation by our compiler ended; the first four are failures
FAILURES = ("cc", "panic", "crash", "hang", "unlocated")


# Address space of a compilation (ours or cc under it): a mutant that makes
# the compiler allocate without bound is a failure (an abort: "crash"), not a
# machine brought to a halt.
MEMORY_LIMIT = 4 << 30


def _limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def _run(cmd, cwd, timeout, env=None, stdin=None, limit=False):
    try:
        p = subprocess.run(cmd, cwd=cwd, timeout=timeout, capture_output=True,
                           env=env, stdin=stdin if stdin is not None else subprocess.DEVNULL,
                           preexec_fn=_limit_memory if limit else None)
        return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode("utf-8", "replace")
        err = (e.stderr or b"").decode("utf-8", "replace")
        return None, out, err


def classify_ours(rc, out, err):
    """ok (accepted), reject (a located error), or a failure kind."""
    text = out + err
    if rc is None:
        return "hang"
    if "panicked" in text or rc == 101:
        return "panic"
    if rc < 0:
        return "crash"
    if "internal error" in text:
        return "cc"
    if rc == 0:
        return "ok"
    if LOCATED.search(text):
        return "reject"
    return "unlocated"


class Workdir:
    """A scratch directory holding one program."""

    def __init__(self, src, name="prog.mpd"):
        self.dir = tempfile.mkdtemp(prefix="mpdt-")
        self.name = name
        with open(os.path.join(self.dir, name), "w") as f:
            f.write(src)

    def clean(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def compile_ours(bindir, src, timeout=60, link=False):
    """(kind, messages): our compiler on src; with link, a.out is built."""
    w = Workdir(src)
    try:
        args = [os.path.join(os.path.abspath(bindir), "mpd")] + ([] if link else ["-c"]) + ["-q", w.name]
        rc, out, err = _run(args, w.dir, timeout, limit=True)
        return classify_ours(rc, out, err), (out + err)
    finally:
        w.clean()


def compile_oracle(bindir, src, timeout=60):
    """(accepted, messages) for MPD 1.0.1 (-c: compile only)."""
    w = Workdir(src)
    try:
        rc, out, err = _run([os.path.join(os.path.abspath(bindir), "mpd"), "-c", "-q", w.name], w.dir, timeout, limit=True)
        if rc is None:
            return None, "timeout"
        return rc == 0, out + err
    finally:
        w.clean()


def build_and_run(bindir, src, timeout=60, run_timeout=20, env=None, stdin_data=None):
    """Compiles, links and runs src with the mpd of bindir.  Returns a dict:
    compiled (bool), compile (messages), rc (exit status or None on timeout,
    negative for a signal), out (stdout), err (stderr)."""
    w = Workdir(src)
    try:
        rc, out, err = _run([os.path.join(os.path.abspath(bindir), "mpd"), "-q", w.name], w.dir, timeout, env=env)
        res = {"compiled": rc == 0, "compile": out + err, "compile_rc": rc}
        if rc != 0:
            return res
        inp = None
        if stdin_data is not None:
            inp = open(os.path.join(w.dir, "stdin.txt"), "w+")
            inp.write(stdin_data)
            inp.seek(0)
        rc, out, err = _run(["./a.out"], w.dir, run_timeout, env=env, stdin=inp)
        if inp:
            inp.close()
        res.update(rc=rc, out=out, err=err)
        return res
    finally:
        w.clean()


def build_and_run_args(bindir, src, args, stdin_data, timeout=60):
    """build_and_run with command-line arguments for the program."""
    w = Workdir(src)
    try:
        rc, out, err = _run([os.path.join(os.path.abspath(bindir), "mpd"), "-q", w.name], w.dir, timeout)
        res = {"compiled": rc == 0, "compile": out + err, "compile_rc": rc}
        if rc != 0:
            return res
        with open(os.path.join(w.dir, "stdin.txt"), "w+") as inp:
            inp.write(stdin_data or "")
            inp.seek(0)
            rc, out, err = _run(["./a.out"] + list(args), w.dir, timeout, stdin=inp)
        res.update(rc=rc, out=out, err=err)
        return res
    finally:
        w.clean()
