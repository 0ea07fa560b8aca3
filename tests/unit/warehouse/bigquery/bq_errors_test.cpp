// How krow reads BigQuery's error answers. The emulator cannot refuse for IAM or quotas, so
// these are answers recorded from BigQuery's REST API (as its documentation and client
// libraries show them), with project and table names changed.

#include <gtest/gtest.h>

#include "warehouse/bigquery/bigquery_client.hpp"

namespace krow::bigquery {
namespace {

Error classify(long status, const std::string& body) {
  return classify_api_error(parse_api_problem(status, body), "writing a batch", "BigQuery dataset my-proj.raw",
                            "my-proj", "raw");
}

std::string error_body(int code, const std::string& reason, const std::string& message, const std::string& status) {
  return R"({"error":{"code":)" + std::to_string(code) + R"(,"message":")" + message +
         R"(","errors":[{"message":")" + message + R"(","domain":"global","reason":")" + reason + R"("}],"status":")" +
         status + R"("}})";
}

TEST(BqErrors, MissingJobUserRoleIsNamedWithTheProject) {
  const auto e = classify(403, error_body(403, "accessDenied",
                                          "Access Denied: Project my-proj: User does not have bigquery.jobs.create "
                                          "permission in project my-proj.",
                                          "PERMISSION_DENIED"));
  EXPECT_EQ(e.error_class(), ErrorClass::fatal_run);
  EXPECT_NE(std::string(e.what()).find("roles/bigquery.jobUser on project my-proj"), std::string::npos) << e.what();
}

TEST(BqErrors, MissingDataEditorRoleIsNamedWithTheDataset) {
  const auto e = classify(403, error_body(403, "accessDenied",
                                          "Access Denied: Table my-proj:raw.orders: Permission "
                                          "bigquery.tables.updateData denied on table my-proj:raw.orders (or it may "
                                          "not exist).",
                                          "PERMISSION_DENIED"));
  EXPECT_EQ(e.error_class(), ErrorClass::fatal_run);
  EXPECT_NE(std::string(e.what()).find("roles/bigquery.dataEditor on dataset raw"), std::string::npos) << e.what();
}

TEST(BqErrors, DatasetNotFoundStopsWithWhatToCheck) {
  const auto e = classify(404, error_body(404, "notFound", "Not found: Dataset my-proj:raw", "NOT_FOUND"));
  EXPECT_EQ(e.error_class(), ErrorClass::fatal_run);
  EXPECT_NE(std::string(e.what()).find("Not found: Dataset my-proj:raw"), std::string::npos);
  EXPECT_NE(std::string(e.what()).find("warehouse.project and warehouse.dataset"), std::string::npos);
}

TEST(BqErrors, DailyQuotaStopsAndSaysWhenItResets) {
  const auto e = classify(403, error_body(403, "quotaExceeded",
                                          "Quota exceeded: Your table exceeded quota for imports or query appends "
                                          "per table. For more information, see "
                                          "https://cloud.google.com/bigquery/docs/troubleshoot-quotas",
                                          "PERMISSION_DENIED"));
  EXPECT_EQ(e.error_class(), ErrorClass::fatal_run);
  EXPECT_NE(std::string(e.what()).find("midnight Pacific"), std::string::npos) << e.what();
}

TEST(BqErrors, RateLimitsBackendErrorsAndConflictsAreRetried) {
  EXPECT_EQ(classify(403, error_body(403, "rateLimitExceeded",
                                     "Exceeded rate limits: too many table update operations for this table.",
                                     "PERMISSION_DENIED"))
                .error_class(),
            ErrorClass::transient);
  EXPECT_EQ(classify(500, error_body(500, "backendError", "Backend error. Job aborted.", "INTERNAL")).error_class(),
            ErrorClass::transient);
  EXPECT_EQ(classify(503, "<html><body>Service Unavailable</body></html>").error_class(), ErrorClass::transient);
  EXPECT_EQ(classify(400, error_body(400, "invalidQuery",
                                     "Transaction is aborted due to concurrent update against table my-proj.raw.orders.",
                                     "INVALID_ARGUMENT"))
                .error_class(),
            ErrorClass::transient);
  EXPECT_EQ(classify_api_error({0, "", "Couldn't connect to server"}, "writing a batch", "w", "p", "d").error_class(),
            ErrorClass::transient);
}

TEST(BqErrors, ACertificateProblemIsNotRetried) {
  const auto e = classify_api_error({0, "", "SSL peer certificate or SSH remote key was not OK", false},
                                    "writing a batch", "w", "p", "d");
  EXPECT_EQ(e.error_class(), ErrorClass::fatal_run);
  EXPECT_NE(std::string(e.what()).find("warehouse.endpoint"), std::string::npos);
}

