// The replay tool behind `rlzoo env replay`: checks env dynamics against another
// implementation (e.g. Gymnasium's recorded trajectories).
#pragma once

#include <iosfwd>
#include <nlohmann/json.hpp>

namespace rlzoo::cli {

// One case: {"env": ID, "initial_state": [...], "actions": [...]} (other keys ignored).
// Creates the env as registered (time limit included), resets it, sets its internal state,
// applies the actions in order and stops after the first step that terminates or truncates.
// Returns {"obs": [[...]...], "rewards": [...], "terminated": [...], "truncated": [...],
// "state": [[...]...]}. Throws UserError for a malformed case or an env without state access.
nlohmann::json replay_case(const nlohmann::json& input);

// Runs replay_case on every non-empty line of `in`, writing one JSON line per case to `out`.
// Errors name the input line number.
void replay_stream(std::istream& in, std::ostream& out);

}  // namespace rlzoo::cli
