#include "json_file.h"

#include <zlib.h>

#include <fstream>
#include <iterator>

#include "aoe/sdk/error.h"

namespace aoe::replay {
namespace {

using sdk::Error;
using sdk::StatusCode;

bool is_gzip(const std::string& bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

[[noreturn]] void corrupt(const std::filesystem::path& file, const std::string& why) {
  throw Error(StatusCode::invalid_argument, "cannot read " + file.string() + ": " + why);
}

[[noreturn]] void too_big(const std::filesystem::path& file, const char* what, uint64_t max_bytes) {
  throw Error(StatusCode::invalid_argument,
              "cannot read " + file.string() + ": it " + what + " more than " + std::to_string(max_bytes >> 20) +
                  " MiB, the limit; if it is a real cachefile, raise the replay option 'max_inflated_mb'");
}

// Inflates every gzip member in turn (gzip allows concatenated members); a
// stream that ends before its trailer is truncated, not merely short. It
// stops at max_bytes: a few kilobytes of gzip can inflate to terabytes.
std::string inflate_gzip(const std::filesystem::path& file, const std::string& packed, uint64_t max_bytes) {
  z_stream z{};
  if (inflateInit2(&z, 15 + 16) != Z_OK) corrupt(file, "zlib could not start");
  std::string out;
  char chunk[1 << 16];
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(packed.data()));
  z.avail_in = static_cast<uInt>(packed.size());
  int rc = Z_OK;
  while (true) {
    z.next_out = reinterpret_cast<Bytef*>(chunk);
    z.avail_out = sizeof chunk;
    rc = inflate(&z, Z_NO_FLUSH);
    const size_t got = sizeof chunk - z.avail_out;
    if (out.size() + got > max_bytes) {
      inflateEnd(&z);
      too_big(file, "inflates to", max_bytes);
    }
    out.append(chunk, got);
    if (rc == Z_STREAM_END) {
      if (z.avail_in == 0) break;
      inflateReset(&z);  // another member follows
      continue;
    }
    if (rc == Z_OK) continue;
    if (rc == Z_BUF_ERROR && z.avail_in == 0) {
      inflateEnd(&z);
      corrupt(file, "the gzip stream is truncated (it ends after " + std::to_string(packed.size()) +
                        " bytes, before its end marker)");
    }
    const std::string why = z.msg ? z.msg : "zlib error " + std::to_string(rc);
    inflateEnd(&z);
    corrupt(file, "the gzip stream is corrupt (" + why + ")");
  }
  inflateEnd(&z);
  return out;
}

}  // namespace

std::string read_maybe_gzip(const std::filesystem::path& file, uint64_t max_bytes) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(StatusCode::io, "cannot open " + file.string());
  std::error_code ec;
  if (const auto size = std::filesystem::file_size(file, ec); !ec && size > max_bytes) too_big(file, "holds", max_bytes);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw Error(StatusCode::io, "cannot read " + file.string());
  if (is_gzip(bytes)) return inflate_gzip(file, bytes, max_bytes);
  if (file.extension() == ".gz") corrupt(file, "it is named .gz but is not gzip-compressed");
  return bytes;
}

nlohmann::ordered_json read_json_file(const std::filesystem::path& file, uint64_t max_bytes) {
  return parse_json_text(file, read_maybe_gzip(file, max_bytes));
}

nlohmann::ordered_json parse_json_text(const std::filesystem::path& file, const std::string& text) {
  try {
    return nlohmann::ordered_json::parse(text);
  } catch (const nlohmann::ordered_json::exception& e) {
    // A syntax error, or a number past what a double or an integer holds (out_of_range).
    corrupt(file, std::string("not valid JSON: ") + e.what());
  }
}

void FileReader::fail(const std::string& why) const {
  throw Error(StatusCode::invalid_argument, kind_ + " " + file_.string() + " " + why);
}

}  // namespace aoe::replay
