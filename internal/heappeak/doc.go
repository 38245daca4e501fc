// Package heappeak samples the heap of the process while a benchmark
// runs, for the peak memory figures docs/performance.md records: the bytes of heap
// objects, live or not yet swept, every 5 ms.
//
// Non-goals: it is for benchmarks only; a peak between two samples is
// missed.
package heappeak
