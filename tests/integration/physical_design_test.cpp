// Physical design per table (docs/physical-design.md) on every warehouse engine, against the
// real broker and registry: a typed table (scenario avro-typed, Confluent's serializer) made
// with the design the manifest gives in the engine's own terms — BigQuery's partitioning on a
// typed DATE column and clustering, PostgreSQL's indexes, DuckDB's sort order — and that design
// read back from the engine's own catalog (tables.get, pg_indexes, DuckDB's table comment); a
// changed design shown by `krow plan`, left alone by `krow sync` (which says so once) and made
// by `krow sync --apply-design`; a design naming what is not a column, and another engine's
// key, refused before anything is read.

#include <array>
#include <cstdio>
#include <iostream>

#include "sync_fixture.hpp"

namespace krow::testkit {
namespace {

class PhysicalDesign : public EngineTest {
 protected:
  std::string ca() const { return services_dir() + "/registry/tls/ca.pem"; }

  // Produces scenario avro-typed of tests/reference/produce.py (three messages) into a new topic.
  std::string typed_topic(const std::string& prefix) {
    const auto topic = unique_name(prefix);
    const std::string cmd = services_dir() + "/py/bin/python " + source_dir() +
                            "/tests/reference/produce.py --bootstrap " + bootstrap_ +
                            " --registry " + registry_url() + " --ca " + ca() + " avro-typed " +
                            topic + " 2>&1";
    FILE* f = popen(cmd.c_str(), "r");
    EXPECT_NE(f, nullptr);
    std::string all;
    std::array<char, 4096> buf{};
    size_t n;
    while (f && (n = fread(buf.data(), 1, buf.size(), f)) > 0) all.append(buf.data(), n);
    EXPECT_EQ(f ? pclose(f) : -1, 0) << all;
    delete_after_test(topic);
    return topic;
  }

  // A manifest whose table for `topic` has typed columns and `design` (a rule's keys).
  std::string manifest(const std::string& topic, const std::string& design) {
    set_env("KROW_TEST_REGISTRY_SECRET", "registry-secret");
    return write_manifest(
        {topic},
        "registry:\n  url: " + registry_url() +
            "\n  username: registry\n  password: ${KROW_TEST_REGISTRY_SECRET}\n  ca_file: " + ca() +
            "\ntables:\n  \"" + topic + "\": {columns: from_schema, " + design + "}\n");
  }

  static size_t occurrences(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  }

