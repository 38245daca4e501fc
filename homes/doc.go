// Package homes finds the homes of CLIs' stores on this machine beyond
// the user's own: on WSL, the Windows users' homes (/mnt/c/Users/<user>),
// where the Windows builds of the CLIs keep their sessions. Each is read
// with the adapters as a home of its own (an Env whose Home is that
// folder, without the user's variables that move an adapter's store);
// which folders hold a store, the adapters say (Roots). The daemon
// answers for each on the bus as a host of its own, so that `stead
// session list --hosts all` lists them beside the machines.
//
// Windows paths in those sessions (a project's C:\Users\me\proj) are
// shown as the Linux path WSL sees them at (/mnt/c/Users/me/proj), so
// that filters by project and a run's folder work from Linux.
package homes
