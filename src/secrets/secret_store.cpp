#include "secrets/secret_store.hpp"

#include <simdjson.h>
#include <sodium.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include "util/error.hpp"
#include "util/json_writer.hpp"

namespace krow {

namespace {

constexpr char kMagic[] = "KROWSRC1";
constexpr size_t kMagicSize = 8;

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Written private from the first byte (mode 0600, never through a link), flushed to disk,
// then renamed over the old file, so a crash leaves the old file or the new one.
void write_private_file(const std::filesystem::path& p, const std::string& data) {
  const auto tmp = p.string() + ".tmp";
  ::unlink(tmp.c_str());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) throw Error(ErrorClass::config, "cannot write " + tmp + ": " + std::strerror(errno));
  const bool ok = ::write(fd, data.data(), data.size()) == static_cast<ssize_t>(data.size()) && ::fsync(fd) == 0;
  ::close(fd);
  if (!ok) throw Error(ErrorClass::config, "cannot write " + tmp + ": " + std::strerror(errno));
  std::filesystem::rename(tmp, p);
}

std::string to_json(const SavedSource& s) {
  JsonWriter w;
  w.begin_object().field("name", s.name).field("cluster_id", s.cluster_id).field("saved_at_ms", s.saved_at_ms);
  w.key("source").begin_object()
      .field("bootstrap_servers", s.source.bootstrap_servers)
      .field("security_protocol", s.source.security_protocol)
      .field("sasl_mechanism", s.source.sasl_mechanism)
      .field("username", s.source.username)
      .field("password", s.source.password.reveal())
      .field("ca_file", s.source.ca_file)
      .field("verify_certificates", s.source.verify_certificates)
      .end_object();
  w.key("registry").begin_object()
      .field("url", s.registry.url)
      .field("username", s.registry.username)
      .field("password", s.registry.password.reveal())
      .field("ca_file", s.registry.ca_file)
      .end_object();
  w.end_object();
  return w.str();
}

SavedSource from_json(const std::string& text) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(text);
  auto str = [](simdjson::dom::element e, const char* k) { return std::string(std::string_view(e[k])); };
  SavedSource s;
  s.name = str(doc, "name");
  s.cluster_id = str(doc, "cluster_id");
  s.saved_at_ms = int64_t(doc["saved_at_ms"]);
  simdjson::dom::element src = doc["source"];
  s.source.bootstrap_servers = str(src, "bootstrap_servers");
  s.source.security_protocol = str(src, "security_protocol");
  s.source.sasl_mechanism = str(src, "sasl_mechanism");
  s.source.username = str(src, "username");
  s.source.password = Secret(str(src, "password"));
  s.source.ca_file = str(src, "ca_file");
  s.source.verify_certificates = bool(src["verify_certificates"]);
  simdjson::dom::element reg = doc["registry"];
  s.registry.url = str(reg, "url");
  s.registry.username = str(reg, "username");
  s.registry.password = Secret(str(reg, "password"));
  s.registry.ca_file = str(reg, "ca_file");
  return s;
}

}  // namespace

void check_source_name(const std::string& name) {
  static const std::regex ok(R"(^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$)");
  if (!std::regex_match(name, ok))
    throw Error(ErrorClass::config, "source name '" + name + "' must be 1-100 letters, digits, '.', '_' or '-'");
}

std::filesystem::path SecretStore::default_dir() {
  if (const char* home = std::getenv("KROW_HOME"); home && *home) return home;
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg)
    return std::filesystem::path(xdg) / "krow";
  if (const char* h = std::getenv("HOME"); h && *h)
    return std::filesystem::path(h) / ".config" / "krow";
  throw Error(ErrorClass::config, "cannot tell where to keep saved sources: set KROW_HOME");
}

SecretStore SecretStore::open_default(bool create_key) {
  return SecretStore(default_dir(), create_key);
}

