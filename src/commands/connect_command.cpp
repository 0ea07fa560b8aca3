// `krow connect NAME --bootstrap-servers ... [keys]`: checks a cluster key (and a registry
// key) and saves the source, encrypted, bound to its cluster ID (connect/connect does both).
// Secrets are read from environment variables or standard input, never from arguments.

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include "commands/command.hpp"
#include "connect/connect.hpp"
#include "manifest/credentials.hpp"
#include "secrets/secret_store.hpp"

namespace krow::commands {

namespace {

// Reads a secret from the named environment variable or from standard input, never from
// the command line (where other users could see it in the process list).
std::string read_secret(const std::string& env_name, bool from_stdin, const char* what) {
  if (!env_name.empty()) {
    const char* v = std::getenv(env_name.c_str());
    if (!v || !*v)
      throw Error(ErrorClass::config,
                  std::string(what) + ": the environment variable " + env_name + " is not set");
    return v;
  }
  if (from_stdin) {
    std::string line;
    std::getline(std::cin, line);
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    return line;
  }
  return {};
}

class ConnectCommand final : public Command {
 public:
  explicit ConnectCommand(CLI::App& app)
      : Command(app.add_subcommand(
            "connect",
            "Check a cluster key (and a registry key) and save the source, encrypted, bound to its "
            "cluster ID. Secrets are read from environment variables or standard input, never from "
            "arguments.")) {
    app_->add_option("name", name_,
                     "Name to save the source under (used as `source: {saved: NAME}`)")
        ->required();
    app_->add_option("--bootstrap-servers", bootstrap_,
                     "host:port, e.g. pkc-xxxxx.<region>.<cloud>.confluent.cloud:9092")
        ->required();
    app_->add_option("--security-protocol", protocol_, "PLAINTEXT, SSL, SASL_SSL or SASL_PLAINTEXT")
        ->check(CLI::IsMember({"PLAINTEXT", "SSL", "SASL_SSL", "SASL_PLAINTEXT"}))
        ->capture_default_str();
    app_->add_option("--sasl-mechanism", mechanism_, "PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512")
        ->check(CLI::IsMember({"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"}))
        ->capture_default_str();
    app_->add_option("--username", username_, "Cluster API key");
    app_->add_option("--password-env", password_env_,
                     "Environment variable holding the cluster API secret");
    app_->add_flag("--password-stdin", password_stdin_,
                   "Read the cluster API secret from standard input");
    app_->add_option("--ca-file", ca_file_, "PEM CA bundle for the cluster (default: system CAs)")
        ->check(CLI::ExistingFile);
    app_->add_flag("--no-verify-certificates", no_verify_,
                   "Disable TLS peer verification (not recommended)");
    app_->add_option("--registry-url", registry_url_, "Schema Registry URL (https://...)");
    app_->add_option("--registry-username", registry_username_, "Schema Registry API key");
    app_->add_option("--registry-password-env", registry_password_env_,
                     "Environment variable holding the registry API secret");
    app_->add_option("--registry-ca-file", registry_ca_file_, "PEM CA bundle for the registry")
        ->check(CLI::ExistingFile);
    app_->add_option("--timeout", timeout_, "Seconds to wait for the cluster")
        ->capture_default_str();
  }

  int run() override {
    check_source_name(name_);
    SavedSource s;
    s.name = name_;
    s.source.bootstrap_servers = bootstrap_;
    s.source.security_protocol = protocol_;
    s.source.sasl_mechanism = mechanism_;
    s.source.username = username_;
    s.source.password = Secret(read_secret(password_env_, password_stdin_, "--password-env"));
    s.source.ca_file = ca_file_;
    s.source.verify_certificates = !no_verify_;
    s.source.connect_timeout_s = timeout_;
    // The rules a manifest's source follows, named by the flags.
    if (lacks_sasl_credentials(s.source))
      throw Error(
          ErrorClass::config,
          protocol_ + " needs --username and a secret from --password-env VAR or --password-stdin");
    if (!registry_url_.empty()) {
      if (url_has_credentials(registry_url_))
        throw Error(ErrorClass::config,
                    "--registry-url must not carry a user or password; use "
                    "--registry-username and --registry-password-env");
      s.registry.url = registry_url_;
      while (!s.registry.url.empty() && s.registry.url.back() == '/') s.registry.url.pop_back();
      s.registry.username = registry_username_;
      s.registry.password =
          Secret(read_secret(registry_password_env_, false, "--registry-password-env"));
      s.registry.ca_file = registry_ca_file_;
    }
    const auto store = SecretStore::open_default(/*create_key=*/true);
    const auto r = connect_source(s, store);
    std::printf(
        "%s source '%s': cluster %s, %zu topic(s) describable%s; credentials encrypted in %s\n",
        r.replaced ? "updated" : "saved", name_.c_str(), r.cluster_id.c_str(), r.describable_topics,
        r.registry_checked ? ", schema registry key accepted" : "", store.dir().c_str());
    std::printf("use it in a manifest with:\n  source:\n    saved: %s\n", name_.c_str());
    return kExitOk;
  }

 private:
  std::string name_;
  std::string bootstrap_;
  std::string protocol_ = "SASL_SSL";
  std::string mechanism_ = "PLAIN";
  std::string username_;
  std::string password_env_;
  bool password_stdin_ = false;
  std::string ca_file_;
  bool no_verify_ = false;
  std::string registry_url_;
  std::string registry_username_;
  std::string registry_password_env_;
  std::string registry_ca_file_;
  int timeout_ = 30;
};

}  // namespace

std::unique_ptr<Command> add_connect(CLI::App& app) {
  return std::make_unique<ConnectCommand>(app);
}

}  // namespace krow::commands
