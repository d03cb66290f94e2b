// Command mpdbench times the Go analogues of the runtime core benchmarks
// (goroutines, channels, sync.Mutex) and prints "name ns" lines, best of 5.
package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"time"
)

const rounds = 5

var scale = 1

func best(f func() float64) float64 {
	b := 1e18
	for r := 0; r < rounds; r++ {
		if ns := f(); ns < b {
			b = ns
		}
	}
	return b
}

func createDestroy() float64 {
	n := 200000 * scale
	var wg sync.WaitGroup
	t := time.Now()
	for i := 0; i < n; i += 100 {
		wg.Add(100)
		for k := 0; k < 100; k++ {
			go func() { wg.Done() }()
		}
		wg.Wait()
	}
	return float64(time.Since(t).Nanoseconds()) / float64(n)
}

func createRunWait() float64 {
	n := 200000 * scale
	done := make(chan struct{})
	t := time.Now()
	for i := 0; i < n; i++ {
		go func() { done <- struct{}{} }()
		<-done
	}
	return float64(time.Since(t).Nanoseconds()) / float64(n)
}

func yield() float64 {
	n := 1000000 * scale
	var wg sync.WaitGroup
	wg.Add(2)
	t := time.Now()
	for g := 0; g < 2; g++ {
		go func() {
			for i := 0; i < n; i++ {
				runtime.Gosched()
			}
			wg.Done()
		}()
	}
	wg.Wait()
	return float64(time.Since(t).Nanoseconds()) / float64(2*n)
}

var sink int

func mutexPV() float64 {
	n := 20000000 * scale
	var mu sync.Mutex
	t := time.Now()
	for i := 0; i < n; i++ {
		mu.Lock()
		sink++
		mu.Unlock()
	}
	return float64(time.Since(t).Nanoseconds()) / float64(n)
}

func pingPong(n int) float64 {
	ping, pong := make(chan int), make(chan int)
	go func() {
		for i := 0; i < n; i++ {
			pong <- <-ping
		}
	}()
	t := time.Now()
	for i := 0; i < n; i++ {
		ping <- i
		<-pong
	}
	return float64(time.Since(t).Nanoseconds()) / float64(2*n)
}

func main() {
	if len(os.Args) > 1 {
		if s, err := strconv.Atoi(os.Args[1]); err == nil && s > 0 {
			scale = s
		}
	}
	runtime.GOMAXPROCS(1)
	fmt.Printf("create_destroy %.2f\n", best(createDestroy))
	fmt.Printf("create_run_wait %.2f\n", best(createRunWait))
	fmt.Printf("yield %.2f\n", best(yield))
	fmt.Printf("sem_pv %.2f\n", best(mutexPV))
	fmt.Printf("sem_handoff %.2f\n", best(func() float64 { return pingPong(1000000 * scale) }))
	runtime.GOMAXPROCS(2)
	fmt.Printf("pingpong_2vp %.2f\n", best(func() float64 { return pingPong(200000 * scale) }))
}
