// Checks an env against the Env API's promises: rlzoo's counterpart of Gymnasium's
// utils.env_checker.check_env, for users' own envs. It runs the same random-play conformance
// check every built-in env's tests run (core/env/conformance.h: finite, complete observations
// inside the space; finite rewards; episodes that end and refuse further steps; episode
// statistics; masks and candidates; the same seed gives the same trajectory, different seeds
// differ).
//
//   rlzoo::register_env("Corridor-v0", rlzoo::env_entry<Corridor>(100, 9.0, "..."));
//   auto report = rlzoo::check_env("Corridor-v0");            // or check_env([] { return ...; })
//   if (!report.ok()) std::cerr << report.summary();
//
// The command line does the same for registered envs: `rlzoo env check ID`.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <yaml-cpp/yaml.h>

#include "core/env/conformance.h"
#include "core/env/env.h"

namespace rlzoo {

// A registered env, made with make_env(id, kwargs) (its time limit and wrappers included).
// An unknown id or bad kwargs throw UserError before anything is played. An env registered as
// deterministic (EnvEntry::deterministic) is not expected to depend on its seed.
ConformanceReport check_env(const std::string& id, const YAML::Node& kwargs = YAML::Node(),
                            const ConformanceOptions& options = {});

// An env from a factory that returns a fresh env on every call (the check needs several).
ConformanceReport check_env(const std::function<std::unique_ptr<Env>()>& make, const ConformanceOptions& options = {});

}  // namespace rlzoo
