// Command stead reads, converts and supervises AI coding CLI sessions.
//
// See the README and docs/ for the commands; `stead help` lists them.
package main

import "os"

func main() { os.Exit(int(Main(os.Args[1:], systemIO()))) }
