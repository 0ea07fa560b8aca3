#include "http/curl_errors.hpp"

namespace krow::http {

namespace {

// OpenSSL's verification results (openssl/x509_vfy.h; this layer does not include OpenSSL).
// libcurl's OpenSSL backend checks the host name itself, after the chain: a chain that passed
// leaves X509_V_OK, or the value libcurl starts from (!X509_V_OK, which is 1), and a host name
// check made by OpenSSL reports X509_V_ERR_HOSTNAME_MISMATCH.
constexpr long kVerifyOk = 0;
constexpr long kVerifyNotReported = 1;
constexpr long kVerifyHostnameMismatch = 62;

}  // namespace

Failure failure_of(CURLcode rc, long verify_result) {
  switch (rc) {
    case CURLE_OK:
      return Failure::none;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
      return Failure::resolve;
    case CURLE_COULDNT_CONNECT:
      return Failure::connect;
    case CURLE_OPERATION_TIMEDOUT:
      return Failure::timeout;
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
      return Failure::network;
    case CURLE_SSL_CONNECT_ERROR:
      return Failure::tls_handshake;
    case CURLE_PEER_FAILED_VERIFICATION:
      return verify_result == kVerifyOk || verify_result == kVerifyNotReported ||
                     verify_result == kVerifyHostnameMismatch
                 ? Failure::tls_host_name
                 : Failure::tls_untrusted;
    case CURLE_SSL_CACERT_BADFILE:
      return Failure::tls_ca_file;
    default:
      return Failure::other;
  }
}

bool is_transient(Failure failure) {
  switch (failure) {
    case Failure::resolve:
    case Failure::connect:
    case Failure::timeout:
    case Failure::network:
    case Failure::tls_handshake:
      return true;
    case Failure::none:
    case Failure::tls_untrusted:
    case Failure::tls_host_name:
    case Failure::tls_ca_file:
    case Failure::too_large:
    case Failure::other:
      return false;
  }
  return false;
}

const char* failure_name(Failure failure) {
  switch (failure) {
    case Failure::none:
      return "none";
    case Failure::resolve:
      return "resolve";
    case Failure::connect:
      return "connect";
    case Failure::timeout:
      return "timeout";
    case Failure::network:
      return "network";
    case Failure::tls_handshake:
      return "tls_handshake";
    case Failure::tls_untrusted:
      return "tls_untrusted";
    case Failure::tls_host_name:
      return "tls_host_name";
    case Failure::tls_ca_file:
      return "tls_ca_file";
    case Failure::too_large:
      return "too_large";
    case Failure::other:
      return "other";
  }
  return "other";
}

}  // namespace krow::http
