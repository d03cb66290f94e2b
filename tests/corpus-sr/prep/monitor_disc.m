# How the four signalling disciplines differ: who runs after a signal.
_monitor(gate)
  op park(), parked() returns n: int, poke() returns saw: int, seen() returns s: int
_body(gate)
  var nparked := 0, flag := 0, after := 0
  _condvar(c)
  _proc( park() )
    nparked++
    _wait(c)
    nparked--
    flag := 1
  _proc_end
  _proc( parked() returns n )
    n := nparked
  _proc_end
  _proc( poke() returns saw )
    saw := -1
    flag := 0
    _signal(c)
    # SC: the woken process has not run yet; SW, SU: it has; SX: not reached
    saw := flag
    after := 1
  _proc_end
  _proc( seen() returns s )
    s := after
  _proc_end
_monitor_end
resource main()
  import gate
  process sleeper
    gate.park()
  end
  do gate.parked() = 0 -> nap(1) od
  write("poke saw", gate.poke())
  do gate.parked() = 1 -> nap(1) od
  write("rest of poke ran:", gate.seen())
end
