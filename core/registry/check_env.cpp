#include "core/registry/check_env.h"

#include "core/registry/env_registry.h"

namespace rlzoo {

ConformanceReport check_env(const std::string& id, const YAML::Node& kwargs, const ConformanceOptions& options) {
  // Made once here so that a bad id or bad kwargs are the caller's error, not a failure of
  // the env inside the report.
  make_env(id, kwargs);
  const YAML::Node args = YAML::Clone(kwargs);
  ConformanceOptions opts = options;
  if (env_registry().get(id).deterministic) opts.expect_seed_dependence = false;  // declared at registration
  return check_env_conformance([&] { return make_env(id, args); }, opts);
}

ConformanceReport check_env(const std::function<std::unique_ptr<Env>()>& make, const ConformanceOptions& options) {
  return check_env_conformance(make, options);
}

}  // namespace rlzoo
