_monitor(m)
  op go()
_body(m)
  _condvar(c)
  _proc( go() )
    skip
  _proc_end
  _proc_end
_monitor_end
