#include "apps/markdown.h"

#include <cctype>

namespace rlzoo::cli {

std::string md_cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += "<br>";
    else out += c;
  }
  return out;
}

std::string md_text(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '<' || c == '>') out += '\\';
    out += c;
  }
  return md_cell(out);
}

std::string md_code(const std::string& text) {
  if (text.empty()) return "";
  // A backtick inside needs a longer fence, padded with spaces.
  const bool tick = text.find('`') != std::string::npos;
  std::string out = tick ? "`` " : "`";
  out += md_cell(text);
  out += tick ? " ``" : "`";
  return out;
}

std::string md_anchor(const std::string& heading) {
  std::string out;
  for (char c : heading) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '-' || c == '_') out += static_cast<char>(std::tolower(u));
    else if (c == ' ') out += '-';
  }
  return out;
}

}  // namespace rlzoo::cli
