module mpdbench/timings

go 1.18
