/* _signal_all means nothing when the signaller gives the monitor away */
_monitor(m)
  op go()
_body(m)
  _condvar(c)
  _proc( go() )
    _signal_all(c)
  _proc_end
_monitor_end