TEST(BqErrors, AFailedFenceInAJobIsAConflict) {
  // A job's state after the script's ERROR(): the error is the job's errorResult.
  const std::string job =
      R"({"kind":"bigquery#job","status":{"state":"DONE","errorResult":{"reason":"invalidQuery","location":"query",)"
      R"("message":"krow-fence: the stored positions of this sync are not the ones this write started from, or its )"
      R"(lease was taken at [3:1]"}}})";
  const auto e = classify(400, job);
  EXPECT_EQ(e.error_class(), ErrorClass::conflict);
}

TEST(BqErrors, RefusedCredentialsNameTheSetting) {
  const auto e = classify(401, error_body(401, "unauthorized",
                                          "Request had invalid authentication credentials. Expected OAuth 2 access "
                                          "token, login cookie or other valid authentication credential.",
                                          "UNAUTHENTICATED"));
  EXPECT_EQ(e.error_class(), ErrorClass::fatal_run);
  EXPECT_NE(std::string(e.what()).find("warehouse.credentials"), std::string::npos);
}

TEST(BqErrors, QueryAnswerErrorsAreRead) {
  // The emulator answers a failed query with HTTP 200 and top-level errors.
  const auto p = parse_api_problem(200, R"({"jobComplete":true,"errors":[{"reason":"notFound","message":"Not found: x"}]})");
  EXPECT_EQ(p.reason, "notFound");
  EXPECT_EQ(p.message, "Not found: x");
}

TEST(BqErrors, TheReasonCodeDecidesWhateverTheStatusAndTheWords) {
  // BigQuery's reason, not its sentence: a message that says nothing krow reads.
  auto e = classify(403, error_body(403, "rateLimitExceeded", "Slow down.", "PERMISSION_DENIED"));
  EXPECT_EQ(e.error_class(), ErrorClass::transient);
  EXPECT_EQ(e.source().system, "BigQuery");
  EXPECT_EQ(e.source().code, "rateLimitExceeded");
  e = classify(400, error_body(400, "backendError", "Something went wrong.", "INTERNAL"));
  EXPECT_EQ(e.error_class(), ErrorClass::transient);
  e = classify(400, error_body(400, "quotaExceeded", "Too many.", "RESOURCE_EXHAUSTED"));
  EXPECT_EQ(e.error_class(), ErrorClass::fatal_run);
  EXPECT_NE(e.fix().find("midnight Pacific"), std::string::npos) << e.what();
  e = classify(400, error_body(400, "accessDenied", "No.", "PERMISSION_DENIED"));
  EXPECT_EQ(e.error_class(), ErrorClass::fatal_run);
  EXPECT_EQ(e.fix().rfind("grant krow's account roles/bigquery.dataEditor on dataset raw", 0), 0u)
      << e.what();
  e = classify(400, error_body(400, "notFound", "Gone.", "NOT_FOUND"));
  EXPECT_NE(e.fix().find("warehouse.project and warehouse.dataset"), std::string::npos);
  // Without a reason, the status: HTTP 503 is retried.
  e = classify(503, "<html><body>Service Unavailable</body></html>");
  EXPECT_EQ(e.error_class(), ErrorClass::transient);
  EXPECT_EQ(e.source().code, "HTTP 503");
}

TEST(BqErrors, TheFixIsKeptApartFromWhatHappened) {
  const auto e = classify(
      403, error_body(403, "accessDenied",
                      "Access Denied: Project my-proj: User does not have bigquery.jobs.create "
                      "permission in project my-proj.",
                      "PERMISSION_DENIED"));
  EXPECT_EQ(e.said(),
            "BigQuery dataset my-proj.raw, writing a batch: access denied (Access Denied: Project "
            "my-proj: User does "
            "not have bigquery.jobs.create permission in project my-proj.)");
  EXPECT_EQ(e.fix(),
            "grant krow's account roles/bigquery.jobUser on project my-proj (krow runs load and "
            "query jobs)");
  EXPECT_EQ(std::string(e.what()), e.said() + ": " + e.fix());
}

TEST(BqErrors, ANumberThatIsNotOneIsAClassifiedError) {
  EXPECT_EQ(integer_cell(std::string("42"), "a position"), 42);
  EXPECT_EQ(integer_cell(std::nullopt, "a position", 7), 7);
  try {
    integer_cell(std::string("4x2"), "a position");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.error_class(), ErrorClass::fatal_run);
    EXPECT_NE(std::string(e.what()).find("\"4x2\" for a position, not an integer"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace krow::bigquery
