//go:build !(js && wasm)

package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "floorapp runs in the browser (GOOS=js GOARCH=wasm); BenchmarkInteractive builds and serves it (SPECDASH_BENCH_FLOOR=1)")
	os.Exit(2)
}
