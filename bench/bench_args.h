// Command-line values the benchmarks that drive aoe-host read alike.
#pragma once

#include <charconv>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace aoe::bench {

// "a,b,,c" -> {a, b, c}
inline std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

// A whole number, or an error naming the option.
inline uint64_t count(const std::string& text, const std::string& option) {
  uint64_t n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size())
    throw std::invalid_argument(option + " takes a whole number, not '" + text + "'");
  return n;
}

// "1,2,8" -> {1, 2, 8}, or an error naming the option.
inline std::vector<uint64_t> counts(const std::string& text, const std::string& option) {
  std::vector<uint64_t> out;
  for (const auto& item : split_list(text)) out.push_back(count(item, option));
  return out;
}

// argv walked option by option: value() takes the word after the option, or
// throws naming the option that lacks one.
class Args {
 public:
  Args(int argc, char** argv) : argc_(argc), argv_(argv) {}
  bool next() {
    if (++i_ >= argc_) return false;
    option_ = argv_[i_];
    return true;
  }
  const std::string& option() const { return option_; }
  std::string value() {
    if (i_ + 1 >= argc_) throw std::invalid_argument(option_ + " needs a value");
    return argv_[++i_];
  }

 private:
  int argc_;
  char** argv_;
  int i_ = 0;
  std::string option_;
};

}  // namespace aoe::bench
