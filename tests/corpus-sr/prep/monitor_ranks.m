/* Waiting by rank: _pri_wait, _minrank, _print, arrays of condition
   variables; the woken come out least rank first, equal ranks in order. */
_monitor(queue)
  op sleep(id: int; line: int; r: int), asleep() returns n: int,
     wake(line: int), show(), least(line: int) returns r: int, woken() returns s: string[200]
_body(queue)
  var n := 0
  var order: string[200] := ""
  _condvar1(lines, 2)
  _condvar2(grid, 0:1, 3)
  _proc( sleep(id, line, r) )
    n++
    _pri_wait(lines[line], r)
    n--
    var t: string[8]
    sprintf(t, " %d", id)
    order := order || t
  _proc_end
  _proc( asleep() returns k )
    k := n
  _proc_end
  _proc( wake(line) )
    _signal(lines[line])
  _proc_end
  _proc( least(line) returns r )
    r := _minrank(lines[line])
  _proc_end
  _proc( show() )
    _print(lines[1]); _print(lines[2]); _print(grid[1][3])
    if _empty(grid[0][1]) -> write("grid[0,1] is empty") fi
  _proc_end
  _proc( woken() returns s )
    s := order
  _proc_end
_monitor_end
resource main()
  import queue
  const ranks := (30, 10, 20, 10, 30, 5)
  process sleeper(i := 1 to 6)
    nap(5 * i)
    queue.sleep(i, 1 + i % 2, ranks[i])
  end
  do queue.asleep() < 6 -> nap(2) od
  queue.show()
  write("least:", queue.least(1), queue.least(2))
  fa k := 1 to 3 ->
    queue.wake(1)
    do queue.asleep() > 7 - 2 * k -> nap(1) od
    queue.wake(2)
    do queue.asleep() > 6 - 2 * k -> nap(1) od
    queue.show()
  af
  write("woken:", queue.woken())
end
