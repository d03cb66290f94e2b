module mpdbench/multicore

go 1.18
