#pragma once
// What krow may learn about other processes on this machine, to tell a lock held by a live
// process from one left behind by a process that is gone (kill -9, a crash).
//
// Thread: any. None of these throws.

#include <sys/types.h>

#include <cstdint>
#include <string>

namespace krow {

// This machine's host name, as gethostname() gives it ("" when it cannot).
std::string this_host();

// False only when the OS says that no process `pid` exists (ESRCH); a pid that is out of
// range is not alive either. A process of another user counts as alive (EPERM).
bool process_alive(int64_t pid);

// The command name of process `pid` (/proc/<pid>/comm, e.g. "python3"), or "" when the OS
// does not tell. Never its arguments: those may carry another program's secrets.
std::string process_name(int64_t pid);

// "pid 1234 (python3)", or "pid 1234" when the name is unknown.
std::string describe_process(int64_t pid);

}  // namespace krow
