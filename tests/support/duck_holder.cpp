// Test support: a process other than krow that has a DuckDB file open, as a DuckDB shell, a
// notebook or a BI tool would: `duck-holder FILE read_only|read_write` opens FILE with
// DuckDB's own library, prints "ready" on its stdout, and keeps it open until its stdin
// closes (the test releases it, or dies), then closes it and exits 0. Exits 1, saying why on
// stderr, when the file cannot be opened.

#include <duckdb.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

int main(int argc, char** argv) {
  if (argc != 3 ||
      (std::strcmp(argv[2], "read_only") != 0 && std::strcmp(argv[2], "read_write") != 0)) {
    std::fprintf(stderr, "usage: duck-holder FILE read_only|read_write\n");
    return 2;
  }
  duckdb_config config = nullptr;
  duckdb_create_config(&config);
  if (std::strcmp(argv[2], "read_only") == 0) duckdb_set_config(config, "access_mode", "READ_ONLY");
  duckdb_database db = nullptr;
  char* error = nullptr;
  const bool opened = duckdb_open_ext(argv[1], &db, config, &error) == DuckDBSuccess;
  duckdb_destroy_config(&config);
  if (!opened) {
    std::fprintf(stderr, "duck-holder: cannot open %s: %s\n", argv[1],
                 error ? error : "unknown error");
    duckdb_free(error);
    return 1;
  }
  std::printf("ready\n");
  std::fflush(stdout);
  char buf[64];
  while (read(STDIN_FILENO, buf, sizeof buf) > 0) {
  }
  duckdb_close(&db);
  return 0;
}
