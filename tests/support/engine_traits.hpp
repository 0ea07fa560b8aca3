#pragma once
// Test support: everything the engine-parameterised suites (tests/integration's EngineTest,
// tests/conformance) need to know about a warehouse engine, in one place: one EngineTraits
// per engine, looked up by the engine's name.
//
// The suites never compare engine names. They ask the traits: a type's name as the engine's
// catalog or krow spells it, an SQL expression in the engine's dialect, a quirk named by what
// it is (text_refuses_nul, not "postgres"). The fixture (tests/integration/sync_fixture)
// provisions each test's warehouse, writes its manifest section, reads it back and holds its
// sync lock through them too, and the engine lists KROW_ENGINES and KROW_ALL_ENGINES are made
// from these entries.
//
// Adding a fourth engine to the tests therefore means adding one entry to engine_traits.cpp
// (plus its probe in warehouse_probe.*), not editing suites. A type or expression an entry
// leaves out is one no suite that runs on that engine needs; asking for it throws, naming it.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace krow::testkit {

class Probe;

// The column types the suites name: the planner's logical types (krow's ColumnType,
// docs/typed-tables.md), here without any krow code.
enum class Logical {
  boolean,
  int32,
  int64,
  uint64,
  float32,
  float64,
  decimal,
  text,
  bytes,
  date,
  time,
  timestamp,
  json
};

// One test's own warehouse, as its engine's `provision` made it.
struct TestWarehouse {
  std::filesystem::path dir;  // the test's folder
  std::string database;       // PostgreSQL: a database of the test's own on the local server
  std::string project;        // BigQuery: a project of the test's own on the emulator
  // Variables the engine's manifest section names (passwords), set for every krow run.
  std::vector<std::pair<std::string, std::string>> env;

  // DuckDB's file; other syncs' lock files lie beside it, whatever the engine.
  std::filesystem::path duckdb_file() const { return dir / "warehouse.duckdb"; }
};

// Something a test holds until it destroys it.
class Held {
 public:
  virtual ~Held() = default;
};

// What an engine's JSON type does with a valid JSON value some JSON types cannot hold: keeps
// it, refuses it (krow then stores the JSON text in a JSON string, with a note in
// decode_error), or either (the local emulator keeps what the real service refuses).
enum class JsonFit { kept, refused, either };

struct EngineTraits {
  // As manifests, the tests' parameter and krow's Engine name it: "duckdb".
  std::string name;
  // As krow's messages name it: "PostgreSQL".
  std::string display_name;

  // What the engine's adapter does (krow's Capabilities, as the suites expect them).
  // Typed columns and latest_by_key: the suites instantiated with KROW_ENGINES run on it.
  bool typed_tables = false;
  // Two syncs of different IDs may write to one warehouse at once.
  bool concurrent_writers = false;

  // Column types as the engine's catalog names them (Probe::column_types) and as krow
  // writes them (DDL, plans, messages). A decimal's entry is the name before "(p,s)".
  std::map<Logical, std::string> catalog_types;
  std::map<Logical, std::string> krow_types;
  // A decimal's type where the engine has no DECIMAL(p,s) (BigQuery: NUMERIC or BIGNUMERIC by
  // what p and s need); null: the entry's name followed by "(p,s)".
  std::string (*decimal_type)(int precision, int scale) = nullptr;
  // INT and BIGINT, FLOAT and DOUBLE, and the DECIMALs the suites plan share one type each
  // (BigQuery's INT64, FLOAT64, NUMERIC): a schema that widens them changes no column.
  bool one_type_per_kind = false;
  // Why the test server cannot make a column of the widest decimal type (the emulator has no
  // BIGNUMERIC); empty: it can.
  std::string wide_decimal_gap;
  // How `krow plan` writes the start of adding column `column` to table `table` (the text after
  // the schema, up to the type): "\"t\" ADD COLUMN \"c\" ".
  std::string (*add_column_ddl)(const std::string& table, const std::string& column) = nullptr;
  // Statements that make column `column` of `target` (schema.table, quoted as the suites quote)
  // of type `type`, its values gone, as a user changing the table by hand would.
  std::vector<std::string> (*retype_column)(const std::string& target, const std::string& column,
                                            const std::string& type) = nullptr;
  // What comes before the new type when krow changes a column's type: ALTER COLUMN "c" <this>.
  std::string alter_type_clause;

  std::string column_type(Logical type, int precision = 0, int scale = 0) const;
  std::string krow_type(Logical type, int precision = 0, int scale = 0) const;
  std::string alter_type(Logical type, int precision = 0, int scale = 0) const {
    return alter_type_clause + krow_type(type, precision, scale);
  }

