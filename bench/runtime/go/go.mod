module mpdbench

go 1.21
