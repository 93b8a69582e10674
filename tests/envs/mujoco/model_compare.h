// Compares two compiled MuJoCo models: every numeric array of mjModel that affects the physics
// (sizes, options, bodies, joints, dofs, geoms, sites, tendons, actuators, equality and contact
// settings), through MuJoCo's own X-macro list of mjModel fields, so nothing is forgotten.
// Names, visual settings (materials, textures, colours, groups, cameras, lights) and
// keyframes are not compared: they do not change a trajectory.
#pragma once

#include <mujoco/mujoco.h>

#include <cstdint>
#include <string>
#include <vector>

namespace rlzoo::test {

// One line per difference ("body_mass[3]: 1.5 vs 1.6"), at most `max_lines`; empty when the
// models agree to a relative tolerance `tol`.
std::vector<std::string> compare_compiled_models(const mjModel* ours, const mjModel* reference, double tol = 1e-12,
                                                 std::size_t max_lines = 40);

// The largest |difference| of qpos and qvel between the two models over `steps` calls of
// mj_step from mj_resetData, with ctrl = 0 (seed < 0) or uniform random ctrl within each
// actuator's ctrlrange drawn from `seed` (the same controls for both).
double max_trajectory_difference(const mjModel* a, const mjModel* b, int steps, std::int64_t seed);

}  // namespace rlzoo::test
