// krow's Error: the sentence users read (what()) and its parts, kept apart for the callers
// that show them apart (`krow doctor`) or decide by them.

#include "util/error.hpp"

#include <gtest/gtest.h>

namespace krow {
namespace {

TEST(Error, AWholeSentenceIsWhatWasSaidAndNamesNoFixApart) {
  const Error e(ErrorClass::transient, "the broker is away; retrying");
  EXPECT_STREQ(e.what(), "the broker is away; retrying");
  EXPECT_EQ(e.said(), "the broker is away; retrying");
  EXPECT_EQ(e.fix(), "");
  EXPECT_EQ(e.error_class(), ErrorClass::transient);
  EXPECT_EQ(e.source().system, "");
  EXPECT_EQ(e.source().code, "");
  EXPECT_FALSE(e.source().partition);
}

TEST(Error, AFixIsASentenceOfItsOwnOrGoesOnWithItsJoint) {
  const Error grant(ErrorClass::fatal_table, "reading topic t: Broker: Topic authorization failed",
                    Fix{"Grant User:krow READ on topic t"});
  EXPECT_STREQ(
      grant.what(),
      "reading topic t: Broker: Topic authorization failed. Grant User:krow READ on topic t");
  EXPECT_EQ(grant.said(), "reading topic t: Broker: Topic authorization failed");
  EXPECT_EQ(grant.fix(), "Grant User:krow READ on topic t");

  const Error colon(ErrorClass::fatal_run, "access denied (no)", Fix{"grant the role", ": "});
  EXPECT_STREQ(colon.what(), "access denied (no): grant the role");
  EXPECT_EQ(colon.fix(), "grant the role");

  const Error none(ErrorClass::fatal_run, "it failed", Fix{""});
  EXPECT_STREQ(none.what(), "it failed");
  EXPECT_EQ(none.fix(), "");
}

TEST(Error, TheSourceNamesTheSystemItsCodeAndTheKafkaInput) {
  const Error e(ErrorClass::fatal_table, "reading topic t failed", Fix{"Grant it"},
                {"kafka", "TOPIC_AUTHORIZATION_FAILED", "t", Partition(3), Offset(41)});
  EXPECT_EQ(e.source().system, "kafka");
  EXPECT_EQ(e.source().code, "TOPIC_AUTHORIZATION_FAILED");
  EXPECT_EQ(e.source().topic, "t");
  EXPECT_EQ(e.source().partition, Partition(3));
  EXPECT_EQ(e.source().offset, Offset(41));
  const Error sql(ErrorClass::conflict, "duplicate key", ErrorSource{"PostgreSQL", "23505"});
  EXPECT_EQ(sql.source().code, "23505");
  EXPECT_EQ(sql.fix(), "");
}

TEST(Error, AnotherClassKeepsEveryPart) {
  const Error e(ErrorClass::transient, "connecting failed", Fix{"Check the host"},
                {"kafka", "_SSL"});
  const Error fatal = e.as(ErrorClass::fatal_run);
  EXPECT_EQ(fatal.error_class(), ErrorClass::fatal_run);
  EXPECT_STREQ(fatal.what(), e.what());
  EXPECT_EQ(fatal.said(), e.said());
  EXPECT_EQ(fatal.fix(), e.fix());
  EXPECT_EQ(fatal.source().code, "_SSL");
  EXPECT_EQ(e.error_class(), ErrorClass::transient);
}

}  // namespace
}  // namespace krow
