// krow-sql: prints the result of SQL queries on a DuckDB file as aligned text, for the
// demo and for looking at what a sync wrote. Usage: krow-sql FILE.duckdb "SQL" ["SQL"...];
// `krow-sql FILE.duckdb --execute "SQL"...` runs statements that write (benchmarks that damage
// a table on purpose).

#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "duckdb_query.hpp"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: krow-sql FILE.duckdb [--execute] \"SQL\" [\"SQL\"...]\n");
    return 2;
  }
  try {
    if (std::string(argv[2]) == "--execute") {
      for (int q = 3; q < argc; ++q) krow::testkit::execute(argv[1], argv[q]);
      return 0;
    }
    for (int q = 2; q < argc; ++q) {
      const auto r = krow::testkit::query(argv[1], argv[q]);
      const size_t max_width = 60;
      std::vector<size_t> width;
      for (const auto& c : r.columns) width.push_back(c.size());
      auto cell = [&](const krow::testkit::Cell& c) {
        std::string s = c ? *c : "NULL";
        std::replace(s.begin(), s.end(), '\n', ' ');
        if (s.size() > max_width) s = s.substr(0, max_width - 3) + "...";
        return s;
      };
      for (const auto& row : r.rows)
        for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], cell(row[i]).size());
      auto line = [&](const std::vector<std::string>& cells) {
        for (size_t i = 0; i < cells.size(); ++i) std::printf("%s%-*s", i ? " | " : "", int(width[i]), cells[i].c_str());
        std::printf("\n");
      };
      line(r.columns);
      std::vector<std::string> rule;
      for (auto w : width) rule.emplace_back(w, '-');
      line(rule);
      for (const auto& row : r.rows) {
        std::vector<std::string> cells;
        for (const auto& c : row) cells.push_back(cell(c));
        line(cells);
      }
      std::printf("(%zu rows)\n\n", r.rows.size());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "krow-sql: %s\n", e.what());
    return 1;
  }
  return 0;
}
