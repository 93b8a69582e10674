// `rlzoo docs cli`: docs/cli.md, walked from the CLI11 tree main() parses.
#include <algorithm>
#include <fmt/format.h>
#include <set>
#include <string>
#include <vector>

#include "apps/docs_reference.h"
#include "apps/markdown.h"
#include "core/common/strings.h"

namespace rlzoo::cli {

namespace {

// Subcommands in the order they were added; option groups (nameless) and hidden ones left out.
std::vector<CLI::App*> subcommands_of(CLI::App& app) {
  return app.get_subcommands([](CLI::App* s) { return !s->get_name().empty() && !s->get_group().empty(); });
}

// The options a user can give: hidden ones and -h/--help left out; those of option groups
// (nameless subcommands) included.
std::vector<CLI::Option*> options_of(CLI::App& app) {
  auto opts = app.get_options([&app](CLI::Option* o) {
    return o != app.get_help_ptr() && o != app.get_help_all_ptr() && !o->get_group().empty();
  });
  for (CLI::App* group : app.get_subcommands([](CLI::App* s) { return s->get_name().empty(); })) {
    const auto more = options_of(*group);
    opts.insert(opts.end(), more.begin(), more.end());
  }
  return opts;
}

bool is_flag(const CLI::Option& o) { return o.get_items_expected_max() == 0; }

std::string names_of(const CLI::Option& o) {
  std::vector<std::string> names;
  for (const auto& s : o.get_snames()) names.push_back("-" + s);
  for (const auto& l : o.get_lnames()) names.push_back("--" + l);
  if (names.empty()) return o.get_name(true);  // a positional
  return join(names);
}

// "TEXT", "INT:POSITIVE", "TEXT ..." (any number), "INT x 2"; "flag" for a flag.
std::string value_of(const CLI::Option& o) {
  if (is_flag(o)) return "flag";
  std::string type = o.get_type_name();
  const int lo = o.get_items_expected_min(), hi = o.get_items_expected_max();
  if (hi > 1) type += lo == hi ? fmt::format(" x {}", hi) : " ...";
  return type;
}

// The option's default text (->default_str()) or, without one, the default captured from its
// bound variable; this checkout's path is written as <source> so that the page does not depend
// on where it was built. An option whose default is machine-specific should set default_str().
std::string default_of(CLI::Option& o) {
  if (is_flag(o)) return "";
  if (o.get_default_str().empty()) o.capture_default_str();
  std::string d = o.get_default_str();
  // A list default reads "[a,b]" or "a b" depending on which instantiation of CLI11's
  // to_string the link kept (LibTorch's headers make vectors streamable in the TUs that
  // include them): written one way, "a b", and an empty list as no default.
  if (d.size() >= 2 && d.front() == '[' && d.back() == ']') {
    d = d.substr(1, d.size() - 2);
    std::replace(d.begin(), d.end(), ',', ' ');
  }
  const std::string source = RLZOO_SOURCE_DIR;
  for (std::size_t at; !source.empty() && (at = d.find(source)) != std::string::npos;) d.replace(at, source.size(), "<source>");
  return d;
}

std::string description_of(const CLI::Option& o) {
  std::string text = o.get_description().empty() ? std::string(kUndocumented) : md_text(o.get_description());
  auto relation = [&text](const char* what, const std::set<CLI::Option*>& others) {
    if (others.empty()) return;
    std::vector<std::string> names;
    for (const CLI::Option* other : others) names.push_back(md_code(other->get_name()));
    std::sort(names.begin(), names.end());  // a set of pointers has no stable order
    text += fmt::format(" {}: {}.", what, join(names));
  };
  relation("Excludes", o.get_excludes());
  relation("Needs", o.get_needs());
  if (!o.get_envname().empty()) text += fmt::format(" Environment variable: {}.", md_code(o.get_envname()));
  return text;
}

std::string usage_of(CLI::App& app, const std::string& path) {
  std::string usage = path;
  const auto opts = options_of(app);
  if (std::any_of(opts.begin(), opts.end(), [](const CLI::Option* o) { return !o->get_positional(); }))
    usage += " [OPTIONS]";
  for (const CLI::Option* o : opts) {
    if (!o->get_positional()) continue;
    std::string name = o->get_name(true);
    if (o->get_items_expected_max() > 1) name += "...";
    usage += " " + (o->get_required() ? name : "[" + name + "]");
  }
  if (!subcommands_of(app).empty()) usage += app.get_require_subcommand_min() > 0 ? " SUBCOMMAND" : " [SUBCOMMAND]";
  return usage;
}

void contents(CLI::App& app, const std::string& path, int depth, std::string& out) {
  for (CLI::App* sub : subcommands_of(app)) {
    const std::string sub_path = path + " " + sub->get_name();
    out += fmt::format("{}- [`{}`](#{}): {}\n", std::string(2 * depth, ' '), sub_path, md_anchor(sub_path),
                       sub->get_description().empty() ? kUndocumented : md_text(sub->get_description()));
    contents(*sub, sub_path, depth + 1, out);
  }
}

void section(CLI::App& app, const std::string& path, std::string& out) {
  out += fmt::format("## {}\n\n", path);
  out += (app.get_description().empty() ? std::string(kUndocumented) : md_text(app.get_description())) + "\n\n";
  out += fmt::format("```\n{}\n```\n\n", usage_of(app, path));
  const auto subs = subcommands_of(app);
  if (!subs.empty()) {
    out += "Subcommands: ";
    std::vector<std::string> links;
    for (CLI::App* sub : subs) links.push_back(fmt::format("[`{}`](#{})", sub->get_name(), md_anchor(path + " " + sub->get_name())));
    out += join(links) + ".\n\n";
  }
  const auto opts = options_of(app);
  if (!opts.empty()) {
    out += "| Option | Value | Default | Required | Description |\n|---|---|---|---|---|\n";
    for (CLI::Option* o : opts)
      out += fmt::format("| {} | {} | {} | {} | {} |\n", md_code(names_of(*o)), md_cell(value_of(*o)),
                         md_code(default_of(*o)), o->get_required() ? "yes" : "", description_of(*o));
    out += "\n";
  }
  if (!app.get_footer().empty()) out += md_text(app.get_footer()) + "\n\n";
  for (CLI::App* sub : subs) section(*sub, path + " " + sub->get_name(), out);
}

}  // namespace

std::string cli_reference(CLI::App& app) {
  std::string out =
      "# CLI reference\n\n"
      "<!-- Generated by `rlzoo docs cli` from the command definitions (apps/cmd_*.cpp); do not edit.\n"
      "     Regenerate: build/apps/rlzoo docs cli > docs/cli.md (or scripts/gen-docs).\n"
      "     tests/cli/docs_test.cpp fails when this file differs from the generated one. -->\n\n"
      "Every command takes `-h`, `--help`. A user error (bad arguments, an invalid preset, a missing file) prints one "
      "line `rlzoo: error: ...` on stderr and exits with status 2; an internal error exits with 3; a run stopped by "
      "SIGINT or SIGTERM saves a checkpoint and exits with 128 + the signal number. The keys of `--set` and of "
      "preset files are listed in [presets.md](presets.md).\n\n";
  out += "## Commands\n\n";
  contents(app, "rlzoo", 0, out);
  out += "\n";
  section(app, "rlzoo", out);
  while (out.size() > 1 && out[out.size() - 2] == '\n') out.pop_back();  // one trailing newline
  return out;
}

}  // namespace rlzoo::cli
