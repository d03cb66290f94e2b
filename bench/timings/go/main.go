// Command timings: the 12 operations of MPD's timing suite written in Go,
// for comparison with bench/timings/opbench.c, in ns per operation.
//
//	go run . [-scale 1] [-trials 7] [-procs 1]
//
// Each row does the Go counterpart of ../shared/mpd-vsuite/timings/<dir>:
// channels for semaphores and messages, goroutines for processes.
package main

import (
	"flag"
	"fmt"
	"runtime"
	"sort"
	"time"
)

type server interface{ dummy() }
type srv struct{}

//go:noinline
func (srv) dummy() {}

//go:noinline
func localDummy() {}

var sink int

func loop(n int) {
	for i := 0; i < n; i++ {
		sink++
	}
}

func locall(n int) {
	for i := 0; i < n; i++ {
		localDummy()
	}
}

func ircall(n int) {
	var s server = srv{}
	for i := 0; i < n; i++ {
		s.dummy()
	}
}

// irnew: a call answered by a new goroutine.
func irnew(n int) {
	reply := make(chan struct{})
	for i := 0; i < n; i++ {
		go func() { reply <- struct{}{} }()
		<-reply
	}
}

// pcreate: start a goroutine that signals a semaphore; wait for it.
func pcreate(n int) {
	done := make(chan struct{}, 1)
	for i := 0; i < n; i++ {
		go func() { done <- struct{}{} }()
		<-done
	}
}

func semP(n int) {
	s := make(chan struct{}, n)
	for i := 0; i < n; i++ {
		s <- struct{}{}
	}
	start = time.Now()
	for i := 0; i < n; i++ {
		<-s
	}
}

func semV(n int) {
	s := make(chan struct{}, n)
	for i := 0; i < n; i++ {
		s <- struct{}{}
	}
}

func sems(n int) {
	s := make(chan struct{}, 1)
	for i := 0; i < n; i++ {
		s <- struct{}{}
		<-s
	}
}

// semcsw: two goroutines alternate through two semaphores; n switches.
func semcsw(n int) {
	up, down := make(chan struct{}, 1), make(chan struct{}, 1)
	half := n / 2
	go func() {
		for i := 0; i < half; i++ {
			<-up
			down <- struct{}{}
		}
	}()
	for i := 0; i < half; i++ {
		up <- struct{}{}
		<-down
	}
}

type msg struct{ a, b int }

func asynch(n int) {
	c := make(chan msg, 1)
	for i := 0; i < n; i++ {
		c <- msg{i, i}
		m := <-c
		sink += m.a
	}
}

// msgcsw: two goroutines exchange messages; n switches.
func msgcsw(n int) {
	up, down := make(chan msg, 16), make(chan msg, 16)
	half := n / 2
	go func() {
		for i := 0; i < half; i++ {
			m := <-up
			down <- m
		}
	}()
	for i := 0; i < half; i++ {
		up <- msg{i, i}
		<-down
	}
}

type req struct {
	a     int
	reply chan int
}

// rend: a call served by another goroutine's receive (request/reply).
func rend(n int) {
	calls := make(chan req)
	go func() {
		for i := 0; i < n; i++ {
			r := <-calls
			r.reply <- r.a + 1
		}
	}()
	reply := make(chan int)
	for i := 0; i < n; i++ {
		calls <- req{i, reply}
		sink += <-reply
	}
}

var start time.Time

type row struct {
	dir   string
	iters int
	fn    func(int)
}

func main() {
	scale := flag.Float64("scale", 1, "multiply every iteration count")
	trials := flag.Int("trials", 7, "runs per row (the best is reported)")
	procs := flag.Int("procs", 1, "GOMAXPROCS")
	flag.Parse()
	runtime.GOMAXPROCS(*procs)
	rows := []row{
		{"loop", 20000000, loop},
		{"locall", 10000000, locall},
		{"ircall", 5000000, ircall},
		{"irnew", 300000, irnew},
		{"pcreate", 300000, pcreate},
		{"semP", 10000000, semP},
		{"semV", 10000000, semV},
		{"sems", 10000000, sems},
		{"semcsw", 2000000, semcsw},
		{"asynch", 2000000, asynch},
		{"msgcsw", 1000000, msgcsw},
		{"rend", 1000000, rend},
	}
	for _, r := range rows {
		n := int(float64(r.iters) * *scale)
		if n < 10 {
			n = 10
		}
		r.fn(n/10 + 1)
		var v []float64
		for t := 0; t < *trials; t++ {
			start = time.Now()
			r.fn(n)
			v = append(v, float64(time.Since(start).Nanoseconds())/float64(n))
		}
		sort.Float64s(v)
		fmt.Printf("%s %.2f\n", r.dir, v[0])
	}
}
