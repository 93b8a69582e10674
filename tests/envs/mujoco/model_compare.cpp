#include "tests/envs/mujoco/model_compare.h"

#include <mujoco/mjxmacro.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <random>

namespace rlzoo::test {

namespace {

bool skipped(const char* field) {
  static const char* prefixes[] = {"name_", "names", "tex_", "mat_", "skin_", "cam_", "light_", "key_",
                                   "mesh_", "hfield_", "text_", "numeric_", "tuple_"};
  for (const char* p : prefixes)
    if (std::strncmp(field, p, std::strlen(p)) == 0) return true;
  const std::string f(field);
  for (const char* suffix : {"_rgba", "_matid", "_group", "_user"})
    if (f.size() > std::strlen(suffix) && f.compare(f.size() - std::strlen(suffix), std::string::npos, suffix) == 0)
      return true;
  return false;
}

bool visual_size(const char* n) {
  for (const char* v : {"nmat", "ntex", "ntexdata", "nnames", "ncam", "nlight", "nkey", "nskin", "nskinvert",
                        "nskintexvert", "nskinface", "nskinbone", "nskinbonevert", "nmesh", "nmeshvert",
                        "nmeshtexvert", "nmeshface", "nmeshgraph", "nhfield", "nhfielddata", "ntext", "ntextdata",
                        "nnumeric", "nnumericdata", "ntuple", "ntupledata", "nuser_body", "nuser_jnt", "nuser_geom",
                        "nuser_site", "nuser_cam", "nuser_tendon", "nuser_actuator", "nuser_sensor", "nbuffer"})
    if (std::strcmp(n, v) == 0) return true;
  return false;
}

template <class T>
void compare_array(const char* name, const T* a, const T* b, int n, double tol, std::vector<std::string>& out,
                   std::size_t max_lines) {
  for (int i = 0; i < n && out.size() < max_lines; ++i) {
    const double x = static_cast<double>(a[i]), y = static_cast<double>(b[i]);
    const double scale = std::max({1.0, std::abs(x), std::abs(y)});
    if (std::abs(x - y) > tol * scale || (std::isnan(x) != std::isnan(y)))
      out.push_back(fmt::format("{}[{}]: {} vs {}", name, i, x, y));
  }
}

}  // namespace

std::vector<std::string> compare_compiled_models(const mjModel* m, const mjModel* r, double tol, std::size_t max_lines) {
  std::vector<std::string> out;
  bool sizes_match = true;
#define X(name)                                                                       \
  if (!visual_size(#name) && m->name != r->name) {                                  \
    out.push_back(fmt::format("{}: {} vs {}", #name, m->name, r->name));             \
    sizes_match = false;                                                             \
  }
  MJMODEL_INTS
#undef X
  if (!sizes_match) return out;  // arrays of different lengths: the sizes say enough

#define X(type, name) compare_array(#name, &m->opt.name, &r->opt.name, 1, tol, out, max_lines);
  MJOPTION_SCALARS
#undef X
#define X(name, n) compare_array(#name, m->opt.name, r->opt.name, n, tol, out, max_lines);
  MJOPTION_VECTORS
#undef X

  // Array lengths with the columns named as MuJoCo names them (visual user columns are 0 here).
  MJMODEL_POINTERS_PREAMBLE(m)
#define X(type, name, nr, nc)                                                                        \
  if (!skipped(#name)) compare_array(#name, m->name, r->name, m->nr * (nc), tol, out, max_lines);
  MJMODEL_POINTERS
#undef X
  (void)nuser_body, (void)nuser_jnt, (void)nuser_geom, (void)nuser_site, (void)nuser_cam, (void)nuser_tendon,
      (void)nuser_actuator, (void)nuser_sensor, (void)nq, (void)nv, (void)na, (void)nu, (void)nmocap;
  return out;
}

double max_trajectory_difference(const mjModel* a, const mjModel* b, int steps, std::int64_t seed) {
  mjData* da = mj_makeData(a);
  mjData* db = mj_makeData(b);
  std::mt19937_64 rng(static_cast<std::uint64_t>(seed < 0 ? 0 : seed));
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  double worst = 0;
  for (int t = 0; t < steps; ++t) {
    for (int i = 0; i < a->nu; ++i) {
      double u = 0;
      if (seed >= 0) {
        const double lo = a->actuator_ctrlrange[2 * i], hi = a->actuator_ctrlrange[2 * i + 1];
        u = lo + (hi - lo) * unit(rng);
      }
      da->ctrl[i] = db->ctrl[i] = u;
    }
    mj_step(a, da);
    mj_step(b, db);
    for (int i = 0; i < a->nq; ++i) worst = std::max(worst, std::abs(da->qpos[i] - db->qpos[i]));
    for (int i = 0; i < a->nv; ++i) worst = std::max(worst, std::abs(da->qvel[i] - db->qvel[i]));
  }
  mj_deleteData(da);
  mj_deleteData(db);
  return worst;
}

}  // namespace rlzoo::test
