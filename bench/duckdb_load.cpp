// bench-duckdb-load: DuckDB's own bulk insert of the rows krow wrote, the sink's ceiling.
//
//   bench-duckdb-load prepare SOURCE.duckdb TABLE DIR ROWS_PER_FILE
//       writes the table's rows, in (partition, offset) order, as Parquet files of
//       ROWS_PER_FILE rows each (one per krow batch) into DIR, and the table's definition
//       (krow's CREATE TABLE, as DuckDB keeps it) as DIR/table.sql
//   bench-duckdb-load load TARGET.duckdb DIR one|per-file
//       creates the table in a fresh TARGET, reads every file into a temporary in-memory
//       table, and then, timed, inserts those ready rows: in one transaction, or one
//       transaction per file; and checkpoints (so that everything is in the file)
//
// DuckDB runs with its defaults (all cores, its own memory limit and checkpoint policy):
// its best, not krow's settings. Prints the rows inserted and the seconds the insert took
// (not the Parquet reading before it).

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include <duckdb.h>

namespace {

struct Db {
  duckdb_database db = nullptr;
  duckdb_connection conn = nullptr;
  explicit Db(const std::string& path) {
    if (duckdb_open(path.c_str(), &db) == DuckDBError) throw std::runtime_error("cannot open " + path);
    if (duckdb_connect(db, &conn) == DuckDBError) throw std::runtime_error("cannot connect to " + path);
  }
  ~Db() {
    duckdb_disconnect(&conn);
    duckdb_close(&db);
  }
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  int64_t exec(const std::string& sql) {
    duckdb_result r;
    if (duckdb_query(conn, sql.c_str(), &r) == DuckDBError) {
      std::string msg = duckdb_result_error(&r);
      duckdb_destroy_result(&r);
      throw std::runtime_error(msg + "\n  in: " + sql);
    }
    const int64_t first = duckdb_row_count(&r) > 0 && duckdb_column_count(&r) > 0 ? duckdb_value_int64(&r, 0, 0) : 0;
    duckdb_destroy_result(&r);
    return first;
  }
  // The first value of a query's result as text.
  std::string text(const std::string& sql) {
    duckdb_result r;
    if (duckdb_query(conn, sql.c_str(), &r) == DuckDBError || duckdb_row_count(&r) == 0) {
      std::string msg = duckdb_result_error(&r) ? duckdb_result_error(&r) : "no such table";
      duckdb_destroy_result(&r);
      throw std::runtime_error(msg + "\n  in: " + sql);
    }
    char* v = duckdb_value_varchar(&r, 0, 0);
    std::string out = v ? v : "";
    duckdb_free(v);
    duckdb_destroy_result(&r);
    return out;
  }
};

std::string literal(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

std::string read_file(const std::filesystem::path& path) {
  std::string out;
  std::FILE* f = std::fopen(path.c_str(), "r");
  if (!f) throw std::runtime_error("cannot read " + path.string());
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) out.append(buf, n);
  std::fclose(f);
  return out;
}

std::vector<std::filesystem::path> batch_files(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".parquet") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  if (files.empty()) throw std::runtime_error("no .parquet files in " + dir.string());
  return files;
}

int prepare(const std::string& source, const std::string& table, const std::filesystem::path& dir, int64_t per_file) {
  std::filesystem::create_directories(dir);
  Db db(source);
  const int64_t rows = db.exec("SELECT count(*) FROM " + table);
  db.exec("CREATE TEMP TABLE ordered AS SELECT * FROM " + table + " ORDER BY kafka_partition, kafka_offset");
  for (int64_t first = 0, i = 0; first < rows; first += per_file, ++i) {
    std::string name = std::to_string(i);
    name = "batch-" + std::string(6 - std::min<size_t>(6, name.size()), '0') + name + ".parquet";
    db.exec("COPY (SELECT * FROM temp.ordered LIMIT " + std::to_string(per_file) + " OFFSET " + std::to_string(first) +
            ") TO " + literal((dir / name).string()) + " (FORMAT parquet)");
  }
  const auto dot = table.find('.');
  if (dot == std::string::npos) throw std::runtime_error("TABLE must be schema.table");
  std::string sql = db.text("SELECT sql FROM duckdb_tables() WHERE schema_name = " + literal(table.substr(0, dot)) +
                            " AND table_name = " + literal(table.substr(dot + 1)));
  sql = "CREATE TABLE target" + sql.substr(sql.find('('));
  std::FILE* f = std::fopen((dir / "table.sql").c_str(), "w");
  if (!f || std::fputs(sql.c_str(), f) < 0 || std::fclose(f) != 0) throw std::runtime_error("cannot write table.sql");
  std::printf("prepared %lld rows in %s\n", static_cast<long long>(rows), dir.string().c_str());
  return 0;
}

int load(const std::string& target, const std::filesystem::path& dir, const std::string& mode) {
  if (mode != "one" && mode != "per-file") throw std::runtime_error("mode must be one or per-file");
  const auto files = batch_files(dir);
  std::filesystem::remove(target);
  std::filesystem::remove(target + ".wal");
  Db db(target);
  // The rows, ready in memory before the clock starts: what is timed is DuckDB storing them.
  db.exec(read_file(dir / "table.sql"));
  std::string staged = "CREATE TEMP TABLE ready AS ";
  for (size_t i = 0; i < files.size(); ++i)
    staged += (i ? " UNION ALL " : "") + std::string("SELECT ") + std::to_string(i) +
              " AS batch_no, * FROM read_parquet(" + literal(files[i].string()) + ")";
  db.exec(staged);
  const auto t0 = std::chrono::steady_clock::now();
  int64_t rows = 0;
  if (mode == "one") {
    db.exec("BEGIN TRANSACTION");
    rows = db.exec("INSERT INTO target SELECT * EXCLUDE (batch_no) FROM temp.ready");
    db.exec("COMMIT");
  } else {
    for (size_t i = 0; i < files.size(); ++i)
      rows += db.exec("INSERT INTO target SELECT * EXCLUDE (batch_no) FROM temp.ready WHERE batch_no = " +
                      std::to_string(i));
  }
  db.exec("DROP TABLE temp.ready");
  db.exec("CHECKPOINT");
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("loaded %lld rows from %zu files (%s) in %.3f s\n", static_cast<long long>(rows), files.size(),
              mode.c_str(), s);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::vector<std::string> a(argv + 1, argv + argc);
    if (a.size() == 5 && a[0] == "prepare") return prepare(a[1], a[2], a[3], std::stoll(a[4]));
    if (a.size() == 4 && a[0] == "load") return load(a[1], a[2], a[3]);
    std::fprintf(stderr,
                 "usage: bench-duckdb-load prepare SOURCE.duckdb TABLE DIR ROWS_PER_FILE\n"
                 "       bench-duckdb-load load TARGET.duckdb DIR one|per-file\n");
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench-duckdb-load: %s\n", e.what());
    return 1;
  }
}
