// Who may talk to a learner: a shared token compared in constant time, TLS credentials from
// PEM files, and the rule that a learner without a token listens on loopback only.
#pragma once

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>
#include <string_view>

#include "distributed/fleet_options.h"

namespace rlzoo {

// Equal contents, in time that depends only on the lengths.
bool constant_time_equals(std::string_view a, std::string_view b);

// The token in `path` (surrounding whitespace removed). Throws UserError naming the file when
// it is missing, unreadable or empty.
std::string read_token_file(const std::string& path);

// True for 127.0.0.0/8, ::1 and localhost ("host:port", "[::1]:port").
bool is_loopback_address(const std::string& host_port);

// Throws UserError when `options` would expose an unauthenticated learner (a non-loopback
// address without a token) or name TLS files that cannot be read.
void check_server_security(const FleetServerOptions& options);

std::shared_ptr<grpc::ServerCredentials> server_credentials(const FleetSecurity& security);
std::shared_ptr<grpc::ChannelCredentials> channel_credentials(const FleetSecurity& security);

// OK when the call carries the token (or none is required), else UNAUTHENTICATED.
grpc::Status check_token(const grpc::ServerContext& context, const std::string& token);
// Adds the token to a client call.
void add_token(grpc::ClientContext& context, const std::string& token);

}  // namespace rlzoo
