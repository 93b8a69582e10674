#include "apps/parse_errors.h"

#include <fmt/format.h>

#include <cctype>
#include <sstream>
#include <vector>

#include "core/common/strings.h"

namespace rlzoo::cli {

namespace {

bool is_option(const std::string& arg) { return arg.size() > 1 && arg[0] == '-'; }

std::vector<std::string> command_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); }))
    names.push_back(sub->get_name());
  return names;
}

std::vector<std::string> option_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* opt : app.get_options()) {
    for (const auto& l : opt->get_lnames()) names.push_back("--" + l);
    for (const auto& s : opt->get_snames()) names.push_back("-" + s);
  }
  return names;
}

// CLI11's own text, as a clause of ours: its first letter lower case, its help hint dropped.
std::string clause(std::string text) {
  if (const auto cut = text.find("\nRun with --help"); cut != std::string::npos) text.resize(cut);
  for (auto& c : text)
    if (c == '\n') c = ' ';
  if (text.size() > 1 && std::isupper(static_cast<unsigned char>(text[0])) &&
      !std::isupper(static_cast<unsigned char>(text[1])))
    text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
  return text;
}

}  // namespace

std::string parse_error_message(const CLI::App& app, const CLI::ParseError& error) {
  // The commands the parse got as far as: `rlzoo env check`.
  const CLI::App* at = &app;
  std::string path = "rlzoo";
  for (;;) {
    const auto parsed = at->get_subcommands();
    if (parsed.empty()) break;
    at = parsed.front();
    path += " " + at->get_name();
  }
  std::vector<std::string> rest = app.remaining(/*recurse=*/true);
  if (rest.empty() && dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr) {
    // The words are only in the message then, listed last first (CLI11 joins them reversed).
    const std::string text = error.what();
    std::istringstream words(text.substr(text.find(": ") + 2));
    for (std::string w; words >> w;) rest.insert(rest.begin(), w);
  }
  std::string first_word, first_option;
  for (const auto& arg : rest) {
    if (arg == "--") continue;
    if (is_option(arg)) {
      if (first_option.empty()) first_option = arg.substr(0, arg.find('='));
    } else if (first_word.empty()) {
      first_word = arg;
    }
  }
  const std::vector<std::string> commands = command_names(*at);
  if (at->get_require_subcommand_min() > 0 && !commands.empty() && at->get_subcommands().empty()) {
    if (!first_word.empty())
      return fmt::format("'{}' has no command '{}'{}; its commands: {} (see {} --help)", path, first_word,
                         did_you_mean(first_word, commands), join(commands), path);
    return fmt::format("'{}' needs a command: {} (see {} --help)", path, join(commands), path);
  }
  if (dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr) {
    if (!first_option.empty())
      return fmt::format("'{}' has no option '{}'{} (see {} --help)", path, first_option,
                         did_you_mean(first_option, option_names(*at)), path);
    if (!first_word.empty())
      return fmt::format("'{}' takes no argument '{}' here (see {} --help)", path, first_word, path);
  }
  return fmt::format("'{}': {} (see {} --help)", path, clause(error.what()), path);
}

}  // namespace rlzoo::cli
