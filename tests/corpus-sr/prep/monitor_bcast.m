/* _signal_all (signal and continue only): a barrier for rounds of
   processes; the last to arrive wakes all the others. */
_monitor(barrier)
  op arrive(id: int)
_body(barrier)
  const N := 4
  var count := 0, round := 0
  _condvar(all_here)
  _proc( arrive(id) )
    var mine := round
    count++
    if count < N ->
      do mine = round -> _wait(all_here) od
    [] else ->
      write("round", round, "complete")
      count := 0; round++
      _signal_all(all_here)
      if not _empty(all_here) -> write("still waiting after _signal_all?") fi
    fi
  _proc_end
_monitor_end
resource main()
  import barrier
  process member(i := 1 to 4)
    fa r := 1 to 3 -> barrier.arrive(i); write("member", i, "passed round", r) af
  end
end
