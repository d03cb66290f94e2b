#!/usr/bin/env python3
"""check.py: checks of a timeline (scripts/test.d/33-timeline.sh).

  check.py json FILE [arrows=N] [vps=N] [blocked=N] [text=S]...
      FILE is the Chrome/Perfetto export: valid JSON, one track per VP, N
      flow arrows (send/call -> receive) each with both ends, N processes
      blocked at the end (a 'deadlock' instant when N > 0), every complete
      event with a duration >= 0; every S the name of a track or an event.
  check.py page FILE.dom [arrows=N] [vps=N] [procs=N] [atend=N] [text=S]...
      FILE.dom is the page as headless Chromium rendered it (--dump-dom):
      lanes vp0.. and p<pid>, N message arrows, N spans hatched as blocked
      at the end, and every text S somewhere in the rendered page.
  check.py data FILE.html [dropped] [src=NAME]
      the data inlined in a page: valid JSON; events were dropped (or
      not); the source of NAME is embedded.
Prints one line per failed check; exit status 1 if any failed.
"""
import json
import re
import sys

fails = []


def want(cond, what):
    if not cond:
        fails.append(what)


def opts(args):
    o = {"text": []}
    for a in args:
        k, _, v = a.partition("=")
        if k == "text":
            o["text"].append(v)
        else:
            o[k] = v if v else True
    return o


def check_json(path, o):
    with open(path) as f:
        d = json.load(f)
    ev = d["traceEvents"]
    names = [e for e in ev if e.get("ph") == "M" and e.get("name") == "thread_name" and e.get("pid") == 1]
    if "vps" in o:
        want(len(names) == int(o["vps"]), "%d VP tracks, want %s" % (len(names), o["vps"]))
    starts = {e["id"] for e in ev if e.get("ph") == "s"}
    ends = {e["id"] for e in ev if e.get("ph") == "f"}
    if "arrows" in o:
        want(len(starts) == int(o["arrows"]), "%d flow starts, want %s" % (len(starts), o["arrows"]))
        want(starts == ends, "flow starts and ends differ: %s" % sorted(starts ^ ends)[:5])
    end = max((e.get("ts", 0) + e.get("dur", 0) for e in ev), default=0)
    for e in ev:
        if e.get("ph") == "X":
            want(e["dur"] >= 0 and e["ts"] >= 0, "span with a negative time: %s" % e)
    names = {e.get("name") for e in ev} | {e["args"]["name"] for e in ev if e.get("ph") == "M" and "name" in e.get("args", {})}
    for t in o["text"]:
        want(t in names, "no track or event named %r" % t)
    glob = [e["name"] for e in ev if e.get("ph") == "i" and e.get("s") == "g"]
    want(any(n.startswith("end (status") for n in glob), "no 'end' instant")
    if "blocked" in o:
        n = int(o["blocked"])
        dl = [g for g in glob if g.startswith("deadlock")]
        if n:
            want(dl == ["deadlock: %d blocked" % n], "deadlock instants %s, want %d blocked" % (dl, n))
            # each blocked process has a blocked span that lasts to the end
            last = [e for e in ev if e.get("ph") == "X" and e.get("cat") == "blocked"
                    and abs(e["ts"] + e["dur"] - end) < 0.01]
            want(len(last) == n, "%d spans blocked to the end, want %d" % (len(last), n))
        else:
            want(not dl, "a deadlock instant: %s" % dl)


def check_page(path, o):
    dom = open(path, encoding="utf-8").read()
    lanes = re.findall(r'<g class="lane (vp|proc)" data-lane="([a-z0-9]+)"', dom)
    vps = [l for k, l in lanes if k == "vp"]
    procs = [l for k, l in lanes if k == "proc"]
    want(len(lanes) > 0, "no lanes rendered (did the script run?)")
    if "vps" in o:
        want(vps == ["vp%d" % i for i in range(int(o["vps"]))], "VP lanes %s, want %s" % (vps, o["vps"]))
    if "procs" in o:
        want(len(procs) == int(o["procs"]), "%d process lanes, want %s" % (len(procs), o["procs"]))
    arrows = re.findall(r'<path class="arrow msg( pending)?"', dom)
    if "arrows" in o:
        want(len(arrows) == int(o["arrows"]), "%d message arrows, want %s" % (len(arrows), o["arrows"]))
        want(not any(arrows), "an arrow to a receive that never happened")
    if "atend" in o:
        n = len(re.findall(r'class="span blocked w[0-9]+ atend"', dom))
        want(n == int(o["atend"]), "%d spans blocked at the end, want %s" % (n, o["atend"]))
    shown = re.sub(r"<script>.*?</script>", "", dom, flags=re.S)     # what the page shows, not its code
    body = re.sub(r"<[^>]+>", "", shown).replace("&gt;", ">").replace("&lt;", "<").replace("&amp;", "&")
    for t in o["text"]:
        want(t in body, "page does not show %r" % t)


def check_data(path, o):
    page = open(path, encoding="utf-8").read()
    m = re.search(r"const TL = (.*?);</script>", page, re.S)
    want(m is not None, "no data in the page")
    if not m:
        return
    d = json.loads(m.group(1))
    if "dropped" in o:
        want(d["dropped"] > 0 and d["from"] > 0, "nothing dropped: %s, from %s" % (d["dropped"], d["from"]))
    if "src" in o:
        i = d["files"].index(o["src"]) if o["src"] in d["files"] else -1
        want(i >= 0 and d["src"][i], "source of %s not embedded" % o["src"])
    want("http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "") and "https://" not in page,
         "the page refers to the network")


def main():
    kind, path, rest = sys.argv[1], sys.argv[2], sys.argv[3:]
    try:
        {"json": check_json, "page": check_page, "data": check_data}[kind](path, opts(rest))
    except (OSError, ValueError, KeyError) as e:
        fails.append("%s: %s" % (path, e))
    for f in fails:
        print("   ", f)
    sys.exit(1 if fails else 0)


main()
