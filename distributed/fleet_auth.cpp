#include "distributed/fleet_auth.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "core/common/error.h"

namespace rlzoo {

namespace {

constexpr std::string_view kBearer = "Bearer ";

std::string read_pem(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(fmt::format("{} '{}': cannot be read", what, path));
  std::ostringstream s;
  s << in.rdbuf();
  if (s.str().empty()) throw UserError(fmt::format("{} '{}': the file is empty", what, path));
  return s.str();
}

std::string host_of(const std::string& host_port) {
  if (!host_port.empty() && host_port.front() == '[') {
    const auto close = host_port.find(']');
    return close == std::string::npos ? host_port : host_port.substr(1, close - 1);
  }
  const auto colon = host_port.rfind(':');
  if (colon != std::string::npos && host_port.find(':') == colon) return host_port.substr(0, colon);
  return host_port;  // a bare IPv6 address or no port
}

}  // namespace

bool constant_time_equals(std::string_view a, std::string_view b) {
  // Compare every byte of the longer string so that the time does not tell where they differ.
  const std::size_t n = std::max(a.size(), b.size());
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    const unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
    diff |= static_cast<unsigned char>(x ^ y);
  }
  return diff == 0;
}

std::string read_token_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(fmt::format("token file '{}': cannot be read", path));
  std::ostringstream s;
  s << in.rdbuf();
  std::string token = s.str();
  const auto first = token.find_first_not_of(" \t\r\n");
  const auto last = token.find_last_not_of(" \t\r\n");
  if (first == std::string::npos) throw UserError(fmt::format("token file '{}': the file is empty", path));
  return token.substr(first, last - first + 1);
}

bool is_loopback_address(const std::string& host_port) {
  const std::string host = host_of(host_port);
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

void check_server_security(const FleetServerOptions& options) {
  if (!is_loopback_address(options.listen) && options.security.token.empty())
    throw UserError(fmt::format(
        "--listen {}: listening beyond this machine needs a shared token (--token-file FILE); "
        "without one, listen on 127.0.0.1",
        options.listen));
  const FleetSecurity& s = options.security;
  if (s.tls_cert.empty() != s.tls_key.empty())
    throw UserError("TLS needs both a certificate (--tls-cert) and its key (--tls-key)");
  if (!s.tls_ca.empty() && s.tls_cert.empty())
    throw UserError("--tls-client-ca (mutual TLS) needs the learner's own --tls-cert and --tls-key");
  if (s.tls()) server_credentials(s);  // reads the files: errors name them now, not at the first call
}

std::shared_ptr<grpc::ServerCredentials> server_credentials(const FleetSecurity& s) {
  if (s.tls_cert.empty()) return grpc::InsecureServerCredentials();
  grpc::SslServerCredentialsOptions o(s.tls_ca.empty() ? GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE
                                                        : GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  o.pem_key_cert_pairs.push_back({read_pem(s.tls_key, "TLS key"), read_pem(s.tls_cert, "TLS certificate")});
  if (!s.tls_ca.empty()) o.pem_root_certs = read_pem(s.tls_ca, "TLS client CA");
  return grpc::SslServerCredentials(o);
}

std::shared_ptr<grpc::ChannelCredentials> channel_credentials(const FleetSecurity& s) {
  if (!s.tls()) return grpc::InsecureChannelCredentials();
  grpc::SslCredentialsOptions o;
  if (!s.tls_ca.empty()) o.pem_root_certs = read_pem(s.tls_ca, "TLS CA");
  if (!s.tls_cert.empty()) {
    o.pem_cert_chain = read_pem(s.tls_cert, "TLS client certificate");
    o.pem_private_key = read_pem(s.tls_key, "TLS client key");
  }
  return grpc::SslCredentials(o);
}

grpc::Status check_token(const grpc::ServerContext& context, const std::string& token) {
  if (token.empty()) return grpc::Status::OK;
  const auto& md = context.client_metadata();
  const auto it = md.find("authorization");
  if (it == md.end()) return {grpc::StatusCode::UNAUTHENTICATED, "no token (authorization metadata) in the call"};
  const std::string_view value(it->second.data(), it->second.size());
  if (value.substr(0, kBearer.size()) != kBearer ||
      !constant_time_equals(value.substr(std::min(value.size(), kBearer.size())), token))
    return {grpc::StatusCode::UNAUTHENTICATED, "wrong token"};
  return grpc::Status::OK;
}

void add_token(grpc::ClientContext& context, const std::string& token) {
  if (!token.empty()) context.AddMetadata("authorization", std::string(kBearer) + token);
}

}  // namespace rlzoo
