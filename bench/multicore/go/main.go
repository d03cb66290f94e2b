// The multicore patterns of bench/multicore/mpd/*.mpd in Go, for the same
// table: `multicore PATTERN N [ITERS]`, run with GOMAXPROCS=1, 2, 4.  Each
// MPD op is a channel: an asynchronous send is a buffered channel (MPD's
// queue is unbounded; a buffer of 1024 rarely fills), a call is a request
// carrying its own reply channel, a semaphore is a buffered channel of
// tokens.
package main

import (
	"fmt"
	"os"
	"strconv"
	"sync"
)

const buf = 1024

func pipeline(n int) {
	const S = 4
	var ch [S + 1]chan int32
	for i := range ch {
		ch[i] = make(chan int32, buf)
	}
	for i := 1; i <= S; i++ {
		go func(in, out chan int32) {
			for k := 0; k < n; k++ {
				out <- (<-in) + 1
			}
		}(ch[i-1], ch[i])
	}
	done := make(chan int32)
	go func() {
		s := int32(0)
		for k := 0; k < n; k++ {
			s = (s + <-ch[S]) % 1000003
		}
		done <- s
	}()
	for k := 1; k <= n; k++ {
		ch[0] <- int32(k)
	}
	fmt.Println("pipeline", n, <-done)
}

func pairs(n int, name string) {
	const P = 4
	var wg sync.WaitGroup
	for i := 0; i < P; i++ {
		ping, pong := make(chan int32, buf), make(chan int32, buf)
		wg.Add(1)
		go func() {
			for k := 0; k < n; k++ {
				ping <- int32(k)
				<-pong
			}
			wg.Done()
		}()
		go func() {
			for k := 0; k < n; k++ {
				pong <- <-ping
			}
		}()
	}
	wg.Wait()
	fmt.Println(name, n)
}

func fanin(n int) {
	const P = 4
	ch := make(chan int32, buf)
	for i := 0; i < P; i++ {
		go func() {
			for k := 1; k <= n/P; k++ {
				ch <- int32(k)
			}
		}()
	}
	s := int32(0)
	for k := 0; k < n; k++ {
		s = (s + <-ch) % 1000003
	}
	fmt.Println("fanin", n, s)
}

type call struct {
	x     int32
	reply chan int32
}

func bag(n, iters int) {
	const W = 4
	get := make(chan chan int32)
	result := make(chan int32, W)
	go func() { // the manager serves one request at a time, as `in` does
		next, stopped := 1, 0
		for stopped < W {
			r := <-get
			if next <= n {
				r <- int32(next)
				next++
			} else {
				r <- 0
				stopped++
			}
		}
	}()
	for w := 0; w < W; w++ {
		go func() {
			sum := int32(0)
			r := make(chan int32)
			for {
				get <- r
				t := <-r
				if t == 0 {
					break
				}
				x := t
				for j := 0; j < iters; j++ {
					x = x*1103515245 + 12345
				}
				sum = (sum + (x & 1023)) % 1000003
			}
			result <- sum
		}()
	}
	s := int32(0)
	for w := 0; w < W; w++ {
		s = (s + <-result) % 1000003
	}
	fmt.Println("bag", n, s)
}

func barrier(n int) {
	const W = 4
	arrive := make(chan struct{}, W)
	var gosem [W]chan struct{}
	for i := range gosem {
		gosem[i] = make(chan struct{}, 1)
	}
	var wg sync.WaitGroup
	for i := 0; i < W; i++ {
		wg.Add(1)
		go func(g chan struct{}) {
			for k := 0; k < n; k++ {
				arrive <- struct{}{}
				<-g
			}
			wg.Done()
		}(gosem[i])
	}
	go func() {
		for k := 0; k < n; k++ {
			for i := 0; i < W; i++ {
				<-arrive
			}
			for i := 0; i < W; i++ {
				gosem[i] <- struct{}{}
			}
		}
	}()
	wg.Wait()
	fmt.Println("barrier", n)
}

func sq(x int32) int32 { return x * x }

func cojoin(n int) {
	s := int32(0)
	var r [4]int32
	for k := 1; k <= n; k++ {
		var wg sync.WaitGroup
		wg.Add(4)
		for i := 0; i < 4; i++ {
			go func(i int) { r[i] = sq(int32(i + 1 + k)); wg.Done() }(i)
		}
		wg.Wait()
		s = (s + r[0] + r[1] + r[2] + r[3]) % 1000003
	}
	fmt.Println("cojoin", n, s)
}

// rpc_call: a new goroutine per call, as a proc is a new process per call.
func rpcCall(n int) {
	const C = 4
	var wg sync.WaitGroup
	for i := 0; i < C; i++ {
		wg.Add(1)
		go func() {
			s := int32(0)
			r := make(chan int32)
			for k := 1; k <= n/C; k++ {
				go func(x int32) { r <- x + 1 }(int32(k))
				s = (s + <-r) % 1000003
			}
			wg.Done()
		}()
	}
	wg.Wait()
	fmt.Println("rpc_call", n)
}

func rpcIn(n int) {
	const C = 4
	serve := make(chan call)
	go func() {
		for k := 0; k < n; k++ {
			c := <-serve
			c.reply <- c.x + 1
		}
	}()
	var wg sync.WaitGroup
	for i := 0; i < C; i++ {
		wg.Add(1)
		go func() {
			s := int32(0)
			r := make(chan int32)
			for k := 1; k <= n/C; k++ {
				serve <- call{int32(k), r}
				s = (s + <-r) % 1000003
			}
			wg.Done()
		}()
	}
	wg.Wait()
	fmt.Println("rpc_in", n)
}

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: multicore PATTERN N [ITERS]")
		os.Exit(2)
	}
	n, _ := strconv.Atoi(os.Args[2])
	iters := 0
	if len(os.Args) > 3 {
		iters, _ = strconv.Atoi(os.Args[3])
	}
	switch os.Args[1] {
	case "pipeline":
		pipeline(n)
	case "pairs":
		pairs(n, "pairs")
	case "pairs_inst": // Go has no instances: the same program
		pairs(n, "pairs_inst")
	case "fanin":
		fanin(n)
	case "bag":
		bag(n, iters)
	case "barrier":
		barrier(n)
	case "cojoin":
		cojoin(n)
	case "rpc_call":
		rpcCall(n)
	case "rpc_in":
		rpcIn(n)
	default:
		fmt.Fprintln(os.Stderr, "unknown pattern", os.Args[1])
		os.Exit(2)
	}
}
