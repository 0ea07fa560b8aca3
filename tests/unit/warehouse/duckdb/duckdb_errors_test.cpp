// DuckDB's errors become krow's classes by DuckDB's error type (duckdb_error_type), provoked in
// a real DuckDB: a write-write conflict of two transactions, a constraint, a file that cannot be
// written. Where DuckDB gives no code (a file another process holds), its words are read in one
// place: checked here against DuckDB's own message.

#include "warehouse/duckdb/duckdb_errors.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <string>

#include "warehouse/duckdb/duckdb_handles.hpp"

namespace krow::duck {
namespace {

// One in-memory database and connections to it.
class Memory {
 public:
  Memory() {
    duckdb_database raw = nullptr;
    EXPECT_EQ(duckdb_open(nullptr, &raw), DuckDBSuccess);
    db_.reset(raw);
  }
  Connection connect() {
    duckdb_connection raw = nullptr;
    EXPECT_EQ(duckdb_connect(db_.get(), &raw), DuckDBSuccess);
    return Connection(raw);
  }

 private:
  Database db_;
};

void ok(const Connection& c, const char* sql) {
  Result r;
  ASSERT_EQ(duckdb_query(c.get(), sql, r.get()), DuckDBSuccess) << r.error();
}

// The Error of a statement that fails.
Error failure(const Connection& c, const char* sql) {
  Result r;
  EXPECT_EQ(duckdb_query(c.get(), sql, r.get()), DuckDBError) << sql;
  return make_error(duckdb_result_error_type(r.get()), r.error() ? r.error() : "",
                    "committing a batch");
}

TEST(DuckDbErrors, AWriteWriteConflictIsATransactionErrorAndRetried) {
  Memory m;
  const auto a = m.connect(), b = m.connect();
  ok(a, "CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER); INSERT INTO t VALUES (1, 0)");
  ok(a, "BEGIN");
  ok(b, "BEGIN");
  ok(a, "UPDATE t SET v = 1 WHERE id = 1");
  const auto e = failure(b, "UPDATE t SET v = 2 WHERE id = 1");
  EXPECT_EQ(e.source().system, "DuckDB");
  EXPECT_EQ(e.source().code, "TRANSACTION") << e.what();
  EXPECT_EQ(e.error_class(), ErrorClass::transient) << e.what();
  EXPECT_EQ(e.said().rfind("committing a batch failed in DuckDB: ", 0), 0u) << e.what();
}

TEST(DuckDbErrors, AConstraintIsNotRetried) {
  Memory m;
  const auto c = m.connect();
  ok(c, "CREATE TABLE t (id INTEGER PRIMARY KEY); INSERT INTO t VALUES (1)");
  const auto e = failure(c, "INSERT INTO t VALUES (1)");
  EXPECT_EQ(e.source().code, "CONSTRAINT") << e.what();
  EXPECT_EQ(e.error_class(), ErrorClass::fatal_run);
  EXPECT_EQ(e.fix(), "");
}

TEST(DuckDbErrors, AFileThatCannotBeWrittenStopsTheSyncNamingTheFix) {
  Memory m;
  const auto c = m.connect();
  ok(c, "CREATE TABLE t (id INTEGER); INSERT INTO t VALUES (1)");
  // /sys refuses new files even to root: the OS says "Permission denied".
  const auto denied = failure(c, "COPY t TO '/sys/krow-duckdb-errors-test.csv'");
  EXPECT_EQ(denied.source().code, "IO") << denied.what();
  EXPECT_EQ(denied.error_class(), ErrorClass::fatal_run) << denied.what();
  EXPECT_NE(denied.fix().find("write access"), std::string::npos) << denied.what();
  // A file that passes away (a folder gone for now) is an I/O error worth retrying.
  const auto gone = failure(c, "COPY t TO '/nonexistent-krow-folder/t.csv'");
  EXPECT_EQ(gone.source().code, "IO") << gone.what();
  EXPECT_EQ(gone.error_class(), ErrorClass::transient) << gone.what();
}

TEST(DuckDbErrors, TheOperatingSystemsReasonOfAnIoErrorNamesTheFix) {
  // DuckDB's sentences for these, with the OS's reason (strerror) in them.
  const auto full =
      make_error(DUCKDB_ERROR_IO, "Could not write file \"/d/w.duckdb\": No space left on device",
                 "committing a batch");
  EXPECT_EQ(full.error_class(), ErrorClass::fatal_run);
  EXPECT_NE(full.fix().find("disk holding the DuckDB file is full"), std::string::npos);
  const auto damaged = make_error(
      DUCKDB_ERROR_IO,
      "The file \"/d/w.duckdb\" exists, but it is not a valid DuckDB database file!", "opening");
  EXPECT_EQ(damaged.error_class(), ErrorClass::fatal_run);
  EXPECT_NE(damaged.fix().find("damaged"), std::string::npos);
  // The same words under another type are not read as the OS's: the type decides.
  EXPECT_EQ(make_error(DUCKDB_ERROR_TRANSACTION, "Conflict on tuple: No space left on device", "x")
                .error_class(),
            ErrorClass::transient);
  EXPECT_EQ(make_error(DUCKDB_ERROR_INTERNAL, "anything", "x").error_class(),
            ErrorClass::fatal_run);
}

// A commit whose checkpoint cannot be written (the file reached its size limit, as on a full
// disk): DuckDB reports the I/O failure as a TRANSACTION error. Retrying would report rows
// the file never got; it stops the sync naming the fix instead.
TEST(DuckDbErrors, ACheckpointTheFileCannotTakeStopsTheSyncNamingTheFix) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("krow-duckdb-xfsz-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "small.duckdb").string();
  int out[2];
  ASSERT_EQ(::pipe(out), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // reports the COMMIT's error type and message on `out`
    ::close(out[0]);
    ::signal(SIGXFSZ, SIG_IGN);
    Database db;
    duckdb_database raw_db = nullptr;  // attached to an in-memory database, as krow writes
    if (duckdb_open(nullptr, &raw_db) != DuckDBSuccess) ::_exit(2);
    db.reset(raw_db);
    duckdb_connection raw = nullptr;
    if (duckdb_connect(db.get(), &raw) != DuckDBSuccess) ::_exit(2);
    const Connection c(raw);
    Result setup;
    if (duckdb_query(c.get(),
                     ("ATTACH '" + path +
                      "' AS w; USE w; SET checkpoint_threshold = '0B'; CREATE TABLE t (id BIGINT, "
                      "v VARCHAR); CHECKPOINT")
                         .c_str(),
                     setup.get()) != DuckDBSuccess)
      ::_exit(3);
    const rlimit limit{1 << 20, 1 << 20};  // 1 MiB, well under what the rows below need
    ::setrlimit(RLIMIT_FSIZE, &limit);
    // Batches as krow commits them: small enough to stay in memory until their commit writes
    // them to the file in its checkpoint.
    std::string said = "0 committed";
    for (int batch = 0; batch < 100; ++batch) {
      Result r;
      const std::string sql = "BEGIN; INSERT INTO t SELECT i, md5(i::VARCHAR) || md5((i + 1)::VARCHAR) "
                              "FROM range(" + std::to_string(batch * 5000) + ", " +
                              std::to_string(batch * 5000 + 5000) + ") AS s(i); COMMIT";
      if (duckdb_query(c.get(), sql.c_str(), r.get()) == DuckDBError) {
        said = std::to_string(duckdb_result_error_type(r.get())) + " " + (r.error() ? r.error() : "");
        break;
      }
    }
    (void)!::write(out[1], said.data(), said.size());
    ::_exit(0);
  }
  ::close(out[1]);
  std::string said;
  char buf[512];
  for (ssize_t n; (n = ::read(out[0], buf, sizeof buf)) > 0;) said.append(buf, n);
  ::close(out[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  const auto space = said.find(' ');
  ASSERT_NE(space, std::string::npos) << said;
  const auto type = static_cast<duckdb_error_type>(std::stoi(said.substr(0, space)));
  ASSERT_NE(type, DUCKDB_ERROR_INVALID) << "the commit passed: " << said;
  const auto e = make_error(type, said.substr(space + 1), "committing a batch");
  EXPECT_EQ(e.error_class(), ErrorClass::fatal_run) << e.what();
  EXPECT_NE(e.fix().find("free space there"), std::string::npos) << e.what();
}

TEST(DuckDbErrors, AFileAnotherProcessHoldsIsToldByDuckDbsOwnWords) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("krow-duckdb-errors-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "held.duckdb").string();
  int ready[2], release[2];
  ASSERT_EQ(::pipe(ready), 0);
  ASSERT_EQ(::pipe(release), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // holds the file open for writing until the test closes `release`
    ::close(ready[0]);
    ::close(release[1]);
    duckdb_database db = nullptr;
    const char up = duckdb_open(path.c_str(), &db) == DuckDBSuccess ? '1' : '0';
    (void)!::write(ready[1], &up, 1);
    char c;
    (void)!::read(release[0], &c, 1);
    ::_exit(0);
  }
  ::close(ready[1]);
  ::close(release[0]);
  char up = '0';
  ASSERT_EQ(::read(ready[0], &up, 1), 1);
  ASSERT_EQ(up, '1');

  duckdb_database raw = nullptr;
  char* raw_error = nullptr;
  const auto state = duckdb_open_ext(path.c_str(), &raw, nullptr, &raw_error);
  const Database db(raw);
  const Text error(raw_error);
  ::close(release[1]);
  ::waitpid(child, nullptr, 0);
  ::close(ready[0]);
  std::filesystem::remove_all(dir);

  ASSERT_EQ(state, DuckDBError);
  ASSERT_TRUE(error);
  EXPECT_TRUE(is_lock_conflict(error.get())) << error.get();
  EXPECT_FALSE(is_lock_conflict("IO Error: Cannot open file \"/x\": No such file or directory"));
}

}  // namespace
}  // namespace krow::duck