  void say_gap() {
    if (!traits().design_gap.empty())
      std::cout << "[  NOTE    ] not tested here: " << traits().design_gap << "\n";
  }
};

TEST_P(PhysicalDesign, TheTableIsMadeWithItsDesignAndTheCatalogShowsIt) {
  const auto topic = typed_topic("design");
  const auto table = table_of(topic);
  const auto m = manifest(topic, traits().design.yaml);
  const auto plan = krow({"plan", m, "--format", "json"});
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  EXPECT_NE(plan.out.find("\"design\":{\"ddl\":["), std::string::npos) << plan.out;
  EXPECT_NE(plan.out.find("\"exists\":false"), std::string::npos) << plan.out;
  const auto text = krow({"plan", m});
  EXPECT_NE(text.out.find("    design: "), std::string::npos) << text.out;

  sync_ok(m);
  EXPECT_EQ(probe().count(table), 3);
  EXPECT_EQ(probe().design(table), traits().design.in_catalog);

  // The table has the manifest's design now: nothing to change, nothing said.
  const auto again = krow({"plan", m, "--format", "json"});
  EXPECT_NE(again.out.find("\"exists\":true"), std::string::npos) << again.out;
  EXPECT_NE(again.out.find("\"changes\":[]"), std::string::npos) << again.out;
  const auto second = sync_ok(m);
  EXPECT_EQ(second.err.find("physical design"), std::string::npos) << second.err;
  say_gap();
}

TEST_P(PhysicalDesign, AChangedDesignIsShownAndMadeOnlyWhenAsked) {
  const auto topic = typed_topic("design-change");
  const auto table = table_of(topic);
  sync_ok(manifest(topic, traits().design.yaml));
  ASSERT_EQ(probe().design(table), traits().design.in_catalog);

  const auto changed = manifest(topic, traits().changed_design.yaml);
  const auto plan = krow({"plan", changed});
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  EXPECT_NE(plan.out.find("design in the warehouse: "), std::string::npos) << plan.out;
  EXPECT_NE(plan.out.find("design change, made only by `krow sync --apply-design`: "),
            std::string::npos)
      << plan.out;
  const auto md = krow({"plan", changed, "--format", "md"});
  EXPECT_NE(md.out.find("physical design change, made only by `krow sync --apply-design`"),
            std::string::npos)
      << md.out;

  // Without the flag: the sync runs, the table keeps its design, and the sync says so once.
  const auto kept = sync_ok(changed);
  EXPECT_EQ(occurrences(kept.err, "krow: note: table " + table + " (topic " + topic +
                                      "): its physical design ("),
            1u)
      << kept.err;
  EXPECT_NE(
      kept.err.find("is not the manifest's; left as it is. `krow sync --apply-design` would: "),
      std::string::npos)
      << kept.err;
  EXPECT_EQ(probe().design(table), traits().design.in_catalog);

  // With it: the catalog has the new design, and the rows are all there.
  const auto applied = krow({"sync", changed, "--apply-design"});
  ASSERT_EQ(applied.exit_code, 0) << applied.out << applied.err;
  EXPECT_EQ(applied.err.find("physical design"), std::string::npos) << applied.err;
  EXPECT_EQ(probe().design(table), traits().changed_design.in_catalog);
  EXPECT_EQ(probe().count(table), 3);
  EXPECT_EQ(probe().distinct_ids(table), 3);
  const auto after = krow({"plan", changed, "--format", "json"});
  EXPECT_NE(after.out.find("\"changes\":[]"), std::string::npos) << after.out;
  say_gap();
}

TEST_P(PhysicalDesign, ANameThatIsNotAColumnStopsTheTableNamingTheColumns) {
  const auto topic = typed_topic("design-typo");
  auto yaml = traits().design.yaml;
  yaml.replace(yaml.find("status"), 6, "stauts");
  const auto m = manifest(topic, yaml);
  const std::string said =
      "'stauts' is not a column of the table; its columns are id, kafka_topic_id";
  const auto plan = krow({"plan", m});
  EXPECT_NE(plan.out.find("stopped: table " + table_of(topic) + " (topic " + topic +
                          "): the physical design in the manifest's tables: "),
            std::string::npos)
      << plan.out;
  EXPECT_NE(plan.out.find(said), std::string::npos) << plan.out;
  EXPECT_NE(plan.out.find("status"), std::string::npos);  // the typed columns are named too
  const auto sync = krow({"sync", m});
  EXPECT_NE(sync.exit_code, 0);
  EXPECT_NE(sync.err.find(said), std::string::npos) << sync.err;
  EXPECT_FALSE(probe().has_table(table_of(topic)));  // stopped before its table was made
}

TEST_P(PhysicalDesign, AnotherEnginesKeyIsRefusedByPlanDoctorAndSyncAlike) {
  const auto topic = make_topic("design-foreign");
  const auto m = write_manifest(
      {topic}, "tables:\n  \"" + topic + "\": {" + traits().foreign_design_yaml + "}\n");
  const std::string said = "is not taken by " + traits().display_name;
  for (const auto& command : {"plan", "doctor", "sync"}) {
    const auto run = krow({command, m});
    const auto told = run.out + run.err;  // doctor says it on its report, the others on stderr
    EXPECT_EQ(run.exit_code, 3) << command << ": " << told;  // invalid manifest
    EXPECT_NE(told.find(said), std::string::npos) << command << ": " << told;
    EXPECT_NE(told.find(traits().display_name + "'s physical design is "), std::string::npos)
        << told;
  }
  EXPECT_FALSE(probe().has_table(table_of(topic)));
}

INSTANTIATE_TEST_SUITE_P(Engines, PhysicalDesign, KROW_ENGINES);

}  // namespace
}  // namespace krow::testkit
