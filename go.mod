module github.com/stead-dev/stead

go 1.26
