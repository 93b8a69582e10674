// Markdown pieces of the generated reference pages (apps/docs_*.cpp).
#pragma once

#include <string>

namespace rlzoo::cli {

// Where a description is missing, the generated page says so in these words; the docs test
// (tests/cli/docs_test.cpp) fails on them.
inline constexpr const char* kUndocumented = "**Undocumented**";

// Escapes text for a Markdown table cell: '|' (ends the cell), newlines (as <br>).
std::string md_cell(const std::string& text);
// Prose inside a table or paragraph: md_cell, and '<' '>' escaped (they would open HTML tags).
std::string md_text(const std::string& text);
// `text` as inline code, escaped for a table cell; "" stays "".
std::string md_code(const std::string& text);
// The anchor GitHub gives a heading: lower case, spaces to '-', punctuation other than '-' and
// '_' dropped ("rlzoo bench env" -> "rlzoo-bench-env").
std::string md_anchor(const std::string& heading);

}  // namespace rlzoo::cli
