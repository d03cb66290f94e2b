_monitor(m)
  op go()
_body(m)
  _condvar(c)
  _proc( go()
    _wait(c)
  _proc_end
_monitor_end