  // SQL expressions in the engine's dialect; "{}" stands for the argument.
  std::string epoch_ms_sql;     // a timestamp column's milliseconds since the epoch (BIGINT)
  std::string epoch_us_sql;     // the same in microseconds
  std::string value_field_sql;  // field {} of the `value` JSON column, as text
  // A decimal column {} as text with {scale} fractional digits ("-1234.50").
  std::string decimal_text_sql = "CAST({} AS VARCHAR)";
  std::string decimal_text(const std::string& column, int scale) const;
  std::string epoch_ms(const std::string& column) const {
    return fill("epoch_ms_sql", epoch_ms_sql, column);
  }
  std::string epoch_us(const std::string& column) const {
    return fill("epoch_us_sql", epoch_us_sql, column);
  }
  std::string value_field(const std::string& field) const {
    return fill("value_field_sql", value_field_sql, field);
  }

  // Quirks.
  // A text column cannot hold U+0000: krow leaves that column NULL and says why in decode_error.
  bool text_refuses_nul = false;
  // A whole float cast to text keeps its fraction ("3.0", not "3").
  bool whole_float_text_has_fraction = false;
  std::string whole_float_text(int64_t n) const {
    return std::to_string(n) + (whole_float_text_has_fraction ? ".0" : "");
  }
  // The longest table name the engine takes, when krow must shorten longer ones; 0: none.
  size_t max_table_name_length = 0;
  // Stored JSON is normalised beyond what the tests' JSON parser reads back (jsonb: every
  // number an exact decimal): compared with the engine's own equality (Probe::same_json).
  bool json_compared_by_engine = false;
  // The engine's JSON type and values it may not hold.
  struct JsonLimits {
    JsonFit nul = JsonFit::kept;                 // U+0000 in a string
    JsonFit unpaired_surrogate = JsonFit::kept;  // "\ud83d" alone
    JsonFit huge_number = JsonFit::kept;         // 1e999999
    std::string refusal_note;                    // in decode_error when it refuses a value
  } json;

  // Physical design (docs/physical-design.md) in the engine's own terms, on a table of scenario
  // avro-typed (tests/reference/produce.py: typed columns `day`, a DATE, and `status`, text):
  // the keys of its `tables:` rule (inside a flow mapping), and what Probe::design reads of it
  // in the engine's catalog. `changed_design` is another design, one the test server can apply
  // to a table made with `design`.
  struct Design {
    std::string yaml;
    std::string in_catalog;
  };
  Design design, changed_design;
  // A design key of another engine, which this one refuses (with the engine's own keys).
  std::string foreign_design_yaml;
  // What the test server cannot show of a design (the tests print it); empty: nothing.
  std::string design_gap;

  // The test's own warehouse: made before the test, dropped after it when it passed.
  void (*provision)(TestWarehouse&) = nullptr;
  void (*release)(const TestWarehouse&) = nullptr;
  // The lines of the manifest's `warehouse:` section for it (without `schema:`).
  std::string (*warehouse_yaml)(const TestWarehouse&) = nullptr;
  // Reads what krow wrote into warehouse schema `schema`.
  std::unique_ptr<Probe> (*probe)(const TestWarehouse&, const std::string& schema) = nullptr;
  // Holds the lock of sync `sync_id` (schema confluent) as a running sync of pid 4242 on host
  // ci-runner-7 would, until destroyed; sync_lock_holder is what krow's refusal says of it.
  std::unique_ptr<Held> (*hold_sync_lock)(const TestWarehouse&,
                                          const std::string& sync_id) = nullptr;
  std::string sync_lock_holder;
  // Takes the lock of sync `sync_id` away from krow process `pid`, alive but stopped (SIGSTOP),
  // as an operator would from a krow that hangs: its server session ended (PostgreSQL), its
  // lease expired at once (BigQuery). Null where nothing can: a DuckDB file stays locked by
  // the process that has it open.
  void (*break_sync_lock)(const TestWarehouse&, const std::string& sync_id, int pid) = nullptr;

 private:
  std::string fill(std::string_view what, const std::string& pattern,
                   const std::string& argument) const;
};

// The traits of engine `name`; throws std::invalid_argument for an engine it does not know.
const EngineTraits& engine_traits(std::string_view name);
// Every engine's name, in a fixed order; those with `feature` set.
std::vector<std::string> engine_names();
std::vector<std::string> engine_names_with(bool EngineTraits::*feature);

}  // namespace krow::testkit
