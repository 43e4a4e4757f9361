// A failure that ends the run with a documented exit code.
#pragma once

#include <stdexcept>
#include <string>

namespace aoe::host {

class ExitError : public std::runtime_error {
 public:
  ExitError(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

}  // namespace aoe::host
