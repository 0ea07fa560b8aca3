#pragma once
// Every point where krow's own tests reach into a running krow, in one place: each is off
// unless its environment variable is set, and costs a flag check when off. A test sets the
// variable for the krow it starts, then finds that process where the point says.
//
//   KROW_TEST_STOP_BEFORE_PUBLISH=1  a staged run stops itself (SIGSTOP) after its last batch
//                                    is staged, right before the publishing transaction: tests
//                                    kill -9 it there (Engines/Quality, Engines/Strategies).
//   KROW_TEST_STOP_AFTER_LOAD=1      BigQuery: a batch stops itself after its load job, before
//                                    the transaction that publishes it (BigQuery.Killed...).
//   KROW_TRACE_BATCHES=1             the committer says on stderr as each batch starts to be
//                                    written, so that a test can kill krow mid-write
//                                    (Engines/Liveness, SyncTest::start_krow_frozen_after_first_batch).
//
// Thread: any.

namespace krow::fault {

enum class StopPoint {
  before_publish,  // KROW_TEST_STOP_BEFORE_PUBLISH
  after_load,      // KROW_TEST_STOP_AFTER_LOAD
};

// Stops this process with SIGSTOP when the test asked for `point`; returns at once otherwise.
void stop_here_if_asked(StopPoint point);

// Whether the committer traces its batches (KROW_TRACE_BATCHES).
bool trace_batches();

}  // namespace krow::fault
