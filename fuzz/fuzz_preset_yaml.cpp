// libFuzzer target: the YAML preset loader (core/config: load_yaml_string, the duplicate-key
// check, --set overrides, and schema validation into PresetConfig, the form every
// `rlzoo train --preset` file takes).
//
// On any text: a ConfigError/UserError naming the problem, or a validated preset whose emitted
// YAML parses and validates again to the same YAML. The text after the first NUL byte, if any,
// is applied as one `--set key=value` override first.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <yaml-cpp/yaml.h>

#include "rl/preset.h"
#include "core/common/error.h"
#include "core/config/context.h"
#include "core/config/schema.h"
#include "core/config/yaml_io.h"

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

bool printable(const std::string& s) {
  for (const char c : s)
    if (c < 0x20 || c > 0x7e) return false;
  return true;
}

std::string emit(const YAML::Node& n) {
  YAML::Emitter e;
  e << n;
  return e.c_str();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t nul = input.find('\0');
  const std::string text(input.substr(0, nul));
  try {
    rlzoo::ConfigContext ctx("fuzz.yaml");
    YAML::Node root = rlzoo::load_yaml_string(text, "fuzz.yaml");
    if (nul != std::string_view::npos) rlzoo::apply_override(root, std::string(input.substr(nul + 1)), ctx);
    auto preset = rlzoo::parse_config<rlzoo::PresetConfig>(root, ctx);
    // The round trip covers the typed fields; the free-form maps and non-printable ids are
    // left out (yaml-cpp's emitter, not rlzoo, decides how those come back).
    if (!printable(preset.algo) || !printable(preset.env)) return 0;
    preset.env_kwargs = YAML::Node();
    preset.hyperparams = YAML::Node();
    const std::string once = emit(rlzoo::to_yaml(preset));
    const auto again = rlzoo::parse_config<rlzoo::PresetConfig>(rlzoo::load_yaml_string(once, "emitted"), ctx);
    check(emit(rlzoo::to_yaml(again)) == once);
  } catch (const rlzoo::UserError&) {
    // bad input is refused with a message: the contract
  } catch (const YAML::Exception&) {
    std::abort();  // yaml-cpp errors must be re-reported as ConfigError naming the source
  }
  return 0;
}
