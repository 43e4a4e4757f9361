// SPDX-License-Identifier: Apache-2.0
// An aoe_sink that appends to a std::string, and writing a string into one.
#pragma once

#include <string>

#include "aoe/abi/sink.h"

namespace aoe::sdk {

class StringSink {
 public:
  StringSink() : sink_{sizeof(aoe_sink), &text_, &append} {}
  StringSink(const StringSink&) = delete;
  StringSink& operator=(const StringSink&) = delete;

  aoe_sink* get() { return &sink_; }
  const std::string& str() const { return text_; }

 private:
  static void append(void* ctx, const char* data, size_t size) {
    static_cast<std::string*>(ctx)->append(data, size);
  }
  std::string text_;
  aoe_sink sink_;
};

inline void write_to(aoe_sink* sink, const std::string& text) {
  if (sink && sink->write) sink->write(sink->ctx, text.data(), text.size());
}

}  // namespace aoe::sdk