SecretStore::SecretStore(std::filesystem::path dir, bool create_key) : dir_(std::move(dir)) {
  if (sodium_init() < 0) throw Error(ErrorClass::fatal_run, "libsodium could not be initialised");
  if (const char* env = std::getenv("KROW_SECRET_KEY"); env && *env) {
    unsigned char key[crypto_aead_xchacha20poly1305_ietf_KEYBYTES];
    size_t len = 0;
    if (sodium_base642bin(key, sizeof key, env, std::strlen(env), " \n", &len, nullptr,
                          sodium_base64_VARIANT_ORIGINAL) != 0 ||
        len != sizeof key)
      throw Error(ErrorClass::config,
                  "KROW_SECRET_KEY must be 32 random bytes in base64 (make one with: head -c 32 /dev/urandom | base64)");
    key_.assign(reinterpret_cast<char*>(key), sizeof key);
    sodium_memzero(key, sizeof key);
    return;
  }
  const auto key_file = dir_ / "secret.key";
  if (!std::filesystem::exists(key_file)) {
    if (!create_key)
      throw Error(ErrorClass::config, "no key for saved sources: neither KROW_SECRET_KEY nor " + key_file.string() +
                                          " exists; run `krow connect` first");
    std::filesystem::create_directories(dir_);
    ::chmod(dir_.c_str(), 0700);
    std::string key(crypto_aead_xchacha20poly1305_ietf_KEYBYTES, '\0');
    randombytes_buf(key.data(), key.size());
    write_private_file(key_file, key);
  }
  struct stat st {};
  if (::stat(key_file.c_str(), &st) == 0 && (st.st_mode & 077) != 0)
    throw Error(ErrorClass::config, "the key file " + key_file.string() +
                                        " can be read by other users; run: chmod 600 " + key_file.string());
  key_ = read_file(key_file);
  if (key_.size() != crypto_aead_xchacha20poly1305_ietf_KEYBYTES)
    throw Error(ErrorClass::config, "the key file " + key_file.string() + " is damaged (it must hold 32 bytes)");
}

std::filesystem::path SecretStore::path_of(const std::string& name) const {
  check_source_name(name);
  return dir_ / "sources" / (name + ".source");
}

bool SecretStore::exists(const std::string& name) const { return std::filesystem::exists(path_of(name)); }

void SecretStore::save(const SavedSource& source) const {
  const auto plain = to_json(source);
  const std::string ad = "krow-source:" + source.name;
  std::string out(kMagic, kMagicSize);
  std::string nonce(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES, '\0');
  randombytes_buf(nonce.data(), nonce.size());
  out += nonce;
  std::string cipher(plain.size() + crypto_aead_xchacha20poly1305_ietf_ABYTES, '\0');
  unsigned long long clen = 0;
  crypto_aead_xchacha20poly1305_ietf_encrypt(
      reinterpret_cast<unsigned char*>(cipher.data()), &clen, reinterpret_cast<const unsigned char*>(plain.data()),
      plain.size(), reinterpret_cast<const unsigned char*>(ad.data()), ad.size(), nullptr,
      reinterpret_cast<const unsigned char*>(nonce.data()), reinterpret_cast<const unsigned char*>(key_.data()));
  cipher.resize(clen);
  out += cipher;
  std::filesystem::create_directories(dir_ / "sources");
  ::chmod((dir_ / "sources").c_str(), 0700);
  write_private_file(path_of(source.name), out);
}

SavedSource SecretStore::load(const std::string& name) const {
  const auto path = path_of(name);
  if (!std::filesystem::exists(path))
    throw Error(ErrorClass::config, "no saved source named '" + name + "' in " + (dir_ / "sources").string() +
                                        "; save it with `krow connect " + name + " ...`");
  const auto data = read_file(path);
  const size_t header = kMagicSize + crypto_aead_xchacha20poly1305_ietf_NPUBBYTES;
  if (data.size() < header + crypto_aead_xchacha20poly1305_ietf_ABYTES || data.compare(0, kMagicSize, kMagic) != 0)
    throw Error(ErrorClass::config, "saved source '" + name + "' (" + path.string() +
                                        ") is not a krow source file or is truncated; save it again with `krow connect`");
  const std::string ad = "krow-source:" + name;
  std::string plain(data.size() - header, '\0');
  unsigned long long plen = 0;
  if (crypto_aead_xchacha20poly1305_ietf_decrypt(
          reinterpret_cast<unsigned char*>(plain.data()), &plen, nullptr,
          reinterpret_cast<const unsigned char*>(data.data() + header), data.size() - header,
          reinterpret_cast<const unsigned char*>(ad.data()), ad.size(),
          reinterpret_cast<const unsigned char*>(data.data() + kMagicSize),
          reinterpret_cast<const unsigned char*>(key_.data())) != 0)
    throw Error(ErrorClass::config, "saved source '" + name +
                                        "' cannot be decrypted: the key is not the one it was saved with "
                                        "(KROW_SECRET_KEY or secret.key changed) or the file was altered; "
                                        "save it again with `krow connect`");
  plain.resize(plen);
  try {
    auto s = from_json(plain);
    sodium_memzero(plain.data(), plain.size());
    return s;
  } catch (const simdjson::simdjson_error&) {
    throw Error(ErrorClass::config, "saved source '" + name + "' is damaged; save it again with `krow connect`");
  }
}

std::vector<std::string> SecretStore::names() const {
  std::vector<std::string> out;
  const auto d = dir_ / "sources";
  if (!std::filesystem::exists(d)) return out;
  for (const auto& e : std::filesystem::directory_iterator(d))
    if (e.path().extension() == ".source") out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace krow

namespace krow {

}  // namespace krow
