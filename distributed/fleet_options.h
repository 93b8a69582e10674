// Settings of both ends of an actor fleet (docs/distributed.md).
#pragma once

#include <cstdint>
#include <string>

namespace rlzoo {

// Wire protocol version (distributed/proto/fleet.proto): a learner refuses actors of another.
inline constexpr std::uint32_t kFleetProtocolVersion = 1;

// Token and TLS files. The token travels as gRPC metadata ("authorization: Bearer <token>");
// without TLS it is readable on the wire, so use TLS beyond a trusted network.
struct FleetSecurity {
  std::string token;          // shared secret ("" : none; then the learner listens on loopback only)
  std::string tls_cert;       // learner: PEM certificate chain; actor: its client certificate (mutual TLS)
  std::string tls_key;        // PEM private key of tls_cert
  std::string tls_ca;         // learner: CA that client certificates must chain to (mutual TLS);
                              // actor: CA that the learner's certificate must chain to
  std::string tls_server_name;  // actor: name to verify in the learner's certificate ("" : the host)
  bool tls() const { return !tls_cert.empty() || !tls_ca.empty(); }
};

struct FleetServerOptions {
  std::string listen = "127.0.0.1:50051";  // host:port; port 0 picks a free one
  FleetSecurity security;
  std::int64_t max_message_bytes = 64 << 20;  // a larger trajectory or parameter set is refused
  std::int64_t heartbeat_timeout_ms = 15'000;  // an actor silent this long is forgotten
  std::int64_t max_wait_ms = 5'000;            // longest parameter long-poll
  std::int64_t finish_grace_ms = 3'000;         // after training, time for actors to hear that it is over
  std::int64_t no_actor_warning_ms = 30'000;    // warn (and again after as long) while no actor is connected; 0: never
  int queue_capacity = 0;                      // trajectories waiting for the learner (0: 2 rounds)
  std::string port_file;                       // written with the bound port once listening
  std::string stats_file;                      // JSON counters, rewritten as they change (tests, tools)
};

struct FleetActorOptions {
  std::string connect = "127.0.0.1:50051";
  FleetSecurity security;
  int actor_id = -1;                 // -1: any free slot
  std::int64_t max_trajectories = -1;  // -1: until the learner finishes
  std::int64_t deadline_ms = 10'000;   // per call (uploads, registration)
  std::int64_t max_idle_ms = 60'000;   // give up after this long without reaching the learner
  std::int64_t max_message_bytes = 64 << 20;
  std::int64_t on_policy_wait_ms = 2'000;  // on-policy: wait this long for new parameters, then collect again
};

}  // namespace rlzoo
