_monitor(m)
  op go()
_body(m)
  _condvar(c)
  _proc( go() )
    skip
