#pragma once
// Local servers for the HTTP client's and the network probe's tests: tests/support/
// http_test_server.py over plain HTTP and over TLS, with certificates made for the test run by
// the openssl command: a CA, a certificate it signed for 127.0.0.1, and one it signed for
// another host name. Each is made when first asked for, once per test program, and removed at
// its end.

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "child_server.hpp"

namespace krow::testkit {

class LocalServers {
 public:
  static LocalServers& get() {
    static LocalServers servers;
    return servers;
  }

  ChildServer& plain() {
    if (!plain_)
      plain_ = std::make_unique<ChildServer>(std::vector<std::string>{"python3", script()});
    return *plain_;
  }
  // Over TLS with a certificate for 127.0.0.1.
  ChildServer& tls() {
    if (!tls_) tls_ = tls_server("local");
    return *tls_;
  }
  // Over TLS with a certificate for other.example.
  ChildServer& other_name() {
    if (!other_name_) other_name_ = tls_server("other");
    return *other_name_;
  }
  // The CA that signed both certificates.
  const std::string& ca_file() {
    make_certificates();
    return ca_;
  }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }

  // A port on 127.0.0.1 that nothing listens on (bound, then released).
  static int unused_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof a;
    ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &size);
    ::close(fd);
    return ntohs(a.sin_port);
  }

  ~LocalServers() {
    plain_.reset();
    tls_.reset();
    other_name_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

 private:
  LocalServers()
      : dir_(std::filesystem::temp_directory_path() /
             ("krow-http-test-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(dir_);
  }

  static std::string script() {
    return std::string(KROW_SOURCE_DIR) + "/tests/support/http_test_server.py";
  }

  std::unique_ptr<ChildServer> tls_server(const std::string& name) {
    make_certificates();
    return std::make_unique<ChildServer>(std::vector<std::string>{
        "python3", script(), "--tls", file(name + ".pem"), file(name + ".key")});
  }

  void make_certificates() {
    if (!ca_.empty()) return;
    run("openssl req -x509 -newkey rsa:2048 -nodes -keyout " + file("ca.key") + " -out " +
        file("ca.pem") + " -days 2 -subj /CN=krow-test-ca");
    ca_ = file("ca.pem");
    sign("local", "/CN=127.0.0.1", "subjectAltName=IP:127.0.0.1,DNS:localhost");
    sign("other", "/CN=other.example", "subjectAltName=DNS:other.example");
  }

  void sign(const std::string& name, const std::string& subject, const std::string& san) {
    std::ofstream(file(name + ".ext")) << san << "\n";
    run("openssl req -newkey rsa:2048 -nodes -keyout " + file(name + ".key") + " -out " +
        file(name + ".csr") + " -subj " + subject);
    run("openssl x509 -req -in " + file(name + ".csr") + " -CA " + ca_ + " -CAkey " +
        file("ca.key") + " -CAcreateserial -out " + file(name + ".pem") + " -days 2 -extfile " +
        file(name + ".ext"));
  }

  static void run(const std::string& command) {
    if (std::system((command + " >/dev/null 2>&1").c_str()) != 0)
      throw std::runtime_error("failed: " + command);
  }

  std::filesystem::path dir_;
  std::string ca_;
  std::unique_ptr<ChildServer> plain_, tls_, other_name_;
};

}  // namespace krow::testkit
